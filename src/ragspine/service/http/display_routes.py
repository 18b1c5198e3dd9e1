"""What the web page shows by name: question examples drawn from the workspace's own profile
(``GET /v1/profile/examples``) and the display fields of a previewed fact (``profile.display``).

Nothing here names a company: the examples are made of the profile's entity and metric names
in each language, so a workspace of any company shows its own.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from fastapi import FastAPI
from pydantic import BaseModel

from ragspine.agent.response import unit_fields
from ragspine.profile.display import Names
from ragspine.profile.model import DomainProfile, EntityDef, MetricDef, MetricKind
from ragspine.storage.facts import Fact

LANGUAGES = ("zh", "en")


class QuestionExamples(BaseModel):
    """Example questions per language ("zh", "en"), the first one the placeholder."""

    zh: list[str]
    en: list[str]


def _entities(profile: DomainProfile) -> list[EntityDef]:
    """Units before the home entity (a question about one reads as the most typical), home last."""
    home = profile.company.home_entity
    return [e for e in profile.entities if e.code != home] + [profile.home_entity]


def _metrics(profile: DomainProfile) -> list[MetricDef]:
    amounts = [m for m in profile.metrics if m.kind == MetricKind.AMOUNT]
    return amounts + [m for m in profile.metrics if m.kind != MetricKind.AMOUNT]


def question_examples(profile: DomainProfile) -> QuestionExamples:
    """Up to two questions per language from the profile's own names: a figure of one entity,
    then the same figure of the next entity compared (no period: the engine assumes the latest
    complete year and says so)."""
    entities, metrics = _entities(profile), _metrics(profile)
    out: dict[str, list[str]] = {}
    for language in LANGUAGES:
        names = Names(profile, language)
        entity = names.entity(entities[0].code)
        metric = names.metric(metrics[0].code)
        if language == "zh":
            asked = [f"{entity}{metric}是多少"]
        else:
            asked = [f"What was {entity} {metric}?"]
        if len(entities) > 1:
            other = names.entity(entities[1].code)
            asked.append(
                f"{entity}和{other}的{metric}对比"
                if language == "zh"
                else f"{entity} vs {other} {metric}"
            )
        out[language] = asked
    return QuestionExamples(**out)


def fact_display(fact: Fact, names: Names) -> dict[str, Any]:
    """A stored fact's display fields, beside its codes in a preview."""
    return {
        "entity_display": names.entity(fact.entity),
        "metric_display": names.metric(fact.metric_code),
        "channel_display": names.channel(fact.channel),
        "value_display": names.value(fact.value, fact.unit),
        "unit_display": names.unit(fact.unit),
        **unit_fields(fact.unit),
    }


def install_display(
    app: FastAPI,
    profile_of: Callable[[], DomainProfile],
    dependencies: Sequence[Any],
    responses: dict[int | str, dict[str, Any]],
) -> None:
    @app.get(
        "/v1/profile/examples",
        tags=["answers"],
        dependencies=list(dependencies),
        responses=responses,
    )
    def profile_examples() -> QuestionExamples:
        """Example questions in Chinese and English made of the workspace profile's names."""
        return question_examples(profile_of())
