"""The CI guard against silent skips: under ``CI=true`` a skip not in ``ALLOWED_SKIPS`` fails.

A skip on a laptop is a convenience (no PostgreSQL, no optional extra); in CI it hides a test
that was meant to run, so the run must fail and name it. Loaded by ``tests/conftest.py``.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

import pytest

CI_VARIABLE = "CI"
_MARKERS = "skip-guard-markers"  # the user property a skipped report carries its markers in
_CI_ON = frozenset({"true", "1"})


@dataclass(frozen=True)
class AllowedSkip:
    """One kind of skip CI accepts, and why.

    It matches a skipped test carrying ``marker`` (when set) whose node id is ``test`` (when set;
    a parametrized test's id without ``[...]`` covers every parameter) and whose skip reason
    contains ``reason``. The reason pins *why* it skipped: an ``llm`` test skipped for another
    cause than the one allowed here is still reported.
    """

    why: str
    marker: str = ""
    test: str = ""
    reason: str = ""

    def __post_init__(self) -> None:
        if not (self.marker or self.test):
            raise ValueError("an allowed skip names a marker or a test")

    def matches(self, nodeid: str, markers: frozenset[str], reason: str) -> bool:
        return (
            (not self.marker or self.marker in markers)
            and (not self.test or nodeid == self.test or nodeid.startswith(f"{self.test}["))
            and self.reason in reason
        )


# Everything else skipped under CI fails the run: a missing core dependency (usearch), the
# dense extra (`make test` installs it) and, once they exist, PostgreSQL or Redis tests.
ALLOWED_SKIPS: tuple[AllowedSkip, ...] = (
    AllowedSkip(
        marker="llm",
        reason="set RAGSPINE_LLM_TESTS=1",
        why="real-model tests: `make eval-llm` sets the variable and runs them",
    ),
)


def ci_enabled(environ: Mapping[str, str] = os.environ) -> bool:
    """``CI`` is ``true`` (any case) or ``1``, as CI services set it."""
    return environ.get(CI_VARIABLE, "").strip().lower() in _CI_ON


class SkipGuard:
    """Records every skip of the session and fails the session on one not allowed."""

    def __init__(self, allowed: tuple[AllowedSkip, ...] = ALLOWED_SKIPS) -> None:
        self._allowed = allowed
        self._markers: dict[str, frozenset[str]] = {}
        self.unexpected: dict[str, str] = {}

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        # Marker names from the markers themselves: report.keywords would also hold the names
        # of the folders above a test, so every test under tests/llm/ would look marked llm.
        for item in items:
            self._markers[item.nodeid] = frozenset(m.name for m in item.iter_markers())

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(
        self, item: pytest.Item, call: pytest.CallInfo[None]
    ) -> Iterator[None]:
        # Under pytest-xdist the reports reach the controlling process, which collected
        # nothing: a skipped report carries its test's marker names with it.
        outcome = yield
        report: pytest.TestReport = outcome.get_result()  # type: ignore[attr-defined]
        if report.skipped:
            names = ",".join(sorted(m.name for m in item.iter_markers()))
            report.user_properties.append((_MARKERS, names))

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        # A module-level skip (importorskip at import time) skips a whole file at collection.
        if report.skipped:
            self._record(report.nodeid, _reason(report))

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.skipped and not hasattr(report, "wasxfail"):
            carried = dict(report.user_properties).get(_MARKERS)
            markers = frozenset(str(carried).split(",")) if carried is not None else None
            self._record(report.nodeid, _reason(report), markers)

    def _record(self, nodeid: str, reason: str, markers: frozenset[str] | None = None) -> None:
        if markers is None:
            markers = self._markers.get(nodeid, frozenset())
        if not any(allowed.matches(nodeid, markers, reason) for allowed in self._allowed):
            self.unexpected[nodeid] = reason

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if self.unexpected and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        if not self.unexpected:
            return
        terminalreporter.section("unexpected skips under CI", sep="!", red=True, bold=True)
        for nodeid, reason in self.unexpected.items():
            terminalreporter.line(f"{nodeid}: {reason}", red=True)
        terminalreporter.line(
            f"{len(self.unexpected)} test(s) skipped that CI must run: install what they need, "
            "or add an entry with its reason to ALLOWED_SKIPS in tests/skip_guard.py"
        )


def _reason(report: pytest.CollectReport | pytest.TestReport) -> str:
    longrepr = report.longrepr
    if isinstance(longrepr, tuple):
        return str(longrepr[2]).removeprefix("Skipped: ")
    return str(longrepr)


def pytest_configure(config: pytest.Config) -> None:
    if ci_enabled():
        config.pluginmanager.register(SkipGuard(), "skip-guard")
