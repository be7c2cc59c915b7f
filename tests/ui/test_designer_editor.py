"""The designer's code editor, SKILL.md highlighter and find/replace bar, driven as a user would."""

from __future__ import annotations

import pytest
from conftest import SCREENSHOTS
from PySide6.QtCore import QEvent, QMimeData, QPoint, QPointF, Qt
from PySide6.QtGui import QFont, QHelpEvent, QTextCharFormat, QTextCursor, QTextFormat, QWheelEvent
from PySide6.QtWidgets import QApplication, QToolTip, QVBoxLayout, QWidget

from skill_studio.ui import theme
from skill_studio.ui.designer import editor as editor_module
from skill_studio.ui.designer.editor import CodeEditor, LineNumberGutter, changed_span, utf16_len
from skill_studio.ui.designer.find_bar import FindReplaceBar
from skill_studio.ui.designer.highlighter import FENCE, FRONT, FileHighlighter, SkillHighlighter
from skill_studio.ui.theme import SEVERITY_MARKS

SKILL = """\
---
name: pdf-form-filler
description: "Fill in PDF forms from a table of values. Use when a user asks to fill a PDF form."
version: 1.4
license: MIT
allowed-tools:
  - Bash(python:*)
  - Read
metadata:
  maintainer: docs-team   # who answers questions
  notes: |
    Keep the field map in references/fields.md.
---
# PDF form filler

Fill **every** field of a form with *values* from a CSV table. Read `references/fields.md`
first, and see [the pypdf docs](https://pypdf.readthedocs.io) for details.

## Steps

1. List the form fields:

```bash
python scripts/list_fields.py form.pdf > fields.json  # one line per field
```

2. Fill them in:

```python
from pypdf import PdfReader, PdfWriter

def fill(path: str, values: dict[str, str]) -> None:
    reader = PdfReader(path)
    writer = PdfWriter(clone_from=reader)
    for page in writer.pages:
        writer.update_page_form_field_values(page, values)
    writer.write("filled.pdf")  # never overwrite the input
```

> Check the filled form before you send it.

- Never guess a value that is missing from the table.
- Ask when two fields share a name.
<!-- reviewed by the docs team -->
"""


@pytest.fixture
def editor(qtbot):
    widget = CodeEditor()
    qtbot.addWidget(widget)
    widget.resize(700, 400)
    widget.setPlainText(SKILL)
    return widget


@pytest.fixture
def shown(qtbot, editor):
    editor.show()
    qtbot.waitExposed(editor)
    return editor


@pytest.fixture
def bar(qtbot, editor):
    host = QWidget()
    qtbot.addWidget(host)
    layout = QVBoxLayout(host)
    layout.addWidget(editor)
    find_bar = FindReplaceBar(editor, host)
    layout.addWidget(find_bar)
    find_bar.hide()
    host.resize(800, 500)
    host.show()
    qtbot.waitExposed(host)
    yield find_bar  # the host (and with it the editor) lives as long as the test


def line_of(editor: CodeEditor, prefix: str) -> int:
    """The 1-based number of the first line starting with prefix."""
    for number, text in enumerate(editor.toPlainText().split("\n"), 1):
        if text.startswith(prefix):
            return number
    raise AssertionError(f"no line starts with {prefix!r}")


def format_at(editor: CodeEditor, line: int, column: int) -> QTextCharFormat:
    """The highlighter's format at a 1-based line and 0-based column (an empty format when none)."""
    block = editor.document().findBlockByNumber(line - 1)
    for rng in block.layout().formats():
        if rng.start <= column < rng.start + rng.length:
            return QTextCharFormat(rng.format)
    return QTextCharFormat()


def ranges(block) -> list[tuple[int, int, QTextCharFormat]]:
    return [(r.start, r.length, QTextCharFormat(r.format)) for r in block.layout().formats()]


def colour(fmt: QTextCharFormat) -> str:
    return fmt.foreground().color().name() if fmt.hasProperty(QTextFormat.ForegroundBrush) else "default"


