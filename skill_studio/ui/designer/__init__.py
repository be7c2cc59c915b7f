"""The skill designer: editor, preview, metadata form, files, problems and history of one skill."""
