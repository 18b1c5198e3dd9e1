"""The upload oracle probe, shared by the embedded and the scale-out test: facts the operator
holds at each level, uploads that probe them from keys of each clearance, and the hand-written
outcome every key must see.

For every pair (uploader clearance, level of the held fact) the uploader sends three one-line
tables: for a key with no fact, for a key whose held fact has another value, and for a key
whose held fact has exactly the uploaded value. The rule the expectations encode is the one
docs/service-access-and-jobs.md states: a conflict the uploader may see is held for review; one
above its clearance is kept apart by clearance (both facts stored, each caller answered from
the most sensitive it may see), except at the upload's own level, where the upload is held
but reported as stored. So whenever the held fact is above the uploader's clearance, the three
uploads give the uploader the same job result and review listing.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from ragspine.profile.sensitivity import Sensitivity

LEVELS = tuple(Sensitivity)
KINDS = ("none", "different", "exact")
# An upload's name and text call for no level of their own: it takes the profile's default.
UPLOAD_LEVEL = Sensitivity.INTERNAL
HIDDEN = 4321
MINE = 1111


def writer_name(level: Sensitivity) -> str:
    return f"writer-{level.value.lower()}"


@dataclass(frozen=True)
class Probe:
    writer: Sensitivity  # the uploader's clearance
    held: Sensitivity  # the level of the operator's fact it probes
    kind: str

    @property
    def year(self) -> int:
        """Each probe its own key: a fiscal year of ACME Macau's revenue."""
        return 2000 + (self.held.rank * len(LEVELS) + self.writer.rank) * 3 + KINDS.index(self.kind)

    @property
    def value(self) -> int:
        return HIDDEN if self.kind == "exact" else MINE

    @property
    def file(self) -> str:
        return f"probe_{self.held.value.lower()}_{self.kind}.md"

    @property
    def doc(self) -> str:
        return f"uploads/{writer_name(self.writer)}/{self.file}"

    @property
    def seen_by_writer(self) -> bool:
        return self.writer.allows(self.held)

    @property
    def upload_held_back(self) -> bool:
        """A different value is held for review when the writer may see the held fact, or
        when the two are at one level (they cannot be kept apart)."""
        return self.kind == "different" and (self.seen_by_writer or self.held == UPLOAD_LEVEL)


PROBES = tuple(Probe(w, h, k) for w in LEVELS for h in LEVELS for k in KINDS)


def write_held_documents(folder: Path) -> None:
    """One operator document per level, stating ``HIDDEN`` for the keys its probes test."""
    folder.mkdir(parents=True)
    for level in LEVELS:
        years = sorted(p.year for p in PROBES if p.held == level and p.kind != "none")
        name = f"held_{level.value.lower()}.md"
        (folder / name).write_text(_table(years, HIDDEN), encoding="utf-8")
        sidecar = f'{{"sensitivity": "{level.value}", "sensitivity_override": true}}'
        (folder / f"{name}.meta.json").write_text(sidecar, encoding="utf-8")


def _table(years: list[int], value: int) -> str:
    header = " | ".join(f"FY{y}" for y in years)
    cells = " | ".join(f"{value:,}" for _ in years)
    rule = "|".join("---" for _ in range(len(years) + 1))
    return f"# ACME Macau\n\n| US$m | {header} |\n|{rule}|\n| Revenue | {cells} |\n"


def upload_all(client: TestClient, headers: dict[Sensitivity, dict[str, str]]) -> dict[str, str]:
    """Each writer's probes as one job; the job id of each writer."""
    jobs = {}
    for writer in LEVELS:
        files = [
            ("files", (p.file, _table([p.year], p.value).encode()))
            for p in PROBES
            if p.writer == writer
        ]
        sent = client.post("/v1/ingest/jobs", files=files, headers=headers[writer])
        assert sent.status_code == 202, sent.text
        jobs[writer.value] = sent.json()["job_id"]
    return jobs


def wait_done(
    client: TestClient, job_id: str, headers: dict[str, str], run: Callable[[], None]
) -> Any:
    deadline = time.monotonic() + 60
    while (status := client.get(f"/v1/jobs/{job_id}", headers=headers).json())["state"] in (
        "queued",
        "running",
    ):
        assert time.monotonic() < deadline, status
        run()
        time.sleep(0.05)
    return status