def state_kind(editor: CodeEditor, line: int) -> int:
    return editor.document().findBlockByNumber(line - 1).userState() & 3


def put_cursor(editor: CodeEditor, line: int, column: int = 0) -> None:
    block = editor.document().findBlockByNumber(line - 1)
    cursor = editor.textCursor()
    cursor.setPosition(block.position() + column)
    editor.setTextCursor(cursor)


# -- gutter, current line, fonts ---------------------------------------------------------------

def test_gutter_grows_with_the_line_count(shown):
    shown.setPlainText("one line")
    narrow = shown.gutter_width()
    assert shown.viewportMargins().left() == narrow
    shown.setPlainText("\n".join(f"line {n}" for n in range(1200)))
    assert shown.gutter_width() > narrow
    assert shown.viewportMargins().left() == shown.gutter_width()


def test_current_line_is_highlighted_and_follows_the_cursor(editor):
    def current_line_selection():
        full = [s for s in editor.extraSelections() if s.format.boolProperty(QTextFormat.FullWidthSelection)]
        assert len(full) == 1
        return full[0]

    put_cursor(editor, 3, 4)
    assert current_line_selection().cursor.blockNumber() == 2
    put_cursor(editor, 20)
    assert current_line_selection().cursor.blockNumber() == 19
    assert current_line_selection().format.background().color().name() == theme.current_tokens().surface_alt


def test_editor_uses_a_monospace_font_and_tab_inserts_two_spaces(qtbot, editor):
    assert editor.fontInfo().fixedPitch()
    editor.setPlainText("key:")
    put_cursor(editor, 1, 4)
    qtbot.keyClick(editor, Qt.Key_Tab)
    assert editor.toPlainText() == "key:  "
    editor.setPlainText("a\nb")
    editor.selectAll()
    qtbot.keyClick(editor, Qt.Key_Tab)
    assert editor.toPlainText() == "  a\n  b"
    qtbot.keyClick(editor, Qt.Key_Backtab, Qt.ShiftModifier)
    assert editor.toPlainText() == "a\nb"


def test_paste_takes_plain_text_only(editor):
    editor.setPlainText("")
    data = QMimeData()
    data.setHtml("<b>bold</b> <i>words</i>")
    data.setText("bold words")
    editor.insertFromMimeData(data)
    assert editor.toPlainText() == "bold words"
    editor.selectAll()
    assert not editor.createMimeDataFromSelection().hasHtml()


# -- highlighting -------------------------------------------------------------------------------

def test_frontmatter_heading_and_code_get_distinct_formats(editor):
    key = format_at(editor, 2, 0)                                      # "name" in the frontmatter
    heading = format_at(editor, line_of(editor, "# PDF"), 2)
    keyword = format_at(editor, line_of(editor, "def fill"), 0)        # "def" in the python block
    string = format_at(editor, 3, 15)                                  # the quoted description
    bash_line = line_of(editor, "python scripts")
    bash_comment = format_at(editor, bash_line, editor.document().findBlockByNumber(bash_line - 1).text().index("#"))
    assert key.fontWeight() == QFont.Bold and heading.fontWeight() == QFont.Bold
    colours = {colour(key), colour(heading), colour(keyword), colour(string)}
    assert len(colours) == 4 and "default" not in colours
    assert bash_comment.fontItalic() and colour(bash_comment) not in colours  # the bash lexer ran too
    assert colour(format_at(editor, 1, 0)) != colour(key)              # the --- delimiter
    nested = line_of(editor, "  maintainer")
    assert colour(format_at(editor, nested, 2)) == colour(key)         # nested keys too
    assert format_at(editor, nested, editor.document().findBlockByNumber(nested - 1).text().index("#")).fontItalic()
    assert colour(format_at(editor, line_of(editor, "    Keep the field"), 6)) == colour(string)  # block scalar


