"""The CI skip guard, run on small throwaway suites: under CI a skip outside the allow-list
fails the run and is named; an allowed skip, or no CI, leaves the run green."""

from __future__ import annotations

import pytest

from tests import skip_guard
from tests.skip_guard import ALLOWED_SKIPS, AllowedSkip, ci_enabled

pytest_plugins = ["pytester"]

SUITE = """
import pytest

def test_runs():
    assert True

@pytest.mark.llm
@pytest.mark.skip(reason="real-LLM test: set RAGSPINE_LLM_TESTS=1 (make eval-llm does)")
def test_real_model():
    pass

@pytest.mark.xfail(reason="a known bug, not a skip")
def test_known_bug():
    assert False
"""
MISSING_DEPENDENCY = """
import pytest

@pytest.mark.skipif(True, reason="usearch is not installed")
def test_vectors():
    pass
"""


@pytest.fixture
def suite(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makeini("[pytest]\nmarkers =\n    llm: needs a real local model server\n")
    pytester.makepyfile(test_suite=SUITE)
    return pytester


def _run(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, ci: str | None
) -> pytest.RunResult:
    if ci is None:
        monkeypatch.delenv("CI", raising=False)
    else:
        monkeypatch.setenv("CI", ci)
    # Hypothesis's plugin costs two seconds per in-process run and these suites do not use it.
    return pytester.runpytest("-p", "tests.skip_guard", "-p", "no:hypothesispytest", "-rs")


def test_the_suite_loads_the_guard(pytestconfig: pytest.Config) -> None:
    assert pytestconfig.pluginmanager.get_plugin("tests.skip_guard") is skip_guard


@pytest.mark.parametrize("ci", ["true", "TRUE", "True", "1"])
def test_under_ci_an_unexpected_skip_fails_the_run_and_is_named(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, ci: str
) -> None:
    suite.makepyfile(test_vectors=MISSING_DEPENDENCY)
    result = _run(suite, monkeypatch, ci)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.assert_outcomes(passed=1, skipped=2, xfailed=1)
    result.stdout.fnmatch_lines(
        [
            "*unexpected skips under CI*",
            "test_vectors.py::test_vectors: usearch is not installed",
            "1 test(s) skipped that CI must run*",
        ]
    )
    assert "test_suite.py::test_real_model:" not in result.stdout.str()


def test_under_ci_a_module_skipped_at_import_fails_the_run(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    suite.makepyfile(
        test_broken='import pytest\n\npytest.importorskip("ragspine_no_such_module")\n'
    )
    result = _run(suite, monkeypatch, "true")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["test_broken.py: could not import 'ragspine_no_such_module'*"])


def test_under_ci_an_llm_test_skipped_for_another_reason_fails_the_run(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    suite.makepyfile(
        test_local="""
import pytest

@pytest.mark.llm
def test_model_answers():
    pytest.skip("llama-cpp-python is not installed")
"""
    )
    result = _run(suite, monkeypatch, "true")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        ["test_local.py::test_model_answers: llama-cpp-python is not installed"]
    )


def test_under_ci_only_allowed_skips_keep_the_run_green(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    result = _run(suite, monkeypatch, "true")
    assert result.ret == pytest.ExitCode.OK
    result.assert_outcomes(passed=1, skipped=1, xfailed=1)
    assert "unexpected skips" not in result.stdout.str()


@pytest.mark.parametrize("ci", [None, "", "false", "0", "yes-please"])
def test_without_ci_a_skip_is_only_reported(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, ci: str | None
) -> None:
    suite.makepyfile(test_vectors=MISSING_DEPENDENCY)
    result = _run(suite, monkeypatch, ci)
    assert result.ret == pytest.ExitCode.OK
    result.assert_outcomes(passed=1, skipped=2, xfailed=1)
    assert "unexpected skips" not in result.stdout.str()


def test_a_run_that_already_failed_keeps_its_exit_code(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    suite.makepyfile(
        test_broken='import pytest\n\npytest.importorskip("ragspine_no_such_module")\n',
        test_error="import ragspine_no_such_module\n",
    )
    result = _run(suite, monkeypatch, "true")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(["*unexpected skips under CI*", "test_broken.py: *"])


def test_ci_is_read_like_ci_services_set_it() -> None:
    assert [ci_enabled({"CI": v}) for v in ("true", "TRUE", " 1 ", "1")] == [True] * 4
    assert [ci_enabled({"CI": v}) for v in ("", "false", "0", "on")] == [False] * 4
    assert ci_enabled({}) is False


def test_an_allowed_skip_matches_its_marker_test_and_reason() -> None:
    by_marker = AllowedSkip(marker="llm", reason="set X=1", why="w")
    assert by_marker.matches("t.py::a", frozenset({"llm"}), "skip: set X=1") is True
    assert by_marker.matches("t.py::a", frozenset({"llm"}), "other cause") is False
    assert by_marker.matches("t.py::a", frozenset(), "skip: set X=1") is False
    by_test = AllowedSkip(test="t.py::a", why="w")
    assert by_test.matches("t.py::a[1-2]", frozenset(), "any") is True
    assert by_test.matches("t.py::ab", frozenset(), "any") is False
    with pytest.raises(ValueError, match="names a marker or a test"):
        AllowedSkip(why="w", reason="anything")


def test_every_allowed_skip_says_why() -> None:
    assert all(len(entry.why) > 20 for entry in ALLOWED_SKIPS)


def test_the_real_llm_tests_skip_only_as_allowed(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, pytestconfig: pytest.Config
) -> None:
    """What CI sees under `make test`: the real-model tests skip, and the guard accepts it."""
    monkeypatch.setenv("CI", "true")
    monkeypatch.delenv("RAGSPINE_LLM_TESTS", raising=False)
    llm_tests = pytestconfig.rootpath / "tests" / "llm"
    result = pytester.runpytest_subprocess(str(llm_tests), "-m", "llm", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.OK, result.stdout.str() + result.stderr.str()
    outcomes = result.parseoutcomes()
    assert outcomes["skipped"] > 0 and set(outcomes) <= {"skipped", "deselected"}
