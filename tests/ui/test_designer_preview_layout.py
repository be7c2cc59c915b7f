"""How the preview lays out what the renderer made: words stay whole (in tables too, however
narrow the pane) and fenced code inside list steps shows as code blocks."""

import pytest
from conftest import SAMPLES, SCREENSHOTS
from preview_wait import rendering, shown_pane
from PySide6.QtGui import QTextTable
from PySide6.QtWidgets import QApplication

from skill_studio.core.format.skillmd import split
from skill_studio.ui import theme
from skill_studio.ui.designer.preview import PreviewPane

SAMPLE_NAMES = sorted(p.parent.name for p in SAMPLES.glob("*/SKILL.md"))


def sample_body(name: str) -> str:
    return split((SAMPLES / name / "SKILL.md").read_text(encoding="utf-8")).body


def show(pane: PreviewPane, body: str) -> None:
    pane.set_markdown(body)
    with rendering(pane):
        pane.render_now()


def blocks(pane: PreviewPane):
    """Every block of the document (table cells included), laid out."""
    doc = pane.document()
    layout = doc.documentLayout()
    block = doc.begin()
    while block.isValid():
        layout.blockBoundingRect(block)   # lays the block out
        yield block
        block = block.next()


def words_split_across_lines(pane: PreviewPane) -> list[str]:
    """Each place where a laid-out line ends between two letters or digits of one word."""
    found = []
    for block in blocks(pane):
        text, lines = block.text(), block.layout()
        for i in range(lines.lineCount() - 1):
            end = lines.lineAt(i).textStart() + lines.lineAt(i).textLength()
            if 0 < end < len(text) and text[end - 1].isalnum() and text[end].isalnum():
                start = text.rfind(" ", 0, end) + 1
                stop = text.find(" ", end)
                found.append(f"{text[start:end]}|{text[end:stop if stop >= 0 else None]}")
    return found


def tables(pane: PreviewPane) -> list[QTextTable]:
    return [f for f in pane.document().rootFrame().childFrames() if isinstance(f, QTextTable)]


@pytest.mark.parametrize("width", [260, 700])
@pytest.mark.parametrize("name", SAMPLE_NAMES)
def test_no_word_of_a_sample_is_split_across_lines(qtbot, name, width):
    pane = shown_pane(qtbot, {}, size=(width, 500))
    show(pane, sample_body(name))
    assert tables(pane), "every sample has a table"
    assert words_split_across_lines(pane) == []


def test_a_table_too_wide_for_the_pane_keeps_its_words_and_scrolls_sideways(qtbot):
    pane = shown_pane(qtbot, {}, size=(240, 400))
    header = "| channel | summary | highlights | thanks | audience | length |\n|---|---|---|---|---|---|\n"
    row = "| newsletter | upgrade steps, full changelog link | screenshots | contributors | everyone | short |\n"
    show(pane, "# Channels\n\n" + header + row * 4)
    assert len(tables(pane)) == 1
    assert words_split_across_lines(pane) == []
    assert pane.horizontalScrollBar().maximum() > 0   # the rest of the table is a scroll away
    cell_lines = {b.text(): b.layout().lineCount() for b in blocks(pane)}
    assert cell_lines["upgrade steps, full changelog link"] > 1   # cells still wrap between words


def test_ordinary_paragraphs_still_wrap_to_the_pane(qtbot):
    pane = shown_pane(qtbot, {}, size=(300, 400))
    show(pane, "A sentence of ordinary words that is much longer than the narrow pane is wide. " * 3)
    assert pane.horizontalScrollBar().maximum() == 0
    assert max(b.layout().lineCount() for b in blocks(pane)) > 3
    assert words_split_across_lines(pane) == []


def test_a_fence_in_a_numbered_step_is_a_code_block_in_the_step(qtbot):
    pane = shown_pane(qtbot, {}, size=(600, 500))
    show(pane, "1. Run:\n   ```bash\n   echo one\n   ls -la\n   ```\n   Then check.\n2. Next:\n\n"
               "    ~~~\n    make test\n    ~~~\n")
    code = [b for b in blocks(pane) if b.blockFormat().nonBreakableLines()]
    assert [b.text() for b in code] == ["echo one", "ls -la", "make test"]
    assert all(b.blockFormat().indent() >= 1 for b in code)   # indented with its list item
    assert "```" not in pane.toPlainText() and "~~~" not in pane.toPlainText()


@pytest.mark.parametrize("dark", [False, True], ids=["light", "dark"])
def test_screenshot_of_a_sample_with_steps_code_and_a_table(qtbot, dark):
    app = QApplication.instance()
    if dark:
        theme.apply_theme(app, theme.DARK)
    try:
        pane = shown_pane(qtbot, {}, size=(520, 1100))
        pane.set_dark(dark)
        show(pane, sample_body("csv-cleanup"))
        assert tables(pane) and words_split_across_lines(pane) == []
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        assert pane.grab().save(str(SCREENSHOTS / f"designer-preview-steps-{'dark' if dark else 'light'}.png"))
    finally:
        if dark:
            theme.apply_theme(app, theme.LIGHT)


def test_an_overlong_word_wraps_at_the_break_points_the_renderer_gave_it(qtbot):
    pane = shown_pane(qtbot, {}, size=(400, 400))
    show(pane, "Before " + "w" * 1000 + " after.\n")
    block = next(b for b in blocks(pane) if "w" * 50 in b.text())
    assert block.layout().lineCount() >= 10   # a line per hundred characters: no longer than that
