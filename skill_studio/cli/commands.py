"""The commands of ``skill-studio`` by area, as the parser lists them: each area's module (under
:mod:`skill_studio.cli`) and, in the order it registers them, its commands' names and one-line help.

The parser is built from this table so that ``--help`` and a command's own run import only what
they need: the module of the command being run registers its commands in full (arguments and
what runs them); the other areas' commands are listed by name and help alone. A test keeps this
table the same as what the modules register.
"""

from __future__ import annotations

#: (module, ((command, help), ...)), in the order the commands are listed.
AREAS: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = (
    ("library", (
        ('validate', 'check skill folders, SKILL.md files or trees of skills'),
        ('import', 'import skill folders, trees of them, and .skill/.zip archives'),
        ('export', 'write skills as folders (or zip archives)'),
        ('list', 'list skills with their trust stars and lifecycle'),
        ('show', 'show one skill: fields, scores, files, history'),
    )),
    ("authoring", (
        ('new', 'create a skill from a template'),
        ('save', 'save a SKILL.md file as the next version of a skill'),
        ('history', "list a skill's versions"),
        ('diff', 'unified diff between two versions (default: the last two)'),
        ('restore-version', 'make an earlier version current again (as a new version)'),
        ('drafts', 'list unsaved drafts left by the designer'),
    )),
    ("review", (
        ('promote', 'candidate → verified → released; degraded → verified'),
        ('degrade', 'verified or released → degraded'),
        ('deprecate', 'schedule a skill for removal'),
        ('archive', 'retire a skill (kept for history)'),
        ('restore', 'deprecated or archived → candidate'),
        ('trust', "set a skill's trust tier (1-3)"),
        ('pin', "keep a skill out of the health check's moves"),
        ('unpin', 'undo pin'),
        ('merge', 'merge SOURCE into TARGET (the source is archived)'),
        ('delete', 'delete skills (one that a skill not named depends on is refused)'),
        ('audit', 'the audit log: who changed what, when and why'),
    )),
    ("health", (
        ('health', 'score every skill and plan the maintenance moves (--apply makes them)'),
        ('use', 'record one use of a skill and its outcome'),
        ('duplicates', 'pairs of skills that are nearly the same'),
    )),
    ("graph", (
        ('graph', 'the dependency graph: a summary, its problems (--problems) or an export (--format)'),
        ('deps', 'every skill a skill needs, directly or not, in load order'),
        ('dependents', 'every skill that needs a skill, directly or not'),
        ('load-order', 'the order to load skills in, prerequisites first (all skills when none named)'),
    )),
    ("bus", (
        ('bindings', 'bindings of skills to events: list (the default), add, edit, remove, enable, disable,'
         ' export, import'),
        ('dispatch', 'dispatch an event: every binding of its type, fired or skipped and why (logged)'),
        ('events', 'the log of dispatched events, newest first'),
    )),
    ("agents", (
        ('match', 'the skills a query is about, most relevant first, and those the gate keeps out'),
        ('gate', 'which skills an agent may see, and why the others may not'),
        ('load', "print a skill's SKILL.md as an agent receives it, and record the use"),
        ('prompt', 'print the <available_skills> block for skills (names or folders; the active ones when none)'),
        ('descriptor', 'a JSON descriptor for runtimes: the skills root and, per consumer, the enabled and'
         ' disabled skills (with why); or --check one written before'),
    )),
    ("install", (
        ('install', "install skills into agents' skill folders (read-only copies; the gated set when none named)"),
        ('uninstall', 'remove skills the studio installed in a folder (nothing else there is touched)'),
        ('installed', 'what the studio installed in a folder: current, stale, modified or missing'),
        ('agents', "the agents' skill folders on this machine (and in a project), and which are present"),
    )),
    ("linked", (
        ('link', "link a folder of skills (a team's checkout) to the store: import it and keep it in step"),
        ('unlink', 'stop keeping a linked folder in step'),
        ('sync', 'bring linked folders and the store in step (changes on either side; conflicts reported)'),
    )),
    ("team", (
        ('team', 'a linked folder that is a git working copy: status, pull (two-sided changes asked), commit, push'),
        ('publish', 'write skills as a new git repository (skills/, a README index, a plugin marketplace file)'),
    )),
    ("agent_server", (
        ('mcp', 'serve the library to agents over the Model Context Protocol (stdio, or --http on 127.0.0.1)'),
    )),
    ("sources", (
        ('add', 'add skills from a git repository (owner/repo, a URL, a path in it) or a folder, as candidates'),
        ('outdated', 'skills added from a source whose source changed since (--diff shows the changes)'),
        ('update', 'bring skills added from a source up to it (a new version each; two-sided changes asked)'),
    )),
    ("runtime", (
        ('serve', 'serve the local skills API on 127.0.0.1 (reads open, writes with the token it prints)'),
        ('run', "try one of a skill's scripts in a temporary copy of its folder (sandboxed where bubblewrap is"
         ' installed)'),
        ('run-limits', 'show the limits script runs are held to, or set one'),
    )),
    ("store", (
        ('rescue', 'write every skill a damaged store still holds as folders (the store is only read)'),
    )),
)


def area_of(command: str) -> str | None:
    """The area (module name) whose commands include ``command``, or None."""
    return next((area for area, commands in AREAS if any(name == command for name, _ in commands)), None)


def command_in(argv: list[str]) -> str | None:
    """The command ``argv`` names, found the way the parser finds it: the first argument that is
    neither an option nor the value of ``--store`` (None when there is none, e.g. ``--help``).
    A guess only: the parser still decides, and falls back to every area if the guess was wrong."""
    args = iter(argv)
    for arg in args:
        if arg == "--":
            return next(args, None)
        if arg.startswith("-") and arg != "-":
            if "=" not in arg and len(arg) > 3 and "--store".startswith(arg):
                next(args, None)   # its value
            continue
        return arg
    return None
