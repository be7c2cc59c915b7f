"""Waiting for the designer's preview, which renders on a worker thread."""

from contextlib import contextmanager

from PySide6.QtCore import QEventLoop, QTimer


def shown_pane(qtbot, files, size=(700, 500)):
    """A preview pane holding the skill *files*, shown at *size*."""
    from skill_studio.ui.designer.preview import PreviewPane

    widget = PreviewPane()
    qtbot.addWidget(widget)
    widget.resize(*size)
    widget.set_skill_files(files)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


@contextmanager
def rendering(pane, timeout_ms=10000):
    """Run the block, then wait until *pane* has shown a render (at once when it already has).
    The wait runs an event loop that lets the worker thread run; it fails after *timeout_ms*."""
    shown = []
    loop = QEventLoop()

    def done():
        shown.append(True)
        loop.quit()

    pane.rendered.connect(done)
    try:
        yield
        if not shown:
            QTimer.singleShot(timeout_ms, loop.quit)
            loop.exec()
    finally:
        pane.rendered.disconnect(done)
    assert shown, "the preview did not render"
