"""The seeds' import path for intent parsing and the gateway: parser, slots, routes and modes.

The parser lives in ``agent.parse``, the gateway in ``agent.clarify`` and the types in
``agent.types``; this module only gathers the names the seeds import from here.
"""

from __future__ import annotations

from ragspine.agent.clarify import (
    CLARIFY_ANSWER_WITH_ASSUMPTIONS,
    CLARIFY_ASK_FIRST,
    CLARIFY_NONE,
    CLARIFY_OUT_OF_SCOPE_ENTITY,
    clarify_scope,
)
from ragspine.agent.parse import RuleIntentParser, parse_intent
from ragspine.agent.types import ClarificationResult, IntentParser, ParsedIntent, Route
from ragspine.profile.matching import detect_language

ROUTE_STRUCTURED = Route.STRUCTURED
ROUTE_NARRATIVE = Route.NARRATIVE
ROUTE_COMPOSITE = Route.COMPOSITE

__all__ = [
    "CLARIFY_ANSWER_WITH_ASSUMPTIONS",
    "CLARIFY_ASK_FIRST",
    "CLARIFY_NONE",
    "CLARIFY_OUT_OF_SCOPE_ENTITY",
    "ROUTE_COMPOSITE",
    "ROUTE_NARRATIVE",
    "ROUTE_STRUCTURED",
    "ClarificationResult",
    "IntentParser",
    "ParsedIntent",
    "RuleIntentParser",
    "clarify_scope",
    "detect_language",
    "parse_intent",
]
