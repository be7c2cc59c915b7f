"""The SKILL.md format: the codec, frontmatter edits, the studio's fields, names, the YAML bounds, the
strict, lenient and claude-upload profiles, lints and diagnostics.
"""
