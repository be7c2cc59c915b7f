"""The welcome page a new user meets at the first start (and from Help › Getting started): what
Skill Studio is for, three ways to begin, and what the words on the cards mean."""

from __future__ import annotations

import importlib.resources

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QImage, QKeySequence, QPixmap
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QSizePolicy, QVBoxLayout, QWidget

from skill_studio.ui.shell.feature import ActionSpec, Feature, PageSpec, at
from skill_studio.ui.shell.help import HELP_GROUP, READABLE_WIDTH, GlossaryView, Section, glossary

INTRO = ("Skill Studio keeps the skills your agents use (folders whose SKILL.md holds instructions) in one "
         "library on this computer. Here you write and edit skills, review the ones agents extract before "
         "agents may use them, and see which skills still work well.")
BEGIN = "To begin, bring in the skills you have, write a new one, or look around the library."
AGAIN = "Close this tab when you are done: Help › Getting started opens it again."


def _app_pixmap(size: int, ratio: float) -> QPixmap:
    """The app's icon from its SVG in the resources (empty if it cannot be read)."""
    path = importlib.resources.files("skill_studio.resources") / "icons" / "app" / "skill-studio.svg"
    try:
        image = QImage.fromData(path.read_bytes(), "SVG")
    except OSError:
        return QPixmap()
    if image.isNull():
        return QPixmap()
    pixels = round(size * ratio)
    pixmap = QPixmap.fromImage(image.scaled(pixels, pixels, Qt.KeepAspectRatio, Qt.SmoothTransformation))
    pixmap.setDevicePixelRatio(ratio)
    return pixmap


class WelcomePage(QWidget):
    """What the studio is for, buttons to begin, and the glossary below them."""

    importChosen = Signal()
    newSkillChosen = Signal()
    libraryChosen = Signal()

    def __init__(self, sections: list[Section], *, has_samples: bool, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("welcome")
        column = QWidget(self)
        column.setMaximumWidth(READABLE_WIDTH)
        outer = QHBoxLayout(self)
        outer.setContentsMargins(16, 12, 16, 8)
        outer.addStretch(0)
        outer.addWidget(column, 1)
        outer.addStretch(0)

        icon = QLabel(column)
        icon.setPixmap(_app_pixmap(40, self.devicePixelRatioF()))
        title = QLabel("Welcome to Skill Studio", column)
        title.setObjectName("welcome_title")
        font = title.font()
        font.setPointSizeF(font.pointSizeF() * 1.5)
        font.setBold(True)
        title.setFont(font)
        heading = QHBoxLayout()
        heading.addWidget(icon)
        heading.addWidget(title, 1)

        self.intro = self._words(INTRO, column)
        self.begin = self._words(BEGIN, column)
        self.import_button = QPushButton("Import skills…", column)
        self.import_button.setToolTip("Bring in skill folders or .skill and .zip files")
        self.new_button = QPushButton("New skill…", column)
        self.new_button.setToolTip("Write a skill of your own, starting from a template")
        self.library_button = QPushButton("Look at the sample skills" if has_samples else "Look at the library",
                                          column)
        self.library_button.setToolTip("The library: every skill as a card; select one to see its details")
        self.import_button.setDefault(True)
        buttons = QHBoxLayout()
        for button in (self.import_button, self.new_button, self.library_button):
            button.setSizePolicy(QSizePolicy.Maximum, QSizePolicy.Fixed)
            buttons.addWidget(button)
        buttons.addStretch(1)
        self.again = self._words(AGAIN, column)
        self.again.setProperty("role", "muted")

        words = QLabel("What the words mean", column)
        font = words.font()
        font.setBold(True)
        font.setPointSizeF(font.pointSizeF() * 1.15)
        words.setFont(font)
        self.glossary = GlossaryView(sections, column)

        layout = QVBoxLayout(column)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(8)
        layout.addLayout(heading)
        layout.addWidget(self.intro)
        layout.addWidget(self.begin)
        layout.addLayout(buttons)
        layout.addWidget(self.again)
        layout.addSpacing(6)
        layout.addWidget(words)
        layout.addWidget(self.glossary, 1)

        self.import_button.clicked.connect(self.importChosen)
        self.new_button.clicked.connect(self.newSkillChosen)
        self.library_button.clicked.connect(self.libraryChosen)

    @staticmethod
    def _words(text: str, parent: QWidget) -> QLabel:
        label = QLabel(text, parent)
        label.setWordWrap(True)
        label.setTextFormat(Qt.PlainText)
        return label


class WelcomeFeature(Feature):
    """Help › Getting started, and the welcome page opened by itself at the first start."""

    id = "welcome"
    #: Whether a window whose settings never showed the welcome opens it (the tests of other
    #: views turn this off).
    opens_at_first_start = True

    def action_specs(self) -> list[ActionSpec]:
        return [ActionSpec("getting_started", "&Getting started", self.show, QKeySequence.HelpContents,
                           "What Skill Studio is for, where to begin, and what the words mean",
                           places=(at("Help", HELP_GROUP, 0),))]

    def page_specs(self) -> list[PageSpec]:
        return [PageSpec("welcome", "Welcome", self._make)]

    def attach(self) -> None:
        settings = self.shell.settings
        if self.opens_at_first_start and not settings.welcome_shown:
            self.show()
            settings.welcome_shown = True   # once: Help › Getting started brings it back

    @property
    def page(self) -> WelcomePage | None:
        """The welcome page while its tab is open."""
        page = self.shell.page("welcome")
        return page if isinstance(page, WelcomePage) else None

    def show(self, *_args) -> None:
        self.shell.open_page("welcome")

    def _make(self, parent: QWidget) -> WelcomePage:
        from skill_studio.core.health import checks
        from skill_studio.core.library.samples import SEEDED_SETTING

        store = self.shell.store
        page = WelcomePage(glossary(checks.settings(store)), has_samples=bool(store.setting(SEEDED_SETTING, False)),
                           parent=parent)
        page.importChosen.connect(self.shell.action("import").trigger)
        page.newSkillChosen.connect(self.shell.action("new_skill").trigger)
        page.libraryChosen.connect(self.show_library)
        return page

    def show_library(self) -> None:
        """The library page with every skill shown (filters cleared)."""
        w = self.shell
        w.workspace.setCurrentIndex(0)
        w.show_browser()
        w.browser.clear_filters()
        count = w.model.rowCount()
        w.show_status(f"The library shows {count} skill{'s' if count != 1 else ''}: select one to see its "
                      "details, double-click it to open it in the designer", 15_000)


__all__ = ["WelcomeFeature", "WelcomePage"]
