"""The domain profile: everything company-specific the engine knows, validated with pydantic."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from enum import StrEnum
from pathlib import Path
from typing import Any, Self, TypeVar

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    field_validator,
    model_validator,
)

from ragspine.profile.alias_clashes import alias_clash, code_clash
from ragspine.profile.derived import derived_issue
from ragspine.profile.exchange_rates import ExchangeRateDef, exchange_rate_issue
from ragspine.profile.hierarchy import hierarchy_issue
from ragspine.profile.metric_nature import MetricNature
from ragspine.profile.sensitivity import Sensitivity
from ragspine.units import CANONICAL_SCALE, Unit, UnitKind, is_currency

_Built = TypeVar("_Built")


class MetricKind(StrEnum):
    AMOUNT = "amount"
    RATIO = "ratio"
    COUNT = "count"
    PER_SHARE = "per_share"


# The unit kind each metric kind is stored in (a ratio is stored as a percent).
UNIT_KINDS = {
    MetricKind.AMOUNT: UnitKind.AMOUNT,
    MetricKind.RATIO: UnitKind.PERCENT,
    MetricKind.COUNT: UnitKind.COUNT,
    MetricKind.PER_SHARE: UnitKind.PER_SHARE,
}


class ProfileIssue(ValueError):
    """A cross-field problem, raised with the dotted key it concerns so the loader can name it."""

    def __init__(self, key: str, reason: str) -> None:
        super().__init__(f"{key}: {reason}")
        self.key = key
        self.reason = reason


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


def _check_code(value: str) -> str:
    if not value or not value.replace("_", "").isalnum() or not value.isupper():
        raise ValueError(f"code {value!r} must be UPPER_SNAKE_CASE letters and digits")
    return value


def _check_currency(value: str | None) -> str | None:
    if value is not None and not is_currency(value):
        raise ValueError(f"{value!r} is not an ISO 4217 currency code (e.g. USD, HKD, CNY, EUR)")
    return value


def _clean_aliases(values: tuple[str, ...]) -> tuple[str, ...]:
    cleaned = tuple(v.strip() for v in values)
    if any(not v for v in cleaned):
        raise ValueError("aliases must not be empty strings")
    return cleaned


class CompanySection(_Frozen):
    name: str = Field(min_length=1)
    name_zh: str = ""
    home_entity: str
    # The currency the company reports in: what a table stating only a scale ("(in
    # thousands)") is in, and what "$", "¥" or "元" mean when they could mean several.
    reporting_currency: str | None = None

    _currency = field_validator("reporting_currency")(_check_currency)


class FiscalSection(_Frozen):
    year_end_month: int = Field(default=12, ge=1, le=12)


class DefaultsSection(_Frozen):
    channel: str = "TOTAL"
    # The vetted FAQ answers (service.faq), relative to the profile file's folder.
    faq_file: str | None = Field(default=None, min_length=1)


class EntityDef(_Frozen):
    """An entity; ``parent`` names the entity whose figure sums this one with its siblings."""

    code: str
    name_zh: str
    name_en: str
    geography: str
    aliases: tuple[str, ...] = ()
    parent: str | None = None

    _code = field_validator("code")(_check_code)
    _aliases = field_validator("aliases")(_clean_aliases)


class GroupDef(_Frozen):
    """A named population of entities ("all regions"): the ``members`` listed, else the
    children of ``parent`` (the entities naming it as their parent)."""

    code: str
    name_zh: str = ""
    name_en: str = ""
    aliases: tuple[str, ...] = ()
    members: tuple[str, ...] = ()
    parent: str | None = None

    _code = field_validator("code")(_check_code)
    _aliases = field_validator("aliases")(_clean_aliases)


class MetricDef(_Frozen):
    """A metric. ``unit`` is a unit code (``units``: "USD_M", "PCT", "COUNT"), kept for profiles
    written before ``currency``; a metric may instead give its ``kind`` and expected
    ``currency`` (the company's reporting currency when left out). An amount or a count may
    say whether it is a ``flow`` or a ``balance`` (``metric_nature``)."""

    code: str
    name_zh: str
    name_en: str
    unit: str | None = None
    kind: MetricKind = MetricKind.AMOUNT
    currency: str | None = None
    aliases: tuple[str, ...] = ()
    nature: MetricNature | None = None

    _code = field_validator("code")(_check_code)
    _aliases = field_validator("aliases")(_clean_aliases)
    _currency = field_validator("currency")(_check_currency)

    @field_validator("unit")
    @classmethod
    def _check_unit(cls, value: str | None) -> str | None:
        if value is not None:
            Unit.parse(value)  # a ValueError names the forms a code takes
        return value

    @model_validator(mode="after")
    def _unit_agrees(self) -> MetricDef:
        if self.unit is None:
            return self
        unit = Unit.parse(self.unit)
        if unit.kind != UNIT_KINDS[self.kind]:
            raise ValueError(f"unit {self.unit!r} is not a unit of a {self.kind.value} metric")
        if self.currency is not None and unit.currency != self.currency:
            raise ValueError(f"unit {self.unit!r} is not in currency {self.currency!r}")
        return self

    @model_validator(mode="after")
    def _nature_of_an_amount(self) -> MetricDef:
        if self.nature is not None and self.kind not in (MetricKind.AMOUNT, MetricKind.COUNT):
            raise ValueError(
                f"nature applies to an amount or a count only: a {self.kind.value} metric is "
                "never summed over periods"
            )
        return self

    def default_unit(self, reporting_currency: str | None) -> Unit | None:
        """The unit a figure of this metric is in when its table states none; None for an
        amount whose currency neither the metric nor the company names."""
        if self.unit is not None:
            return Unit.parse(self.unit)
        kind = UNIT_KINDS[self.kind]
        if kind in (UnitKind.PERCENT, UnitKind.COUNT):
            return Unit(kind)
        currency = self.currency or reporting_currency
        if currency is None:
            return None
        return Unit(kind, currency, CANONICAL_SCALE if kind == UnitKind.AMOUNT else 0)

    def expected_currency(self, reporting_currency: str | None) -> str | None:
        """The currency this metric's figures are expected in, if the profile says."""
        if self.currency is not None:
            return self.currency
        if self.unit is not None and (declared := Unit.parse(self.unit).currency):
            return declared
        return reporting_currency


class DerivedDef(_Frozen):
    """A metric computed from two others of the same entity, period, channel and unit:
    ``numerator`` ÷ ``denominator``. Only a ``ratio`` (shown as a percent) is computed. Its
    names and aliases are read like a metric's, and a figure a document states for it is a
    fact of this code, which an answer prefers to the computed one."""

    code: str
    name_zh: str
    name_en: str
    numerator: str
    denominator: str
    kind: MetricKind = MetricKind.RATIO
    aliases: tuple[str, ...] = ()

    _code = field_validator("code")(_check_code)
    _aliases = field_validator("aliases")(_clean_aliases)

    @field_validator("kind")
    @classmethod
    def _check_kind(cls, value: MetricKind) -> MetricKind:
        if value != MetricKind.RATIO:
            raise ValueError(
                f"a derived metric is a 'ratio' (numerator ÷ denominator, shown as a percent); "
                f"{value.value!r} is not computed"
            )
        return value

    def as_metric(self) -> MetricDef:
        """The metric this rule defines, as questions, tables and answers read it."""
        return MetricDef(
            code=self.code,
            name_zh=self.name_zh,
            name_en=self.name_en,
            unit="PCT",
            kind=self.kind,
            aliases=self.aliases,
        )


class ChannelDef(_Frozen):
    code: str
    name_zh: str = ""
    name_en: str = ""
    aliases: tuple[str, ...] = ()

    _code = field_validator("code")(_check_code)
    _aliases = field_validator("aliases")(_clean_aliases)


class CompetitorDef(_Frozen):
    name: str = Field(min_length=1)
    aliases: tuple[str, ...] = ()

    _aliases = field_validator("aliases")(_clean_aliases)


class FilenameRule(_Frozen):
    pattern: str = Field(min_length=1)
    level: Sensitivity


class KeywordRule(_Frozen):
    """A keyword raising a document's level. English words match whole and, unless
    ``case_sensitive``, in any case: a marking such as ``RESTRICTED`` is case-sensitive so that
    "restricted cash" in prose does not lock a public report away."""

    keyword: str = Field(min_length=1)
    level: Sensitivity
    case_sensitive: bool = False


class SensitivitySection(_Frozen):
    default: Sensitivity = Sensitivity.INTERNAL
    filename_rules: tuple[FilenameRule, ...] = ()
    keyword_rules: tuple[KeywordRule, ...] = ()


class DomainProfile(_Frozen):
    """A validated profile.

    Codes are unique per section, the home entity and default channel exist, and no alias
    (code and names included) belongs to two codes or to a code and a competitor.
    """

    company: CompanySection
    fiscal: FiscalSection = FiscalSection()
    defaults: DefaultsSection = DefaultsSection()
    entities: tuple[EntityDef, ...] = Field(min_length=1)
    metrics: tuple[MetricDef, ...] = Field(min_length=1)
    channels: tuple[ChannelDef, ...] = Field(min_length=1)
    competitors: tuple[CompetitorDef, ...] = ()
    groups: tuple[GroupDef, ...] = ()
    derived: tuple[DerivedDef, ...] = ()
    exchange_rates: tuple[ExchangeRateDef, ...] = ()
    sensitivity: SensitivitySection = SensitivitySection()
    # Matchers compiled from this profile (glossary, parser lexicon), built on first use and
    # kept with the profile they describe, so a second profile can never be served the first
    # one's matchers and nothing is compiled at import time.
    _compiled: dict[str, Any] = PrivateAttr(default_factory=dict)
    # The file the profile was read from (None for one built in code): the files it names,
    # such as the FAQ file, are found relative to that file's folder.
    _source: Path | None = PrivateAttr(default=None)

    @model_validator(mode="after")
    def _cross_checks(self) -> DomainProfile:
        issue = code_clash(self) or derived_issue(
            self.metrics, self.derived, self.company.reporting_currency
        )
        if issue is not None:
            raise ProfileIssue(*issue)
        issue = hierarchy_issue(self.entities, self.groups) or exchange_rate_issue(
            self.exchange_rates
        )
        if issue is not None:
            raise ProfileIssue(*issue)
        if self.company.home_entity not in {e.code for e in self.entities}:
            raise ProfileIssue(
                "company.home_entity",
                f"{self.company.home_entity!r} is not one of the entity codes "
                f"({', '.join(e.code for e in self.entities)})",
            )
        if self.defaults.channel not in {c.code for c in self.channels}:
            raise ProfileIssue(
                "defaults.channel",
                f"{self.defaults.channel!r} is not one of the channel codes "
                f"({', '.join(c.code for c in self.channels)})",
            )
        issue = alias_clash(self)
        if issue is not None:
            raise ProfileIssue(*issue)
        for index, metric in enumerate(self.metrics):
            if metric.default_unit(self.company.reporting_currency) is None:
                raise ProfileIssue(
                    f"metrics.{index}.currency",
                    f"{metric.code} is a {metric.kind.value} metric without a currency: give it "
                    "a currency (or a unit such as 'USD_M'), or set company.reporting_currency",
                )
        return self

    def __eq__(self, other: object) -> bool:
        # Equal by content: matchers compiled from a profile are not part of what it says.
        if not isinstance(other, DomainProfile):
            return NotImplemented
        return self.__dict__ == other.__dict__

    def __hash__(self) -> int:
        return hash(tuple(self.__dict__.values()))

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Self:
        """A copy (possibly with other content) compiles its own matchers, never the original's."""
        copy = super().model_copy(update=update, deep=deep)
        copy._compiled = {}
        return copy

    def compiled(self, name: str, build: Callable[[DomainProfile], _Built]) -> _Built:
        """``build(self)``, computed once per profile object and remembered under ``name``."""
        # Read through __pydantic_private__: the attribute lookup pydantic routes private
        # names through costs more than the rest of a cache hit, and this runs per question.
        # No typing.cast either: each is a function call at run time.
        compiled: dict[str, Any] = self.__pydantic_private__["_compiled"]  # type: ignore[index]
        try:
            built: _Built = compiled[name]
        except KeyError:
            built = compiled[name] = build(self)
        return built

    def entity(self, code: str) -> EntityDef | None:
        return self.compiled("entities-by-code", _entities_by_code).get(code)

    def group(self, code: str) -> GroupDef | None:
        return next((g for g in self.groups if g.code == code), None)

    def children(self, code: str) -> tuple[str, ...]:
        """The codes of the entities whose parent is ``code``, in profile order."""
        return tuple(e.code for e in self.entities if e.parent == code)

    def members(self, group: GroupDef) -> tuple[str, ...]:
        """A group's entity codes: those it lists, else its parent's children."""
        return group.members or (self.children(group.parent) if group.parent else ())

    def metric(self, code: str) -> MetricDef | None:
        """The metric ``code`` names, a derived one included."""
        return self.compiled("metrics-by-code", _metrics_by_code).get(code)

    @property
    def all_metrics(self) -> tuple[MetricDef, ...]:
        """The metrics, then the derived metrics as metrics: every metric a question or a
        table may name."""
        return self.compiled("all-metrics", _all_metrics)

    def derived_metric(self, code: str) -> DerivedDef | None:
        """The rule of a derived metric; None for a metric the documents state only."""
        return next((d for d in self.derived if d.code == code), None)

    def channel(self, code: str) -> ChannelDef | None:
        return self.compiled("channels-by-code", _channels_by_code).get(code)

    @property
    def home_entity(self) -> EntityDef:
        entity = self.entity(self.company.home_entity)
        assert entity is not None  # guaranteed by _cross_checks
        return entity

    @property
    def home_company_name(self) -> str:
        return self.company.name

    @property
    def source_path(self) -> Path | None:
        """The file this profile was loaded from; ``None`` for a profile built in code."""
        return self._source

    def read_from(self, path: Path) -> None:
        """Record the file this profile was loaded from (the loader calls it once)."""
        self._source = path.absolute()

    @property
    def faq_path(self) -> Path | None:
        """The FAQ file named by ``defaults.faq_file``, relative to the profile file's folder
        (to the working directory for a profile built in code); ``None`` when none is named."""
        if self.defaults.faq_file is None:
            return None
        path = Path(self.defaults.faq_file)
        if path.is_absolute() or self._source is None:
            return path
        return self._source.parent / path


def _all_metrics(profile: DomainProfile) -> tuple[MetricDef, ...]:
    return profile.metrics + tuple(d.as_metric() for d in profile.derived)


def _metrics_by_code(profile: DomainProfile) -> dict[str, MetricDef]:
    return {m.code: m for m in profile.all_metrics}


# Codes are unique within each section (``_check_unique_codes``), so a map by code finds what
# a scan in profile order would; answers name several codes each.
def _entities_by_code(profile: DomainProfile) -> dict[str, EntityDef]:
    return {e.code: e for e in profile.entities}


def _channels_by_code(profile: DomainProfile) -> dict[str, ChannelDef]:
    return {c.code: c for c in profile.channels}
