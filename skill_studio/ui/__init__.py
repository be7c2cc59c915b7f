"""Skill Studio's PySide6 interface: the window and panels over the core."""
