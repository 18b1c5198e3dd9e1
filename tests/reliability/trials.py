"""The crash-trial harness: a seeded random source, a command killed with SIGKILL after a
random delay, and the tally of trials and anomalies each scenario prints and saves.

The seed is printed with the figures; ``RAGSPINE_CRASH_SEED=N`` replays a run's kill points
(as far as the machine's timing allows).
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts" / "reliability"
SEED_VARIABLE = "RAGSPINE_CRASH_SEED"
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT)])}
# A process killed alone must take its children with it within this time (an OCR pool, RQ's
# job process): none may go on writing after its parent died.
ORPHAN_SECONDS = 15.0


def seeded_rng(name: str) -> tuple[random.Random, int]:
    seed = int(os.environ.get(SEED_VARIABLE) or random.SystemRandom().randrange(2**31))
    print(f"{name}: seed {seed} (replay with {SEED_VARIABLE}={seed})")
    return random.Random(seed), seed


def ragspine_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "ragspine", *args]


@dataclass
class Tally:
    """What one scenario did and found; every anomaly is a list entry naming what and when."""

    scenario: str
    seed: int
    trials: int = 0
    runs_completed: int = 0
    kills_alone: int = 0
    anomalies: list[str] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    started: float = field(default_factory=time.monotonic)

    def count(self, name: str, n: int = 1) -> None:
        self.counts[name] = self.counts.get(name, 0) + n

    def anomaly(self, what: str) -> None:
        self.anomalies.append(f"trial {self.trials}: {what}")

    def report(self) -> str:
        """Print the figures and save them under ``test-artifacts/reliability/``."""
        figures = {k: v for k, v in asdict(self).items() if k != "started"}
        figures["seconds"] = round(time.monotonic() - self.started, 1)
        figures["load_average"] = [round(x, 2) for x in os.getloadavg()]
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        name = self.scenario.replace(" ", "-")
        (ARTIFACTS / f"crash-{name}.json").write_text(json.dumps(figures, indent=2) + "\n")
        line = json.dumps(figures, ensure_ascii=False)
        print(line)
        return line


class Run:
    """One command in its own process group, its output in ``log``."""

    def __init__(self, command: list[str], log: Path, env: dict[str, str] | None = None) -> None:
        self.log = log
        with log.open("ab") as out:
            self.process = subprocess.Popen(
                command,
                stdout=out,
                stderr=subprocess.STDOUT,
                env=env or ENV,
                start_new_session=True,
            )

    def finished_within(self, seconds: float) -> bool:
        try:
            self.process.wait(timeout=seconds)
        except subprocess.TimeoutExpired:
            return False
        return True

    def kill(self, *, alone: bool) -> bool:
        """SIGKILL the process (``alone``: the command's own process only, as the OOM killer
        does; else its whole group, as a machine dies); ``False`` when a child outlived it."""
        pid = self.process.pid
        try:
            if alone:
                os.kill(pid, signal.SIGKILL)
            else:
                os.killpg(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.process.wait()
        return _group_gone(pid, ORPHAN_SECONDS)

    def stop(self) -> None:
        """End whatever is left of the group (the test's own clean-up)."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()

    def tail(self) -> str:
        return self.log.read_text(errors="replace")[-3000:]


def _group_gone(pgid: int, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.05)
    try:
        os.killpg(pgid, signal.SIGKILL)
    except ProcessLookupError:
        return True
    return False


def run_to_end(
    command: list[str], log: Path, *, env: dict[str, str] | None = None, seconds: float = 300
) -> float:
    """Run a command to its end (asserting success); its wall-clock duration."""
    start = time.monotonic()
    run = Run(command, log, env)
    if not run.finished_within(seconds):
        run.stop()
        raise AssertionError(f"{command[3:]} did not end within {seconds} s\n{run.tail()}")
    assert run.process.returncode == 0, run.tail()
    return time.monotonic() - start


@dataclass(frozen=True)
class Spans:
    """How long a clean run takes to start its work, and then to do it (seconds)."""

    startup: float
    work: float


# The share of kill points placed in a command's start-up rather than in its work.
STARTUP_SHARE = 0.2


def measure_spans(run: Run, working: Callable[[], bool], seconds: float = 300) -> Spans:
    """Run a clean command to its end (asserting success), timing its start-up and work;
    ``working`` tells when the work has begun."""
    start = time.monotonic()
    while not working() and not run.finished_within(0.05):
        assert time.monotonic() - start < seconds, run.tail()
    begun = time.monotonic()
    if not run.finished_within(seconds):
        run.stop()
        raise AssertionError(f"the clean run did not end within {seconds} s\n{run.tail()}")
    assert run.process.returncode == 0, run.tail()
    return Spans(begun - start, time.monotonic() - begun)


def reaches_kill_point(
    run: Run,
    rng: random.Random,
    spans: Spans,
    working: Callable[[], bool],
    finished: Callable[[], bool] | None = None,
) -> bool:
    """Wait for a random kill point of ``run``: uniform over its start-up for a share of the
    trials, else uniform over its work from when ``working`` holds. ``False`` when the run
    ended first (or ``finished`` held: a server never ends by itself)."""
    done = finished or (lambda: run.finished_within(0.05))
    if rng.random() < STARTUP_SHARE:
        deadline = time.monotonic() + rng.uniform(0, spans.startup)
    else:
        start = time.monotonic()
        while not working():
            if done():
                return False
            assert time.monotonic() - start < 300, f"the work did not begin\n{run.tail()}"
        deadline = time.monotonic() + rng.uniform(0, spans.work)
    while time.monotonic() < deadline:
        if done():
            return False
        time.sleep(0.02)
    return True