def test_incremental_highlighting_matches_a_fresh_pass(qtbot, editor):
    edits = [(line_of(editor, "## Steps"), "```\n"), (3, "\n```\n"), (1, "x"), (line_of(editor, "```python"), "`"),
             (line_of(editor, "> Check"), "~~~~\n")]
    for line, typed in edits:
        put_cursor(editor, line)
        editor.textCursor().insertText(typed)
        fresh = CodeEditor()
        qtbot.addWidget(fresh)
        fresh.setPlainText(editor.toPlainText())
        for number in range(editor.blockCount()):
            mine = editor.document().findBlockByNumber(number)
            theirs = fresh.document().findBlockByNumber(number)
            assert mine.userState() == theirs.userState(), (typed, number, mine.text())
            assert ranges(mine) == ranges(theirs), (typed, number, mine.text())


def test_typing_rehighlights_only_the_changed_block(qtbot, monkeypatch):
    highlighted: list[int] = []

    class CountingHighlighter(SkillHighlighter):
        def highlightBlock(self, text):
            highlighted.append(self.currentBlock().blockNumber())
            super().highlightBlock(text)

    monkeypatch.setattr(editor_module, "SkillHighlighter", CountingHighlighter)
    widget = CodeEditor()
    qtbot.addWidget(widget)
    widget.setPlainText(SKILL + "\n".join(f"Paragraph {n} with *words*." for n in range(300)))
    assert len(highlighted) >= widget.blockCount()
    line = line_of(widget, "Paragraph 150")
    put_cursor(widget, line, 5)
    highlighted.clear()
    qtbot.keyClicks(widget, "abc")
    assert highlighted and set(highlighted) == {line - 1}
    inside = line_of(widget, "    reader = ")
    put_cursor(widget, inside, 4)
    highlighted.clear()
    qtbot.keyClicks(widget, "x")
    assert set(highlighted) == {inside - 1}


def test_fences_and_frontmatter_carry_state(editor):
    editor.setPlainText("---\nname: x\n```\nnote: y\n---\n# Heading\n```\nunclosed = 1\n# not a heading\n")
    assert state_kind(editor, 2) == FRONT and state_kind(editor, 3) == FRONT  # ``` in frontmatter: no fence
    assert state_kind(editor, 5) != FRONT
    assert format_at(editor, 6, 2).fontWeight() == QFont.Bold               # the body starts after ---
    assert state_kind(editor, 8) == FENCE and state_kind(editor, 10) == FENCE  # unclosed: runs to the end
    assert format_at(editor, 9, 2).fontWeight() != QFont.Bold

    editor.setPlainText("````python\nx = 1\n```\n~~~\nstill = 2\n````\n# Heading")
    assert state_kind(editor, 3) == FENCE and state_kind(editor, 5) == FENCE  # shorter or other char: no close
    assert state_kind(editor, 6) != FENCE
    assert format_at(editor, 7, 2).fontWeight() == QFont.Bold

    editor.setPlainText("# Title\n\n```\nplain text\n")
    assert state_kind(editor, 4) == FENCE
    editor.setPlainText("Not frontmatter\n---\nname: x\n---\n")
    assert state_kind(editor, 3) != FRONT


def test_opening_and_closing_a_fence_by_typing_updates_later_lines(qtbot, editor):
    editor.setPlainText("intro\n\ndef f():\n    return 1\n\n# After")
    after = format_at(editor, 6, 2)
    put_cursor(editor, 2)
    qtbot.keyClicks(editor, "```python")
    assert state_kind(editor, 4) == FENCE and state_kind(editor, 6) == FENCE
    assert colour(format_at(editor, 3, 0)) != "default"                     # "def" is now a keyword
    cursor = editor.textCursor()
    cursor.select(QTextCursor.LineUnderCursor)
    cursor.removeSelectedText()
    assert state_kind(editor, 6) != FENCE
    assert colour(format_at(editor, 6, 2)) == colour(after)


