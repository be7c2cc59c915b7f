"""Every colour the studio paints with: the tokens of the light and dark themes, the fills of the colour
roles the domain's vocabularies name (a lifecycle state, a health band, an install state says which role
it has; the theme says what the role looks like), and the application stylesheet."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication

from skill_studio.core.model import LIFECYCLE_TERMS, Lifecycle

#: Fills for badges, bars and marks by colour role: white text reads on each, in both themes.
ROLE_FILLS: dict[str, str] = {
    "success": "#2e7d32",    # green
    "info": "#1565c0",       # blue
    "attention": "#b27700",  # amber
    "warning": "#d84315",    # orange
    "danger": "#c62828",     # red
    "muted": "#616161",      # grey
}
#: Text drawn on a role's fill.
ON_FILL = "#ffffff"

#: Badge colours by lifecycle state, from the state's colour role.
LIFECYCLE_COLORS: dict[Lifecycle, str] = {s: ROLE_FILLS[t.colour_role] for s, t in LIFECYCLE_TERMS.items()}


#: Marks of a finding's severity (icons, squiggles, gutter dots), the same in every view, by theme (dark?).
SEVERITY_MARKS: dict[bool, dict[str, str]] = {
    False: {"error": "#d32f2f", "warning": "#c98a00", "info": "#1e6fd9"},
    True: {"error": "#ef5350", "warning": "#f2c14e", "info": "#64a8f5"},
}

#: Rows and changed words of a side-by-side diff, by theme (dark?).
DIFF_COLOURS: dict[bool, dict[str, str]] = {
    False: {"removed": "#fde7e7", "added": "#e3f5e6", "removed_word": "#f5b5b5", "added_word": "#9fdcab",
            "hunk": "#e6ecfb"},
    True: {"removed": "#4b2a2e", "added": "#23402c", "removed_word": "#8a3a42", "added_word": "#2f7345",
           "hunk": "#2b3552"},
}

#: Syntax colours of the editors by role, by theme (dark?); "code_back" is behind inline code.
SYNTAX_COLOURS: dict[bool, dict[str, str]] = {
    False: {
        "keyword": "#7c3aed", "string": "#1a7f37", "comment": "#6e7781", "number": "#b35900",
        "function": "#0550ae", "builtin": "#0a7c86", "operator": "#6b4f00", "variable": "#953800",
        "key": "#0550ae", "punct": "#6e7781", "heading": "#1f4fbf", "code": "#a3214f",
        "code_back": "#f1f3f7", "link": "#3056d3", "url": "#6e7781", "quote": "#5b6475",
        "marker": "#b35900", "html": "#8a93a3", "fence": "#8a6d00", "lang": "#8a6d00",
    },
    True: {
        "keyword": "#c792ea", "string": "#a5d68a", "comment": "#8b93a3", "number": "#f5a86a",
        "function": "#82aaff", "builtin": "#5fd0dc", "operator": "#d7c08a", "variable": "#f5a86a",
        "key": "#82aaff", "punct": "#8b93a3", "heading": "#9ab8ff", "code": "#f29db4",
        "code_back": "#30353f", "link": "#7aa2ff", "url": "#8b93a3", "quote": "#a3abba",
        "marker": "#f5a86a", "html": "#7d8596", "fence": "#d9b65c", "lang": "#d9b65c",
    },
}

@dataclass(frozen=True)
class Tokens:
    """The colours every widget draws with; one set per theme."""

    dark: bool
    window: str
    surface: str        # cards, panels
    surface_alt: str    # hovered card, alternate rows
    border: str
    text: str
    text_muted: str
    accent: str
    selection: str
    star: str
    bar_back: str
    bar_utility: str
    bar_freshness: str
    error: str          # what is wrong: failed checks, refused input
    warning: str        # what may be wrong
    success: str        # what passed
    info: str           # a neutral finding
    error_back: str     # behind a refused field or a skipped row
    notice_back: str    # a banner that asks for attention
    notice_text: str
    find_match: str     # behind a found word


LIGHT = Tokens(False, window="#f4f5f7", surface="#ffffff", surface_alt="#eef1f6", border="#d5d9e0",
               text="#1d2330", text_muted="#5b6475", accent="#3056d3", selection="#dbe5ff",
               star="#e0a100", bar_back="#e3e6ec", bar_utility="#3f8f5a", bar_freshness="#3a7bd5",
               error="#c62828", warning="#8a5a00", success="#2e7d32", info="#1565c0", error_back="#fdecea",
               notice_back="#fff4ce", notice_text="#5c4400", find_match="#ffe58a")
DARK = Tokens(True, window="#1e2127", surface="#272b33", surface_alt="#2f3440", border="#3b414d",
              text="#e6e9ef", text_muted="#a3abba", accent="#7aa2ff", selection="#34426a",
              star="#f2c14e", bar_back="#3a3f4b", bar_utility="#5fbf7f", bar_freshness="#6aa5f0",
              error="#ff8a80", warning="#f2c14e", success="#7bd88f", info="#6aa5f0", error_back="#4a2626",
              notice_back="#4a3f1c", notice_text="#f5e2a8", find_match="#5c4d1a")


def role_text(t: Tokens, role: str) -> str:
    """The colour of text in a colour ``role`` on the theme's background."""
    return {"success": t.success, "info": t.info, "attention": t.warning, "warning": t.warning,
            "danger": t.error, "muted": t.text_muted}[role]


