"""Skill Studio's bundled resources: sample skills, icons, stylesheets, templates."""