def test_file_name_chooses_the_highlighter(qtbot, editor):
    assert isinstance(editor.highlighter, SkillHighlighter)
    editor.set_file_name("scripts/fill.py")
    assert isinstance(editor.highlighter, FileHighlighter) and editor.highlighter.lexer is not None
    editor.setPlainText("import os\ndef f():\n    return 'x'\n")
    qtbot.waitUntil(lambda: colour(format_at(editor, 2, 0)) != "default")  # a new highlighter starts on the next turn
    editor.set_file_name("data.unknown-extension")
    assert editor.highlighter.lexer is None
    editor.setPlainText("import os\n")
    assert editor.document().firstBlock().layout().formats() == []
    editor.set_file_name("SKILL.md")
    assert isinstance(editor.highlighter, SkillHighlighter)


# -- diagnostics --------------------------------------------------------------------------------

def test_diagnostics_underline_lines_and_explain_themselves(qtbot, shown):
    shown.set_diagnostics([(2, "error", "Name must be kebab-case"), (2, "warning", "Name is long"),
                           (4, "info", "Version looks fine"), (999, "error", "beyond the end")])
    underlined = [s for s in shown.extraSelections()
                  if s.format.underlineStyle() == QTextCharFormat.WaveUnderline]
    assert sorted(s.cursor.blockNumber() for s in underlined) == [1, 1, 3]
    marks = SEVERITY_MARKS[False]   # the same marks as the problems list's icons
    assert {s.format.underlineColor().name() for s in underlined} >= {marks["error"], marks["info"]}
    assert shown.diagnostic_tooltip(2) == "Error: Name must be kebab-case\nWarning: Name is long"
    assert shown.diagnostic_tooltip(999) == "" and shown.diagnostic_tooltip(3) == ""

    rect = shown.cursorRect(QTextCursor(shown.document().findBlockByNumber(1)))
    pos = rect.center()
    QApplication.sendEvent(shown.viewport(),
                           QHelpEvent(QEvent.ToolTip, pos, shown.viewport().mapToGlobal(pos)))
    qtbot.waitUntil(lambda: QToolTip.isVisible())
    assert QToolTip.text() == shown.diagnostic_tooltip(2)
    QToolTip.hideText()
    gutter = shown.findChild(LineNumberGutter)                                # the dot explains itself too
    dot = QPoint(5, shown.cursorRect(QTextCursor(shown.document().findBlockByNumber(3))).center().y())
    QApplication.sendEvent(gutter, QHelpEvent(QEvent.ToolTip, dot, gutter.mapToGlobal(dot)))
    qtbot.waitUntil(lambda: QToolTip.text() == "Info: Version looks fine")
    QToolTip.hideText()

    put_cursor(shown, 1)
    qtbot.keyClick(shown, Qt.Key_Return)                                      # marks move with the text
    assert shown.diagnostics_at(3) and not shown.diagnostics_at(2)
    shown.set_diagnostics([])
    assert not [s for s in shown.extraSelections() if s.format.underlineStyle() == QTextCharFormat.WaveUnderline]


# -- navigation, wrap, zoom, scroll sync --------------------------------------------------------

def test_go_to_line_moves_the_cursor_and_shows_the_line(qtbot, shown):
    shown.setPlainText("\n".join(f"line {n}" for n in range(1, 301)))
    shown.activateWindow()
    shown.go_to_line(150)
    cursor = shown.textCursor()
    assert cursor.blockNumber() == 149 and cursor.positionInBlock() == 0
    assert shown.first_visible_line() < 150 < shown.first_visible_line() + 40
    qtbot.waitUntil(shown.hasFocus)
    shown.go_to_line(10_000)
    assert shown.textCursor().blockNumber() == 299


def test_word_wrap_toggles_with_its_action(editor):
    assert not editor.word_wrap()
    editor.wrap_action.trigger()
    assert editor.word_wrap() and editor.lineWrapMode() == CodeEditor.WidgetWidth
    editor.set_word_wrap(False)
    assert not editor.word_wrap() and not editor.wrap_action.isChecked()


