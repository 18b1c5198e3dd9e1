"""Which gated cases a baseline pins as passing: readable ids for an open split, salted digests
for a held-out one.

An open split (``dev``, ``regression``) stores whichever list is shorter: ``{"failing": [...]}``
pins every gated case not listed as passing (a case added since is pinned too, so it must pass
or be baselined with ``allow_lower``); ``{"passing": [...]}`` pins exactly the listed ones. A
held-out split stores ``{"salt": ..., "passing_sha256": [...]}``, the first 16 hex digits of
``sha256(salt + "\\n" + id)`` per passing case, so the baseline file does not list held-out ids
readably, and its regressions are reported as a count only. Known issues are not gated, so
they are never pinned.
"""

from __future__ import annotations

import hashlib
import secrets
from typing import Any

from ragspine.eval.report import GoldenReport

_PASSING = "passing"
_FAILING = "failing"
_SALT = "salt"
_DIGESTS = "passing_sha256"
_SHAPES = ({_PASSING}, {_FAILING}, {_SALT, _DIGESTS})
# 64 bits: two of a few hundred ids share a prefix with a chance near 1e-15, and the file stays
# short enough to review.
DIGEST_CHARS = 16


def case_digest(salt: str, case_id: str) -> str:
    """The stored form of a held-out case id."""
    return hashlib.sha256(f"{salt}\n{case_id}".encode()).hexdigest()[:DIGEST_CHARS]


def pins_of(report: GoldenReport, *, held_out: bool, salt: str | None = None) -> dict[str, Any]:
    """The pins this run would set: its own passing cases (held out: with ``salt`` or a new one)."""
    if held_out:
        salt = salt or secrets.token_hex(8)
        _, passing = _keys(report, salt)
        return _digest_pins(salt, passing)
    universe, passing = _keys(report, None)
    return _open_pins(universe, passing)


def lost_cases(report: GoldenReport, pins: dict[str, Any], *, held_out: bool) -> list[str]:
    """One message per pinned case that fails now; for a held-out split one count, no ids."""
    universe, passing = _keys(report, _salt(pins, held_out))
    lost = _pinned(pins, universe) - passing
    if held_out:
        return [f"{len(lost)} held-out case(s) that passed now fail"] if lost else []
    return [f"case {case_id} fails; the baseline pins it as passing" for case_id in sorted(lost)]


def tightened_pins(report: GoldenReport, pins: dict[str, Any], *, held_out: bool) -> dict[str, Any]:
    """The pins after a ratchet: every case pinned before stays pinned, passing ones join."""
    salt = _salt(pins, held_out)
    universe, passing = _keys(report, salt)
    kept = _pinned(pins, universe) | passing
    return _digest_pins(salt, kept) if salt is not None else _open_pins(universe, kept)


def check_pins(raw: Any) -> None:
    """A ValueError unless ``raw`` has one of the three shapes, with lists of non-empty strings."""
    if not isinstance(raw, dict) or set(raw) not in _SHAPES:
        raise ValueError(
            "'cases' holds exactly one of: passing, failing (lists of case ids), "
            "or salt and passing_sha256 (a held-out split's digests)"
        )
    lists = [value for key, value in raw.items() if key != _SALT]
    if not all(isinstance(v, list) and all(isinstance(i, str) and i for i in v) for v in lists):
        raise ValueError("'cases' lists must hold non-empty strings")
    if _SALT in raw and not (isinstance(raw[_SALT], str) and raw[_SALT]):
        raise ValueError("'cases.salt' must be a non-empty string")


def _salt(pins: dict[str, Any], held_out: bool) -> str | None:
    if held_out and _DIGESTS not in pins:
        raise ValueError("a held-out split pins its cases as digests (salt, passing_sha256)")
    if not held_out and _DIGESTS in pins:
        raise ValueError("an open split pins its cases by id (passing or failing), not digests")
    salt = pins.get(_SALT)
    return salt if isinstance(salt, str) else None


def _keys(report: GoldenReport, salt: str | None) -> tuple[set[str], set[str]]:
    """Every gated case and the passing ones, as ids, or as digests when salted."""
    gated = [s for s in report.scores if not s.case.known_issue]

    def key(case_id: str) -> str:
        return case_id if salt is None else case_digest(salt, case_id)

    return {key(s.case.id) for s in gated}, {key(s.case.id) for s in gated if s.passed}


def _pinned(pins: dict[str, Any], universe: set[str]) -> set[str]:
    if _FAILING in pins:
        return universe - set(pins[_FAILING])
    return universe & set(pins.get(_PASSING, pins.get(_DIGESTS, [])))


def _open_pins(universe: set[str], passing: set[str]) -> dict[str, list[str]]:
    failing = sorted(universe - passing)
    return {_FAILING: failing} if len(failing) <= len(passing) else {_PASSING: sorted(passing)}


def _digest_pins(salt: str, passing: set[str]) -> dict[str, Any]:
    return {_SALT: salt, _DIGESTS: sorted(passing)}