def check_job_results(status: Any, writer: Sensitivity) -> None:
    assert (status["state"], status["error"], status["files_done"]) == ("done", "", 12), status
    results = {r["name"]: r for r in status["results"]}
    for probe in (p for p in PROBES if p.writer == writer):
        told = {k: v for k, v in results[probe.file].items() if k != "name"}
        held_visibly = probe.kind == "different" and probe.seen_by_writer
        expected = {
            "outcome": "ingested",
            "facts": 0 if held_visibly else 1,
            "chunks": 1,
            "review": 1 if held_visibly else 0,
            "warnings": [],
            "error": "",
        }
        assert told == expected, probe


def expected_review(caller: Sensitivity) -> set[tuple[str, str]]:
    """(document, reason) of the conflict items on uploads a reviewer of ``caller`` sees."""
    seen = set()
    for probe in PROBES:
        if probe.kind != "different":
            continue
        level = Sensitivity.highest(UPLOAD_LEVEL, probe.held)
        stored = not probe.upload_held_back
        if caller.allows(level):
            seen.add((probe.doc, "clearance_conflict" if stored else "conflict"))
    return seen


def check_review(client: TestClient, caller: Sensitivity, headers: dict[str, str]) -> None:
    items = client.get("/v1/review", params={"state": "all"}, headers=headers).json()["items"]
    listed = {(i["doc"], i["reason"]) for i in items if i["doc"].startswith("uploads/")}
    assert listed == expected_review(caller), caller
    # Nothing an item shows a caller names a level above its clearance.
    assert all(caller.allows(Sensitivity.parse(i["sensitivity"])) for i in items)


def expected_answer(probe: Probe, caller: Sensitivity) -> tuple[int, set[str]] | None:
    """The value ``caller`` is told for the probe's key and the documents that may state it
    (two at one level and one value: either), or ``None`` when it may see no fact."""
    stated = []
    if probe.kind != "none":
        stated.append((probe.held, f"held_{probe.held.value.lower()}.md", HIDDEN))
    if not probe.upload_held_back:
        stated.append((UPLOAD_LEVEL, probe.doc, probe.value))
    visible = [s for s in stated if caller.allows(s[0])]
    if not visible:
        return None
    top = max(level.rank for level, _, _ in visible)
    winners = [(doc, value) for level, doc, value in visible if level.rank == top]
    assert len({value for _, value in winners}) == 1
    return winners[0][1], {doc for doc, _ in winners}


def check_answers(client: TestClient, caller: Sensitivity, headers: dict[str, str]) -> None:
    for probe in PROBES:
        question = f"What was ACME Macau revenue in FY{probe.year}?"
        got = client.post("/v1/ask", json={"question": question}, headers=headers).json()
        expected = expected_answer(probe, caller)
        docs = {s["doc"] for s in got["sources"]}
        if expected is None:
            assert not docs & {probe.doc, *(f"held_{lv.value.lower()}.md" for lv in LEVELS)}
            assert not _states(got["answer"], HIDDEN), (probe, caller)
            continue
        value, sources = expected
        first = got["sources"][0]["doc"] if got["sources"] else ""
        assert first in sources, (probe, caller, got)
        assert _states(got["answer"], value), (probe, caller, got["answer"])
        if not caller.allows(probe.held):
            assert not _states(got["answer"], HIDDEN) or value == HIDDEN, (probe, caller)


def _states(answer: str, value: int) -> bool:
    digits = str(value)
    return re.search(rf"(?<![\d,]){digits[0]},?{digits[1:]}(?![\d,])", answer) is not None


def run_probe(
    client: TestClient, headers: dict[Sensitivity, dict[str, str]], run: Callable[[], None]
) -> None:
    """Upload every probe, then check what each clearance is told."""
    jobs = upload_all(client, headers)
    for writer in LEVELS:
        status = wait_done(client, jobs[writer.value], headers[writer], run)
        check_job_results(status, writer)
    for caller in LEVELS:
        check_review(client, caller, headers[caller])
        check_answers(client, caller, headers[caller])