def test_zoom_in_out_reset_and_clamp(editor):
    size = editor.font().pointSizeF()
    editor.zoom_in_action.trigger()
    editor.zoom_in()
    assert editor.zoom_level() == 2 and editor.font().pointSizeF() == size + 2
    editor.zoom_out_action.trigger()
    assert editor.zoom_level() == 1
    editor.zoom_reset_action.trigger()
    assert editor.zoom_level() == 0 and editor.font().pointSizeF() == size
    for _ in range(100):
        editor.zoom_in()
    assert editor.zoom_level() == editor_module.ZOOM_RANGE[1]
    for _ in range(100):
        editor.zoom_out()
    assert editor.zoom_level() >= editor_module.ZOOM_RANGE[0] and editor.font().pointSizeF() >= 4
    editor.reset_zoom()
    wheel = QWheelEvent(QPointF(20, 20), QPointF(20, 20), QPoint(), QPoint(0, 120), Qt.NoButton,
                        Qt.ControlModifier, Qt.NoScrollPhase, False)
    QApplication.sendEvent(editor.viewport(), wheel)
    assert editor.zoom_level() == 1
    assert [k.toString() for k in editor.zoom_in_action.shortcuts()] == ["Ctrl++", "Ctrl+="]
    assert editor.find_action.shortcutContext() == Qt.WidgetWithChildrenShortcut


def test_shortcuts_reach_the_editor_actions(qtbot, bar, editor):
    editor.window().activateWindow()
    editor.setFocus()
    qtbot.waitUntil(editor.hasFocus)
    qtbot.keyClick(editor, Qt.Key_Equal, Qt.ControlModifier)
    qtbot.keyClick(editor, Qt.Key_Z, Qt.AltModifier)
    assert editor.zoom_level() == 1 and editor.word_wrap()
    qtbot.keyClick(editor, Qt.Key_0, Qt.ControlModifier)
    assert editor.zoom_level() == 0
    qtbot.keyClick(editor, Qt.Key_F, Qt.ControlModifier)
    assert bar.isVisible() and not bar.is_replace_mode() and bar.find_field.hasFocus()
    qtbot.keyClick(bar.find_field, Qt.Key_H, Qt.ControlModifier)
    assert bar.is_replace_mode()
    editor.setFocus()
    qtbot.keyClick(editor, Qt.Key_Escape)                                     # Esc in the editor closes the bar
    assert not bar.isVisible()


def test_scrolling_reports_the_first_visible_line(qtbot, shown):
    shown.setPlainText("\n".join(f"line {n}" for n in range(1, 401)))
    assert shown.first_visible_line() == 1
    with qtbot.waitSignal(shown.firstVisibleLineChanged, timeout=1000) as blocker:
        shown.scroll_to_line(120)
    assert blocker.args == [120] and shown.first_visible_line() == 120
    assert shown.textCursor().blockNumber() == 0                              # the cursor stayed
    with qtbot.waitSignal(shown.firstVisibleLineChanged, timeout=1000) as blocker:
        shown.verticalScrollBar().setValue(30)
    assert blocker.args == [31]


def test_set_text_keeping_place_is_one_undo_step(editor):
    before = editor.toPlainText()
    assert not editor.document().isUndoAvailable()
    put_cursor(editor, 4, 10)                                                 # on "version: 1.4", being rewritten
    rewritten = before.replace("version: 1.4", "version: 1.5")
    editor.set_text_keeping_place(rewritten)
    assert editor.toPlainText() == rewritten
    assert (editor.textCursor().blockNumber(), editor.textCursor().positionInBlock()) == (3, 10)
    steps = editor.document().availableUndoSteps()
    editor.set_text_keeping_place(rewritten)                                  # equal text: nothing to undo
    assert editor.document().availableUndoSteps() == steps

    put_cursor(editor, 16, 3)                                                 # below two changed lines
    grown = rewritten.replace("version: 1.5", "version: 1.5\nauthor: docs").replace("MIT", "Apache-2.0")
    editor.set_text_keeping_place(grown)
    assert editor.toPlainText() == grown
    cursor = editor.textCursor()                                              # still on the same text
    assert cursor.block().text().startswith("Fill **every**") and cursor.positionInBlock() == 3
    editor.undo()                                                             # one step per rewrite
    assert editor.toPlainText() == rewritten
    editor.undo()
    assert editor.toPlainText() == before and not editor.document().isUndoAvailable()


