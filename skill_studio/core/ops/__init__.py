"""Every action a person or a program can take, one function each: all its rules checked, written in one
transaction, audited, and answered with the :class:`~skill_studio.core.ops.changes.ChangeSet` that tells
the views what changed. The window, the command line and the REST API call these and restate no rule."""
