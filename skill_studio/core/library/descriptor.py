"""The runtime descriptor of a skills folder: a JSON file that tells agent runtimes where the
skills are (``custom_skills_root``, absolute or relative to a bundle root) and, for each
consumer (an agent, a CI job …), which skills are enabled and which are disabled, with why.

Written (version 2)::

    {"version": 2,
     "bundle_root": "/abs/bundle" or null,
     "custom_skills_root": "skills" (relative to bundle_root) or "/abs/skills",
     "agents_config": {
        "<consumer>": {"only": [selector, ...], "exclude": [selector, ...],
                       "enabled": [name, ...],
                       "disabled": [{"name": name, "reason": why}, ...]}}}

A selector is a skill name or ``tag:TAG``. A skill is enabled for a consumer when it passes the
gate, its consumer's rule keeps it (any ``only`` selector matches when there are some, no
``exclude`` selector matches) and it is installed in the folder (a folder the studio has not
installed into counts as holding the gated set). Every skill of the store is listed once per
consumer, enabled or disabled. The earlier single-consumer shape (``skills_root`` and
``consumers``, no version) is still read.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from skill_studio.core.library.bounded_read import ReadRefused, read_text_bounded
from skill_studio.core.library.install_manifest import InstallError, read_manifest

VERSION = 2
DEFAULT_CONSUMER = "default"
TAG_PREFIX = "tag:"
NOT_INSTALLED = "not installed in this folder"
MAX_DESCRIPTOR_BYTES = 16 * 2**20


class DescriptorError(ValueError):
    """A descriptor that cannot be written or read: the message names the thing and what to do."""


@dataclass(frozen=True)
class ConsumerRule:
    """Who a descriptor configures skills for, and which skills that consumer takes: those
    matching any ``only`` selector (all when none) and no ``exclude`` selector."""

    name: str
    only: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()


@dataclass(frozen=True)
class ConsumerConfig:
    """One consumer's part of a descriptor read back."""

    rule: ConsumerRule
    enabled: tuple[str, ...]
    disabled: tuple[tuple[str, str], ...]     # (name, reason)


@dataclass(frozen=True)
class Descriptor:
    """A descriptor read back: its version, where the skills are and each consumer's part."""

    version: int
    skills_root: Path                   # absolute: custom_skills_root resolved against the bundle root
    custom_skills_root: str             # as written
    bundle_root: Path | None
    consumers: dict[str, ConsumerConfig]


@dataclass(frozen=True)
class Finding:
    """Something a descriptor says that the store or the folder no longer agrees with."""

    consumer: str | None      # None for the descriptor as a whole
    name: str | None          # the skill, when about one
    problem: str

    def __str__(self) -> str:
        where = ": ".join(p for p in (self.consumer, self.name) if p)
        return f"{where}: {self.problem}" if where else self.problem


def build_descriptor(store, root: str | os.PathLike, consumers: Sequence[ConsumerRule] | None = None, *,
                     bundle_root: str | os.PathLike | None = None) -> dict:
    """The version-2 descriptor of the skills folder ``root`` for ``consumers`` (one called
    "default" taking every skill when None). With ``bundle_root`` the root is written relative
    to it. Raises DescriptorError for a consumer without a name or named twice, a selector that
    matches no skill of the store, or a root outside the bundle root; InstallError for an
    unreadable install manifest in the folder."""
    from skill_studio.core.agents import matching

    rules = list(consumers) if consumers else [ConsumerRule(DEFAULT_CONSUMER)]
    _check_names(rules)
    target = Path(root)
    tagged, names = _tagged(store, rules), set(store.names())
    for rule in rules:
        for sel in (*rule.only, *rule.exclude):
            problem = _selector_problem(sel, tagged, names)
            if problem:
                raise DescriptorError(f'consumer "{rule.name}": {problem}')
    entries = matching.gate(store)
    installed = _installed(read_manifest(target) if target.is_dir() else None, entries)
    config = {rule.name: _consumer_json(rule, _verdicts(entries, installed, rule, tagged)) for rule in rules}
    if bundle_root is None:
        written, bundle = str(target.resolve()), None
    else:
        written, bundle = _relative_root(target, Path(bundle_root))
    return {"version": VERSION, "bundle_root": bundle, "custom_skills_root": written, "agents_config": config}


