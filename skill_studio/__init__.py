"""Skill Studio: build, review and maintain libraries of agent skills."""

__version__ = "0.1.0"