def test_set_text_keeping_place_keeps_the_scroll_position(shown):
    shown.setPlainText("\n".join(f"field{n}: {n}" for n in range(300)))
    shown.scroll_to_line(100)
    put_cursor(shown, 110, 4)
    shown.set_text_keeping_place(shown.toPlainText().replace("field105: 105", "field105: changed"))
    assert shown.first_visible_line() == 100 and shown.textCursor().blockNumber() == 109


def test_changed_span_and_utf16_positions():
    assert changed_span("abcdef", "abXYef") == (2, 4, 4)
    assert changed_span("same", "same") == (4, 4, 4)
    assert changed_span("aaa", "aaaa") == (3, 3, 4)
    assert utf16_len("a🚀b") == 4


# -- theme ----------------------------------------------------------------------------------------

def test_theme_change_recolours_the_editor(qtbot, editor):
    app = QApplication.instance()
    light_key = colour(format_at(editor, 2, 0))
    try:
        theme.apply_theme(app, theme.DARK)
        qtbot.waitUntil(lambda: editor.highlighter.is_dark())
        assert colour(format_at(editor, 2, 0)) != light_key
        line = [s for s in editor.extraSelections() if s.format.boolProperty(QTextFormat.FullWidthSelection)]
        assert line[0].format.background().color().name() == theme.DARK.surface_alt
    finally:
        theme.apply_theme(app, theme.LIGHT)
    qtbot.waitUntil(lambda: not editor.highlighter.is_dark())
    assert colour(format_at(editor, 2, 0)) == light_key


# -- find and replace -----------------------------------------------------------------------------

def test_find_next_and_previous_wrap_around_with_a_count(qtbot, bar, editor):
    put_cursor(editor, 1)
    editor.find_action.trigger()
    assert bar.isVisible() and not bar.is_replace_mode()
    qtbot.keyClicks(bar.find_field, "writer")
    assert bar.match_count() == 6                                             # 4 x writer, 2 x PdfWriter
    assert bar.count_label.text() == "1 of 6" and editor.textCursor().selectedText() == "Writer"
    assert len(editor.extraSelections()) == 7                                 # current line + 6 marks
    for expected in ("2 of 6", "3 of 6", "4 of 6", "5 of 6", "6 of 6", "1 of 6"):
        qtbot.keyClick(bar.find_field, Qt.Key_Return)
        assert bar.count_label.text() == expected
    qtbot.keyClick(bar.find_field, Qt.Key_Return, Qt.ShiftModifier)
    assert bar.count_label.text() == "6 of 6"
    assert bar.find_previous() and bar.count_label.text() == "5 of 6"
    bar.case_toggle.setChecked(True)
    bar.find_field.setText("Writer")
    assert bar.match_count() == 2
    bar.find_field.setText("pdf")
    assert bar.match_count() == 6
    bar.word_toggle.setChecked(True)
    assert bar.match_count() == 3                                             # "pdf" alone, not in "pypdf"
    bar.find_field.setText("zzz-nothing")
    assert bar.count_label.text() == "No results" and not bar.find_next()


def test_bad_regex_is_shown_not_raised(qtbot, bar):
    bar.open_find()
    bar.regex_toggle.setChecked(True)
    qtbot.keyClicks(bar.find_field, "fill(")
    assert bar.error().startswith("Invalid regular expression")
    assert "border" in bar.find_field.styleSheet() and bar.error() in bar.find_field.toolTip()
    assert bar.count_label.text() == "Error"
    qtbot.keyClicks(bar.find_field, ")")
    assert bar.error() == "" and bar.find_field.styleSheet() == "" and bar.match_count() > 0


