"""The tool files beside SKILL.md: ``tools.yaml`` (the tools a skill calls) and ``sources.yaml``
(where its knowledge comes from), read safely and checked, each problem with its line.

tools.yaml holds a list of tools, at the top or under ``tools:``. A tool has a ``name``
(lowercase snake_case words starting with a verb, optionally namespaced as ``ns.verb_noun`` or
``ns__verb_noun``; a tool that wraps a program may carry the program's name, given as its
``command``), a ``description`` saying what it does, when to use it and when not to, and its
parameters: either a list of ``{name, type, required, default, description}`` entries (``type``
a JSON Schema type or ``path``) or a JSON Schema of the input object under ``parameters``,
``input_schema`` or ``inputSchema``; both forms are checked against the Draft 2020-12 meta-schema.

sources.yaml holds a list of sources, at the top or under ``sources:``: a URL, or a mapping with
a ``url`` and optionally ``title``, ``kind``, ``license``, ``retrieved`` (a date) and ``note``.

Problems are findings, never failures: every one is a warning or information.
"""

from __future__ import annotations

import datetime
import posixpath
import re
from typing import Any
from urllib.parse import urlsplit

from skill_studio.core.format.diagnostics import Severity
from skill_studio.core.format.tool_schema import ParamProblem, check_parameters
from skill_studio.core.format.yaml_lines import FileProblem, LineReport, read_yaml
from skill_studio.core.format.yaml_lines import YamlPath as _Path

__all__ = ["MAX_TOOL_FILE_BYTES", "TOOL_FILES", "FileProblem", "check_sources", "check_tool_file", "check_tools",
           "is_tool_file", "tool_name_problem", "unreadable"]

TOOL_FILES = ("tools.yaml", "sources.yaml")
#: The largest tool file checked (a few hundred tools fit in far less).
MAX_TOOL_FILE_BYTES = 1024 * 1024
#: Most values a tool file may hold once its aliases are expanded.
MAX_VALUES = 50_000
#: Most problems reported for one file (the rest are counted).
MAX_PROBLEMS = 100
MAX_TOOL_NAME = 64

_SEGMENT = r"[a-z][a-z0-9]*(?:_[a-z0-9]+)*"
_TOOL_NAME = re.compile(rf"{_SEGMENT}(?:(?:\.|__){_SEGMENT})*")
_NAMESPACE_SPLIT = re.compile(r"\.|__")
# Common first words of tool names that say what the tool does.
_VERBS = frozenset("""
    add analyse analyze annotate append apply approve archive ask assign attach audit authenticate
    build bump calculate call cancel capture change check classify clean clear clone close
    collect combine commit compare compile complete compress compute configure confirm connect
    convert copy count crawl create crop cut debug decode decrypt delete deploy describe detect
    diff disable download draft draw dump edit embed emit enable encode encrypt enrich estimate
    evaluate execute expand explain export extract fetch fill filter find fix flag format
    generate get grep group hash import index infer insert inspect install invoke join label
    launch lint list load locate lock log lookup make manage map mark measure merge migrate monitor move
    normalise normalize notify ocr open optimise optimize order parse patch pause ping plan play
    post predict preview print process profile publish pull push put query rank read rebuild
    recognise recognize record redact refresh register reject reload remove rename render reply
    report request reset resize resolve restart restore resume retrieve review revoke rotate run
    sample save scan schedule score scrape search select send set share show sign simulate sort
    split start stop store stream submit summarise summarize sync tag test trace track train
    transcribe transform translate trigger trim tune undo unlock unpack update upgrade upload
    validate verify view watch write zip
""".split())
_USE_WHEN = re.compile(r"\b(use|used|call|run|invoke|pick|choose)\b|\b(when|whenever|if|once|before|after|"
                       r"while|unless)\b", re.IGNORECASE)
_USE_NOT = re.compile(r"\b(not|don't|never|avoid|instead|rather|unless|except|only)\b|n't\b", re.IGNORECASE)
_TOOL_KEYS = ("name", "description", "title", "command", "parameters", "input_schema", "inputSchema",
              "output_schema", "outputSchema", "returns", "examples", "annotations")
_PARAM_KEYS = ("parameters", "input_schema", "inputSchema")
_SOURCE_KEYS = ("url", "title", "kind", "license", "retrieved", "note", "notes", "description", "author")
_HOST_SCHEMES = ("http", "https", "ftp", "git", "ssh")


def is_tool_file(path: str) -> bool:
    """True for the paths this module checks: tools.yaml and sources.yaml beside SKILL.md."""
    return path in TOOL_FILES