def system_prefers_dark() -> bool:
    hints = QGuiApplication.styleHints()
    scheme = getattr(hints, "colorScheme", None)
    if scheme is not None:
        return scheme() == Qt.ColorScheme.Dark
    return QGuiApplication.palette().color(QPalette.Window).lightness() < 128


def tokens_for(theme: str) -> Tokens:
    """Tokens for 'light', 'dark' or 'system'."""
    if theme == "dark" or (theme == "system" and system_prefers_dark()):
        return DARK
    return LIGHT


def apply_theme(app: QApplication, tokens: Tokens) -> None:
    """Set the palette and stylesheet of the whole application from the tokens."""
    app.setStyle("Fusion")
    pal = QPalette()
    pal.setColor(QPalette.Window, QColor(tokens.window))
    pal.setColor(QPalette.Base, QColor(tokens.surface))
    pal.setColor(QPalette.AlternateBase, QColor(tokens.surface_alt))
    pal.setColor(QPalette.Text, QColor(tokens.text))
    pal.setColor(QPalette.WindowText, QColor(tokens.text))
    pal.setColor(QPalette.Button, QColor(tokens.surface))
    pal.setColor(QPalette.ButtonText, QColor(tokens.text))
    pal.setColor(QPalette.ToolTipBase, QColor(tokens.surface))
    pal.setColor(QPalette.ToolTipText, QColor(tokens.text))
    pal.setColor(QPalette.Highlight, QColor(tokens.accent))
    pal.setColor(QPalette.HighlightedText, QColor("#ffffff"))
    pal.setColor(QPalette.PlaceholderText, QColor(tokens.text_muted))
    pal.setColor(QPalette.Link, QColor(tokens.accent))
    for role in (QPalette.ButtonText, QPalette.Text, QPalette.WindowText):
        pal.setColor(QPalette.Disabled, role, QColor(tokens.text_muted).lighter(130 if not tokens.dark else 80))
    app.setPalette(pal)
    app.setProperty("studioTokens", tokens)
    app.setStyleSheet(stylesheet(tokens))


def current_tokens() -> Tokens:
    app = QApplication.instance()
    tokens = app.property("studioTokens") if app is not None else None
    return tokens if isinstance(tokens, Tokens) else LIGHT


def stylesheet(t: Tokens) -> str:
    return f"""
    QToolTip {{ color: {t.text}; background: {t.surface}; border: 1px solid {t.border}; }}
    QStatusBar {{ color: {t.text_muted}; }}
    QLineEdit, QComboBox {{ padding: 3px 6px; border: 1px solid {t.border}; border-radius: 4px;
                           background: {t.surface}; color: {t.text}; }}
    QTabBar::tab {{ padding: 5px 12px; color: {t.text_muted}; }}
    QTabBar::tab:selected {{ color: {t.text}; border-bottom: 2px solid {t.accent}; }}
    QHeaderView::section {{ background: {t.surface_alt}; color: {t.text}; border: none;
                            border-bottom: 1px solid {t.border}; padding: 4px 6px; }}
    QTableView {{ gridline-color: {t.border}; selection-background-color: {t.selection};
                  selection-color: {t.text}; }}
    QLabel[role="muted"] {{ color: {t.text_muted}; }}
    QLabel[role="heading"] {{ font-size: 15px; font-weight: 600; }}
    QFrame[role="panel"] {{ background: {t.surface}; border-left: 1px solid {t.border}; }}
    """
