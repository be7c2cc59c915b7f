"""Skill folders and archives on disk: reading, writing, importing, exporting, linked folders, installs
into agents' folders and the bundled samples.
"""
