"""``ragspine mcp --database-url``: the tools over a PostgreSQL deployment (no Redis needed),
at the command line's clearance."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from ragspine.demo.corpus import generate_corpus, load_ground_truth
from ragspine.facade import RAGSpine
from tests.mcp.conftest import call, stdio_session
from tests.mcp.test_tools import FOUND, slots


@pytest.fixture
def deployment(postgres_database: tuple[str, str], tmp_path: Path) -> tuple[str, str, Path]:
    url, schema = postgres_database
    corpus = tmp_path / "corpus"
    generate_corpus(corpus)
    with RAGSpine.open_server(url, schema=schema) as rag:
        rag.ingest(corpus)
    return url, schema, corpus


def test_the_tools_read_the_deployment_within_the_clearance(
    deployment: tuple[str, str, Path],
) -> None:
    url, schema, corpus = deployment
    facts = load_ground_truth(corpus).facts
    found = next(f for f in facts if f.key == FOUND)
    restricted = next(
        r for r in facts if {f.sensitivity for f in facts if f.key == r.key} == {"RESTRICTED"}
    )
    target = ("--database-url", url, "--schema", schema)

    async def scenario() -> None:
        async with stdio_session(*target) as session:
            hit = await call(session, "query_metric", **slots(found))
            assert (hit["status"], hit["value"]) == ("found", found.value)
            hidden = await call(session, "query_metric", **slots(restricted))
            assert hidden["status"] == "not_found"
            documents = (await call(session, "list_documents"))["documents"]
            assert found.doc in {d["doc"] for d in documents}
            assert restricted.doc not in {d["doc"] for d in documents}
        async with stdio_session(*target, "--clearance", "RESTRICTED") as session:
            shown = await call(session, "query_metric", **slots(restricted))
            assert (shown["status"], shown["value"]) == ("found", restricted.value)

    anyio.run(scenario)
