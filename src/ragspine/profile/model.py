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

from ragspine.profile.matching import alias_key
from ragspine.profile.sensitivity import Sensitivity

_Built = TypeVar("_Built")


class MetricKind(StrEnum):
    AMOUNT = "amount"
    RATIO = "ratio"
    COUNT = "count"


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


def _clean_aliases(values: tuple[str, ...]) -> tuple[str, ...]:
    cleaned = tuple(v.strip() for v in values)
    if any(not v for v in cleaned):
        raise ValueError("aliases must not be empty strings")
    return cleaned


class CompanySection(_Frozen):
    name: str = Field(min_length=1)
    name_zh: str = ""
    home_entity: str


class FiscalSection(_Frozen):
    year_end_month: int = Field(default=12, ge=1, le=12)


class DefaultsSection(_Frozen):
    channel: str = "TOTAL"
    # The vetted FAQ answers (service.faq), relative to the profile file's folder.
    faq_file: str | None = Field(default=None, min_length=1)


class EntityDef(_Frozen):
    code: str
    name_zh: str
    name_en: str
    geography: str
    aliases: tuple[str, ...] = ()

    _code = field_validator("code")(_check_code)
    _aliases = field_validator("aliases")(_clean_aliases)


class MetricDef(_Frozen):
    code: str
    name_zh: str
    name_en: str
    unit: str
    kind: MetricKind = MetricKind.AMOUNT
    aliases: tuple[str, ...] = ()

    _code = field_validator("code")(_check_code)
    _aliases = field_validator("aliases")(_clean_aliases)


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
        for section in ("entities", "metrics", "channels"):
            _check_unique_codes(section, getattr(self, section))
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
        _check_alias_clashes(self)
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
        return next((e for e in self.entities if e.code == code), None)

    def metric(self, code: str) -> MetricDef | None:
        return next((m for m in self.metrics if m.code == code), None)

    def channel(self, code: str) -> ChannelDef | None:
        return next((c for c in self.channels if c.code == code), None)

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


def _check_unique_codes(
    section: str, items: tuple[EntityDef | MetricDef | ChannelDef, ...]
) -> None:
    first: dict[str, int] = {}
    for index, item in enumerate(items):
        earlier = first.setdefault(item.code, index)
        if earlier != index:
            raise ProfileIssue(
                f"{section}.{index}.code",
                f"duplicate code {item.code!r} (already used by {section}.{earlier})",
            )


def _check_alias_clashes(profile: DomainProfile) -> None:
    """One alias must mean one thing: two codes sharing it would make every match a guess.

    Aliases compare case-folded and without whitespace, the way the matchers compare them.
    """
    # alias key -> (owner, dotted key, spelling) of the first alias with that key
    owners: dict[str, tuple[tuple[str, str], str, str]] = {}
    for section, code, key, alias in _aliases(profile):
        owner, where, first = owners.setdefault(alias_key(alias), ((section, code), key, alias))
        if owner != (section, code):
            raise ProfileIssue(
                key,
                f"alias {alias!r} is already used by {where} ({owner[1]}): {first!r} "
                f"({owner[1]}) and {alias!r} ({code}) read as one name, since aliases "
                "compare ignoring case and spaces",
            )


def _aliases(profile: DomainProfile) -> list[tuple[str, str, str, str]]:
    """(section, code, dotted key, alias) for every name a question may use."""
    found: list[tuple[str, str, str, str]] = []
    for section in ("entities", "metrics", "channels"):
        for index, item in enumerate(getattr(profile, section)):
            for name in ("code", "name_zh", "name_en"):
                if getattr(item, name):
                    found.append(
                        (section, item.code, f"{section}.{index}.{name}", getattr(item, name))
                    )
            for n, alias in enumerate(item.aliases):
                found.append((section, item.code, f"{section}.{index}.aliases.{n}", alias))
    for index, comp in enumerate(profile.competitors):
        found.append(("competitors", comp.name, f"competitors.{index}.name", comp.name))
        for n, alias in enumerate(comp.aliases):
            found.append(("competitors", comp.name, f"competitors.{index}.aliases.{n}", alias))
    return found