def save_descriptor(data: Mapping, path: str | os.PathLike) -> Path:
    """Write ``data`` as JSON to ``path`` in one step (a reader sees the old file or the new
    one, never half of it), creating its folder; returns the path. Raises OSError."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(data, ensure_ascii=False, indent=2) + "\n"
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return path


def read_descriptor(source: str | os.PathLike | Mapping, *, bundle_root: str | os.PathLike | None = None
                    ) -> Descriptor:
    """A descriptor read back from a file (or its parsed JSON), its shape checked. A relative
    ``custom_skills_root`` is resolved against ``bundle_root`` when given, else the file's own
    ``bundle_root`` (itself relative to the file's folder when relative). Raises
    DescriptorError naming the file and what is wrong."""
    shown, base = "the descriptor", None
    if isinstance(source, Mapping):
        data: Any = source
    else:
        shown, base = str(source), Path(source).resolve().parent
        try:
            data = json.loads(read_text_bounded(source, MAX_DESCRIPTOR_BYTES, what="descriptor"))
        except ReadRefused as e:
            raise DescriptorError(str(e)) from None
        except (OSError, RecursionError, json.JSONDecodeError) as e:
            raise DescriptorError(f"{shown}: not readable JSON ({e})") from None
    if not isinstance(data, Mapping):
        raise DescriptorError(f"{shown}: not a skills descriptor (expected a JSON object)")
    version = data.get("version", 1)
    if type(version) is int and version == 1:
        root_key, consumers_key = "skills_root", "consumers"
    elif type(version) is int and version == VERSION:
        root_key, consumers_key = "custom_skills_root", "agents_config"
    else:
        raise DescriptorError(f"{shown}: version {version!r} is not one this studio reads (1 or {VERSION}); "
                              "write the descriptor again with this studio")
    written = data.get(root_key)
    if not isinstance(written, str) or not written.strip():
        raise DescriptorError(f'{shown}: "{root_key}" must be the skills folder\'s path (a non-empty string)')
    bundle = _bundle(data.get("bundle_root"), bundle_root, base, shown)
    if Path(written).is_absolute():
        skills_root = Path(written)
    elif bundle is None:
        raise DescriptorError(f'{shown}: the skills root "{written}" is relative but no bundle root is given; '
                              "give the bundle root it is relative to (--bundle-root DIR)")
    else:
        skills_root = Path(os.path.normpath(bundle / written))
    config = data.get(consumers_key)
    if not isinstance(config, Mapping) or not config:
        raise DescriptorError(f'{shown}: "{consumers_key}" must map each consumer to its skills (at least one)')
    consumers = {name: _read_consumer(name, entry, f'{shown}: consumer "{name}"') for name, entry in config.items()}
    return Descriptor(version, skills_root, written, bundle, consumers)


def check_descriptor(store, descriptor: Descriptor) -> list[Finding]:
    """What no longer holds in a descriptor read back, compared with the store and the folder
    now: a missing skills root, names unknown to the store, skills enabled that would be
    disabled now (kept out by the gate, by the consumer's rule, not installed) or whose folder
    is missing, skills disabled that would be enabled now, and skills not listed at all."""
    from skill_studio.core.agents import matching

    root = descriptor.skills_root
    findings = [] if root.is_dir() else [Finding(None, None, f"the skills root {root} is not a folder")]
    manifest = None
    try:
        manifest = read_manifest(root) if root.is_dir() else None
    except InstallError as e:
        findings.append(Finding(None, None, f"{e} (the skills are compared as if none were installed by the studio)"))
    entries = matching.gate(store)
    installed = _installed(manifest, entries)
    tagged = _tagged(store, [c.rule for c in descriptor.consumers.values()])
    for name, consumer in descriptor.consumers.items():
        now = _verdicts(entries, installed, consumer.rule, tagged)
        listed = set(consumer.enabled) | {n for n, _why in consumer.disabled}
        for skill in sorted(listed - now.keys()):
            findings.append(Finding(name, skill, "unknown to the store"))
        for skill in consumer.enabled:
            if skill in now and now[skill] is not None:
                findings.append(Finding(name, skill, f"enabled, but now disabled: {now[skill]}"))
            elif skill in now and root.is_dir() and not (root / skill).is_dir():
                findings.append(Finding(name, skill, f"enabled, but {root / skill} is missing"))
        for skill, _why in consumer.disabled:
            if skill in now and now[skill] is None:
                findings.append(Finding(name, skill, "disabled, but would be enabled now"))
        for skill in sorted(now.keys() - listed):
            state = "enabled" if now[skill] is None else f"disabled: {now[skill]}"
            findings.append(Finding(name, skill, f"not listed (new since it was written; it would be {state})"))
    return findings


def parse_selector(selector: str) -> tuple[str, str]:
    """("tag", TAG) for ``tag:TAG``, else ("name", the skill name)."""
    if selector.startswith(TAG_PREFIX):
        return "tag", selector[len(TAG_PREFIX):]
    return "name", selector


def _check_names(rules: Sequence[ConsumerRule]) -> None:
    seen: set[str] = set()
    for rule in rules:
        if not rule.name.strip() or rule.name != rule.name.strip():
            raise DescriptorError(f'"{rule.name}" is not a consumer name: give a name without leading or '
                                  "trailing spaces (e.g. claude, ci)")
        if rule.name in seen:
            raise DescriptorError(f'the consumer "{rule.name}" is named twice: give each consumer once, '
                                  "with all its selectors")
        seen.add(rule.name)


def _tagged(store, rules: Sequence[ConsumerRule]) -> dict[str, set[str]]:
    """The skills having each tag the rules' selectors name, by tag."""
    from skill_studio.core.store import Filters

    wanted = {value for rule in rules for sel in (*rule.only, *rule.exclude)
              for kind, value in [parse_selector(sel)] if kind == "tag"}
    return {tag: set(store.names(Filters(tag=tag))) for tag in wanted}


def _selector_problem(selector: str, tagged: Mapping[str, set[str]], names: set[str]) -> str | None:
    kind, value = parse_selector(selector)
    if not value.strip():
        return f'"{selector}" selects nothing: give a skill name or tag:TAG'
    if kind == "tag" and not tagged.get(value):
        return f'no skill of the store has the tag "{value}" (in "{selector}"); check its spelling'
    if kind == "name" and value not in names:
        return f'no skill named "{value}" in the store; check its spelling, or write tag:{value} for a tag'
    return None


def _matches(selector: str, name: str, tagged: Mapping[str, set[str]]) -> bool:
    kind, value = parse_selector(selector)
    return name in tagged.get(value, ()) if kind == "tag" else value == name


def _installed(manifest: Mapping | None, entries: Sequence) -> set[str]:
    """What the folder holds: the skills its manifest records, else (a folder the studio has
    not installed into) the gated set."""
    return set(manifest["skills"]) if manifest and manifest["skills"] else {e.name for e in entries if e.passed}


def _verdicts(entries: Sequence, installed: set[str], rule: ConsumerRule,
              tagged: Mapping[str, set[str]]) -> dict[str, str | None]:
    """Each skill's verdict for one consumer: None when enabled, else why it is disabled (the
    gate first, then the consumer's rule, then whether the folder holds it)."""
    out: dict[str, str | None] = {}
    for e in entries:
        why = e.reason
        if why is None and rule.only and not any(_matches(s, e.name, tagged) for s in rule.only):
            why = f"not selected for {rule.name} (only {', '.join(rule.only)})"
        if why is None:
            hit = next((s for s in rule.exclude if _matches(s, e.name, tagged)), None)
            why = f"excluded for {rule.name} ({hit})" if hit else None
        if why is None and e.name not in installed:
            why = NOT_INSTALLED
        out[e.name] = why
    return out


def _consumer_json(rule: ConsumerRule, verdicts: Mapping[str, str | None]) -> dict:
    return {"only": list(rule.only), "exclude": list(rule.exclude),
            "enabled": sorted(n for n, why in verdicts.items() if why is None),
            "disabled": [{"name": n, "reason": why} for n, why in verdicts.items() if why is not None]}


def _relative_root(target: Path, bundle: Path) -> tuple[str, str]:
    """(the root relative to the bundle root, the bundle root) as written; DescriptorError when
    the root is not inside it (compared as written, then with links resolved)."""
    for root, base in ((Path(os.path.abspath(target)), Path(os.path.abspath(bundle))),
                       (target.resolve(), bundle.resolve())):
        if root.is_relative_to(base):
            return root.relative_to(base).as_posix() or ".", str(base)
    raise DescriptorError(f"the skills root {target} is not inside the bundle root {bundle}: give a bundle root "
                          "that holds it, or leave the bundle root out to write the root as an absolute path")


def _bundle(in_file: Any, given: str | os.PathLike | None, base: Path | None, shown: str) -> Path | None:
    if given is not None:
        return Path(os.path.abspath(given))
    if in_file is None:
        return None
    if not isinstance(in_file, str) or not in_file.strip():
        raise DescriptorError(f'{shown}: "bundle_root" must be a path or null')
    if Path(in_file).is_absolute():
        return Path(in_file)
    if base is None:
        raise DescriptorError(f'{shown}: the bundle root "{in_file}" is relative; '
                              "give the bundle root (--bundle-root DIR)")
    return Path(os.path.normpath(base / in_file))


def _read_consumer(name: Any, entry: Any, shown: str) -> ConsumerConfig:
    if not isinstance(entry, Mapping):
        raise DescriptorError(f"{shown}: must be an object with enabled and disabled skills")
    lists = {}
    for key in ("enabled", "only", "exclude"):
        value = entry.get(key, [] if key != "enabled" else None)
        if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            raise DescriptorError(f'{shown}: "{key}" must be a list of names')
        lists[key] = tuple(value)
    disabled = entry.get("disabled")
    if not isinstance(disabled, list) or not all(
            isinstance(d, Mapping) and isinstance(d.get("name"), str) and d["name"]
            and isinstance(d.get("reason"), str) for d in disabled):
        raise DescriptorError(f'{shown}: "disabled" must be a list of {{"name": ..., "reason": ...}}')
    pairs = tuple((d["name"], d["reason"]) for d in disabled)
    counts = Counter([*lists["enabled"], *(n for n, _why in pairs)])
    twice = sorted(n for n, k in counts.items() if k > 1)
    if twice:
        raise DescriptorError(f"{shown}: listed more than once: {', '.join(twice)}; list each skill once, "
                              "enabled or disabled")
    return ConsumerConfig(ConsumerRule(name, lists["only"], lists["exclude"]), lists["enabled"], pairs)


__all__ = ["ConsumerConfig", "ConsumerRule", "DEFAULT_CONSUMER", "Descriptor", "DescriptorError", "Finding",
           "NOT_INSTALLED", "VERSION", "build_descriptor", "check_descriptor", "parse_selector", "read_descriptor",
           "save_descriptor"]
