"""What a follow-up question asks for, read from its words alone: a qualifier nothing here
computes ("and its share?"), prose ("why …"), or a change ("how much did it grow?").
``agent.conversation`` decides with these what a question inherits."""

from __future__ import annotations

from ragspine.agent import cues
from ragspine.agent.cue_only import asks_only_the_cue
from ragspine.agent.normalize import normalize_question
from ragspine.agent.types import AnalysisOp, ParsedIntent
from ragspine.profile.model import DomainProfile


def computes_nothing(intent: ParsedIntent, profile: DomainProfile | None) -> bool:
    """Whether the question asks for what nothing here computes ("and its share?", "那人均呢？",
    "and the median?"): a figure's qualifier, which the previous turn's figure is read with so
    the answer says it was not computed (never the plain figure, nor prose in its place). A
    question holding a topic of its own beside the cue word ("tell me about the share
    buyback") is a new question (known with ``profile`` only)."""
    analysis = intent.analysis
    if analysis is None or analysis.op is not AnalysisOp.UNSUPPORTED:
        return False
    return profile is None or asks_only_the_cue(intent.raw_question, analysis.unsupported, profile)


def asks_for_prose(question: str) -> bool:
    """True for a why- or what-is question ("why did it fall there?"): prose, not a figure."""
    hits = cues.PROSE_AND_MODIFIERS.finditer(normalize_question(question))
    return any(hit.kind in ("narrative", "concept") for hit in hits)


def asks_growth(question: str) -> bool:
    """True for "how much did it grow?", "较上年变化多少": the parser sets ``growth`` only
    beside a metric, and a follow-up's metric is inherited."""
    text = normalize_question(question)
    return bool(cues.GROWTH.finditer(text) or cues.growth_bases(text))