def check_tool_file(path: str, data: bytes | str) -> list[FileProblem]:
    """The problems of a tool file's contents ([] for a file this module does not check)."""
    if not is_tool_file(path):
        return []
    report = LineReport(path)
    ok, value = read_yaml(data, report, code="W008", twice_code="W009", max_bytes=MAX_TOOL_FILE_BYTES,
                          max_values=MAX_VALUES)
    if ok:
        (_tools if path == "tools.yaml" else _sources)(value, report)
    return report.done(MAX_PROBLEMS, "W009")


def unreadable(path: str, reason: str) -> FileProblem:
    """The W008 for a tool file that is there but was not read, saying why."""
    return FileProblem(path, None, "W008", Severity.WARNING, f"was not read: {reason}",
                       "make it a regular file of the skill folder, under "
                       f"{MAX_TOOL_FILE_BYTES // 1024} KiB")


def check_tools(data: bytes | str) -> list[FileProblem]:
    """The problems of tools.yaml's contents."""
    return check_tool_file("tools.yaml", data)


def check_sources(data: bytes | str) -> list[FileProblem]:
    """The problems of sources.yaml's contents."""
    return check_tool_file("sources.yaml", data)


def tool_name_problem(name: str) -> str | None:
    """Why ``name`` breaks the tool naming rules, or None when it keeps them."""
    if not name.strip():
        return "is empty"
    if len(name) > MAX_TOOL_NAME:
        return f"is {len(name)} characters, over the {MAX_TOOL_NAME} that agent APIs accept"
    if _TOOL_NAME.fullmatch(name):
        return None
    if name != name.lower():
        return "has capital letters; tool names are lowercase"
    if re.search(r"\s", name):
        return "has blanks; join words with '_'"
    if "-" in name:
        return "has '-'; join words with '_'"
    if re.search(r"_{3,}|^_|_$|(?<!_)_(?=\.)|\._", name):
        return "has a stray '_'; use one '_' between words and '.' or '__' after a namespace"
    if any(not p or not p[0].isalpha() for p in _NAMESPACE_SPLIT.split(name)):
        return "has a word that does not start with a letter, or an empty namespace"
    return "has characters other than a-z, 0-9, '_' and the namespace separators '.' and '__'"


def _entries(data: Any, key: str, what: str, report: LineReport) -> tuple[list[Any], _Path] | None:
    base: _Path = ()
    if isinstance(data, dict) and key in data:
        data, base = data[key], (key,)
    if data is None:
        return [], base
    if not isinstance(data, list):
        report.add("W009", Severity.WARNING, f"must hold a list of {what}s, at the top or under '{key}:'",
                   base, f"write each {what} as an item starting with '- '")
        return None
    return data, base


# --- tools.yaml ----------------------------------------------------------------------------------


def _tools(data: Any, report: LineReport) -> None:
    found = _entries(data, "tools", "tool", report)
    if found is None:
        return
    tools, base = found
    names: dict[str, int] = {}
    for i, tool in enumerate(tools):
        at = (*base, i)
        if not isinstance(tool, dict):
            report.add("W009", Severity.WARNING, f"tool {i + 1} is not a mapping", at,
                       "give each tool a name, a description and its parameters")
            continue
        name = tool.get("name")
        label = f"tool '{name}'" if isinstance(name, str) and name.strip() else f"tool {i + 1}"
        if not isinstance(name, str):
            report.add("W009", Severity.WARNING, f"{label} has no name" if name is None
                       else f"{label}: the name must be text", (*at, "name"), "add 'name: verb_noun'")
        else:
            _check_name(name, tool.get("command"), label, (*at, "name"), report)
            if name in names:
                report.add("W009", Severity.WARNING, f"{label} is defined twice (first at line {names[name]})",
                           (*at, "name"), "rename or remove one of them")
            names.setdefault(name, report.line((*at, "name")) or 0)
        _check_description(tool.get("description"), label, (*at, "description"), report)
        given = [k for k in _PARAM_KEYS if k in tool]
        if len(given) > 1:
            report.add("W009", Severity.WARNING, f"{label} gives its parameters twice ({', '.join(given)})",
                       (*at, given[1]), "keep one of them")
        if given:
            for p in check_parameters(tool[given[0]]):
                _param_problem(p, label, (*at, given[0]), report)
        unknown = sorted(str(k) for k in tool if k not in _TOOL_KEYS)
        if unknown:
            report.add("W015", Severity.INFO, f"{label} has keys tools do not use: {', '.join(unknown)}",
                       (*at, unknown[0]) if unknown[0] in tool else at,
                       f"check the spelling; a tool has {', '.join(_TOOL_KEYS)}")


