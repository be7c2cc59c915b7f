"""The designer on a big skill, offscreen: preview render time and keystroke-to-highlighted-text time.

Usage: python benchmarks/bench_preview.py [--lines 2000] [--blocks 50]

Targets: render under 100 ms; a keystroke under 16 ms. The SKILL.md is built here:
2,000 lines with 50 fenced code blocks in several languages, headings, lists and tables.
"""

from __future__ import annotations

import argparse
import functools
import os
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

LANGS = ["python", "bash", "json", "yaml", "javascript"]
SNIPPETS = {
    "python": ["def handle(path: str) -> int:", "    with open(path) as f:", "        return len(f.read())"],
    "bash": ["set -euo pipefail", 'for f in "$@"; do', '  wc -l -- "$f"', "done"],
    "json": ['{"name": "demo", "steps": [1, 2, 3],', ' "enabled": true}'],
    "yaml": ["name: demo", "steps:", "  - check", "  - run"],
    "javascript": ["export function run(input) {", "  return input.trim().split('\\n');", "}"],
}


def build_skill_md(lines: int, blocks: int) -> str:
    out = ["---", "name: big-skill", "description: A very long skill used to measure the designer. "
           "Use when measuring.", "license: MIT", "metadata:", '  tags: "bench, big"', "---", ""]
    per_section = max(1, (lines - len(out)) // blocks)
    for b in range(blocks):
        lang = LANGS[b % len(LANGS)]
        section = [f"## Section {b + 1}: handling case {b + 1}", "",
                   f"Some **bold** text, some *emphasis*, `inline code` and a [link](references/r{b}.md).", "",
                   "| Column | Value |", "| --- | --- |", f"| case | {b} |", "",
                   f"```{lang}", *SNIPPETS[lang], "```", ""]
        while len(section) < per_section - 1:
            n = len(section)
            section.append(f"{n % 9 + 1}. Step {n}: do the thing carefully, then check the result of step {n}."
                           if n % 3 else f"- A note about item {n} with `code` and _emphasis_.")
        out.extend(section + [""])  # a blank line before the next heading, as Markdown style asks
    while len(out) < lines:
        out.append(f"Closing line {len(out)}.")
    return "\n".join(out[:lines]) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lines", type=int, default=2000)
    ap.add_argument("--blocks", type=int, default=50)
    args = ap.parse_args()

    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication

    from skill_studio.core.render.html import render_markdown
    from skill_studio.ui import theme
    from skill_studio.ui.designer.editor import CodeEditor
    from skill_studio.ui.designer.preview import PreviewPane
    from skill_studio.ui.designer.session import body_of

    app = QApplication([])
    theme.apply_theme(app, theme.LIGHT)
    text = build_skill_md(args.lines, args.blocks)
    body, first_line = body_of(text)
    print(f"SKILL.md: {len(text.splitlines()):,} lines, {text.count('```') // 2} code blocks, {len(text):,} bytes")

    from skill_studio.core.render.code import code_block_html

    code_block_html.cache_clear()
    t0 = time.perf_counter()
    first = render_markdown(body)
    cold_ms = (time.perf_counter() - t0) * 1000
    assert first.html.startswith("<h2"), "the body did not render as Markdown"
    render_ms = []
    for i in range(7):  # while typing: one word differs each time, the code blocks are cached
        edited = body.replace("Section 1:", f"Section 1 (edit {i}):", 1)
        t0 = time.perf_counter()
        render_markdown(edited)
        render_ms.append((time.perf_counter() - t0) * 1000)
    pane = PreviewPane()
    pane.resize(700, 900)
    pane.show()
    pane_ms = []
    for i in range(5):  # the pane renders big bodies on its worker: wait for the result
        pane.set_markdown(body.replace("Section 2:", f"Section 2 (edit {i}):", 1), first_line)
        t0 = time.perf_counter()
        done = []
        pane.rendered.connect(functools.partial(done.append, 1))
        pane.render_now()
        while not done:
            app.processEvents()
        pane.rendered.disconnect()
        pane_ms.append((time.perf_counter() - t0) * 1000)

    editor = CodeEditor()
    editor.resize(900, 900)
    editor.show()
    t0 = time.perf_counter()
    editor.setPlainText(text)
    app.processEvents()
    load_ms = (time.perf_counter() - t0) * 1000
    key_ms = []
    for target in (40, 300, 900, 1500, 1990) * 4:  # in prose, tables and code blocks
        editor.go_to_line(target)
        for _ in range(3):
            app.processEvents()
        editor.viewport().repaint()
        t0 = time.perf_counter()
        QTest.keyClick(editor, Qt.Key_A)
        editor.viewport().repaint()
        key_ms.append((time.perf_counter() - t0) * 1000)
    enter_ms = []
    for target in (120, 700, 1300):  # Enter inside a code block re-highlights the rest of that block only
        editor.go_to_line(target)
        t0 = time.perf_counter()
        QTest.keyClick(editor, Qt.Key_Return)
        editor.viewport().repaint()
        enter_ms.append((time.perf_counter() - t0) * 1000)

    def fmt(ts):
        return f"median {statistics.median(ts):.1f} ms, worst {max(ts):.1f} ms"

    print(f"render_markdown, first time (no code block cached): {cold_ms:.1f} ms (target < 100 ms)")
    print(f"render_markdown while typing (code blocks cached): {fmt(render_ms)} (target < 100 ms)")
    print(f"preview pane, edit to new document shown (worker render + setHtml): {fmt(pane_ms)}")
    print(f"editor load with highlighting: {load_ms:.0f} ms (once, when the designer opens)")
    print(f"keystroke to highlighted, painted text: {fmt(key_ms)} (target < 16 ms)")
    print(f"Enter (new line): {fmt(enter_ms)}")


if __name__ == "__main__":
    main()