def test_escape_closes_the_bar_and_returns_focus(qtbot, bar, editor):
    editor.window().activateWindow()
    bar.open_find()
    qtbot.keyClicks(bar.find_field, "form")
    assert editor.extraSelections()
    qtbot.keyClick(bar.find_field, Qt.Key_Escape)
    assert not bar.isVisible()
    assert all(s.format.boolProperty(QTextFormat.FullWidthSelection) for s in editor.extraSelections())
    qtbot.waitUntil(editor.hasFocus)


def test_replace_one_and_replace_all(qtbot, bar, editor):
    cursor = editor.textCursor()
    cursor.setPosition(editor.toPlainText().index("writer"))
    cursor.movePosition(QTextCursor.Right, QTextCursor.KeepAnchor, len("writer"))
    editor.setTextCursor(cursor)
    editor.replace_action.trigger()
    assert bar.is_replace_mode() and bar.find_field.text() == "writer"
    assert len(editor.extraSelections()) == 7                                 # the 6 matches are marked
    bar.case_toggle.setChecked(True)
    bar.replace_field.setText("out")
    qtbot.keyClick(bar.replace_field, Qt.Key_Return)                          # Enter in the field: replace
    assert editor.toPlainText().count("writer") == 3 and bar.count_label.text() == "1 of 3"
    before = editor.toPlainText()
    assert bar.replace_all() == 3
    assert "writer" not in editor.toPlainText() and editor.toPlainText().count("out.") == 3
    assert "PdfWriter" in editor.toPlainText()
    editor.undo()                                                             # one step undoes them all
    assert editor.toPlainText() == before

    bar.regex_toggle.setChecked(True)
    bar.find_field.setText(r"version: (\d+)\.(\d+)")
    bar.replace_field.setText(r"version: \2.\1")
    assert bar.replace_all() == 1 and "version: 4.1" in editor.toPlainText()
    bar.find_field.setText(r"(\w+)")
    bar.replace_field.setText(r"\9")
    assert bar.replace_all() == 0 and bar.error().startswith("Invalid replacement")


# -- screenshots ------------------------------------------------------------------------------------

def _screenshot(qtbot, name: str) -> None:
    host = QWidget()
    qtbot.addWidget(host)
    layout = QVBoxLayout(host)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.setSpacing(0)
    ed = CodeEditor(host)
    layout.addWidget(ed)
    find_bar = FindReplaceBar(ed, host)
    layout.addWidget(find_bar)
    ed.setPlainText(SKILL)
    ed.set_diagnostics([(2, "error", "Name must match the folder name"),
                        (5, "warning", "License file is missing"), (19, "info", "Section has one step")])
    host.resize(900, 600)
    host.show()
    qtbot.waitExposed(host)
    put_cursor(ed, 1)
    find_bar.open_replace()
    find_bar.find_field.setText("pdf")
    find_bar.replace_field.setText("PDF")
    ed.scroll_to_line(1)
    # The bar shows with its marks, and the editor has its theme's colours.
    qtbot.waitUntil(lambda: find_bar.isVisible() and find_bar.match_count() > 0 and not find_bar._refresh.isActive()
                    and not ed._recolour_pending, timeout=5000)
    QApplication.processEvents()   # pending layouts and repaints, before the picture
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    assert host.grab().save(str(SCREENSHOTS / name))


def test_screenshots(qtbot):
    app = QApplication.instance()
    _screenshot(qtbot, "designer-editor-light.png")
    try:
        theme.apply_theme(app, theme.DARK)
        _screenshot(qtbot, "designer-editor-dark.png")
    finally:
        theme.apply_theme(app, theme.LIGHT)
    assert (SCREENSHOTS / "designer-editor-dark.png").stat().st_size > 10_000