def _check_name(name: str, command: Any, label: str, at: _Path, report: LineReport) -> None:
    why = tool_name_problem(name)
    if why is not None:
        report.add("W010", Severity.WARNING, f"{label}: the name {why}", at,
                   "name tools with lowercase snake_case words starting with a verb, optionally "
                   "namespaced: 'search_issues', 'github.search_issues' or 'github__search_issues'")
        return
    program = posixpath.basename(command.split()[0]) if isinstance(command, str) and command.split() else None
    first = _NAMESPACE_SPLIT.split(name)[-1].split("_")[0]
    if name != program and first not in _VERBS:
        report.add("W011", Severity.INFO, f"{label}: the name does not start with a verb ('{first}')", at,
                   "start with what the tool does, as in 'get_', 'list_', 'search_', 'create_'; a tool "
                   "that wraps a program may carry the program's name when 'command' gives it")


def _check_description(desc: Any, label: str, at: _Path, report: LineReport) -> None:
    if not isinstance(desc, str) or not desc.strip():
        report.add("W012", Severity.WARNING, f"{label} has no description", at,
                   "say what the tool does, when to use it and when not to")
        return
    missing = [part for part, pattern in (("when to use it", _USE_WHEN), ("when not to", _USE_NOT))
               if not pattern.search(desc)]
    if missing:
        report.add("W012", Severity.WARNING, f"{label}: the description says what the tool does but not "
                   f"{' or '.join(missing)}", at,
                   "add sentences such as 'Use when ...' and 'Do not use for ...; use ... instead' so "
                   "agents pick the right tool")


def _param_problem(p: ParamProblem, label: str, at: _Path, report: LineReport) -> None:
    code = "W012" if p.kind == "description" else "W013"
    severity = Severity.WARNING
    hint = p.hint or ("parameters are a JSON Schema (Draft 2020-12), or a list of entries with name, "
                      "type, required, default and description")
    report.add(code, severity, f"{label}: {p.message}", (*at, *p.path), hint)


# --- sources.yaml ----------------------------------------------------------------------------------


def _sources(data: Any, report: LineReport) -> None:
    found = _entries(data, "sources", "source", report)
    if found is None:
        return
    sources, base = found
    urls: dict[str, int] = {}
    for i, entry in enumerate(sources):
        at = (*base, i)
        if isinstance(entry, str):
            entry = {"url": entry}
            url_at: _Path = at
        elif isinstance(entry, dict):
            url_at = (*at, "url")
        else:
            report.add("W009", Severity.WARNING, f"source {i + 1} is neither a URL nor a mapping", at,
                       "write a URL, or a mapping with url, title, kind, license and retrieved")
            continue
        url = entry.get("url")
        if url is None:
            report.add("W014", Severity.WARNING, f"source {i + 1} has no url", at, "add 'url: https://...'")
        else:
            why = _url_problem(url)
            if why is not None:
                report.add("W014", Severity.WARNING, f"source {i + 1}: the url {why}", url_at,
                           "give a full address, as in https://example.org/guide")
            elif url in urls:
                report.add("W009", Severity.WARNING, f"source {i + 1} repeats the url of line {urls[url]}",
                           url_at, "remove one of them")
            else:
                urls[url] = report.line(url_at) or 0
        retrieved = entry.get("retrieved")
        if retrieved is not None and not _is_date(retrieved):
            report.add("W014", Severity.WARNING, f"source {i + 1}: retrieved '{retrieved}' is not a date",
                       (*at, "retrieved"), "write the date as YYYY-MM-DD")
        for key in ("title", "kind", "license", "note"):
            if key in entry and not isinstance(entry[key], str):
                report.add("W014", Severity.WARNING, f"source {i + 1}: {key} must be text", (*at, key))
        unknown = sorted(str(k) for k in entry if k not in _SOURCE_KEYS)
        if unknown:
            report.add("W015", Severity.INFO, f"source {i + 1} has keys sources do not use: "
                       f"{', '.join(unknown)}", (*at, unknown[0]) if unknown[0] in entry else at,
                       f"check the spelling; a source has {', '.join(_SOURCE_KEYS)}")


def _url_problem(url: Any) -> str | None:
    if not isinstance(url, str) or not url.strip():
        return "must be text"
    if re.search(r"\s", url.strip()) or url != url.strip():
        return f"'{url}' has blanks in it"
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - reading it checks the port
    except ValueError as e:
        return f"'{url}' does not parse ({e})"
    if not parts.scheme:
        return f"'{url}' has no scheme"
    if parts.scheme.lower() in _HOST_SCHEMES and not parts.hostname:
        return f"'{url}' has no host"
    return None


def _is_date(value: Any) -> bool:
    if isinstance(value, datetime.date):
        return True
    if not isinstance(value, str):
        return False
    try:
        datetime.date.fromisoformat(value.strip()[:10])
    except ValueError:
        return False
    return True
