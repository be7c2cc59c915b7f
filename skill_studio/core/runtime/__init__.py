"""Test runs of a skill's scripts, in a sandbox."""
