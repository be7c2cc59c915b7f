"""The features the window is made of, in the order they are set up. Adding a view to the window
means adding its feature here; the shell builds its actions, menu entries, toolbar buttons and pages."""

from __future__ import annotations

from skill_studio.ui.agents.window_agents import AgentsFeature
from skill_studio.ui.agents.window_api import ApiFeature
from skill_studio.ui.agents.window_linked import LinkedFeature
from skill_studio.ui.bindings.window_bindings import BindingsFeature
from skill_studio.ui.graph.window_graph import GraphFeature
from skill_studio.ui.health.window_health import HealthFeature
from skill_studio.ui.review.window_review import ReviewFeature
from skill_studio.ui.shell.connect_agent import ConnectFeature
from skill_studio.ui.shell.feature import Feature
from skill_studio.ui.shell.help import HelpFeature
from skill_studio.ui.shell.welcome import WelcomeFeature
from skill_studio.ui.sources.window_sources import SourcesFeature

FEATURES: tuple[type[Feature], ...] = (
    ReviewFeature,
    HealthFeature,
    GraphFeature,
    BindingsFeature,
    AgentsFeature,
    ApiFeature,
    LinkedFeature,
    SourcesFeature,
    WelcomeFeature,
    HelpFeature,
    ConnectFeature,
)
