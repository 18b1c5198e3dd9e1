"""Schemathesis against the app's own ``/openapi.json``: generated requests, valid and not, to
every operation; no 5xx and no response outside the documented schema. Bounded to a few
examples per operation so it stays a fast part of the suite."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from schemathesis import Case
from schemathesis.checks import not_a_server_error
from schemathesis.openapi.loaders import from_asgi
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    negative_data_rejection,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from ragspine.service.http.app import create_app
from ragspine.service.settings import ServiceSettings
from tests.service_workspace import ServiceKeys

EXAMPLES = 60
# No 5xx, and every status, content type, header and body as documented; schema-invalid data
# refused. Not "schema-valid data accepted": a schema cannot say that a question of only
# invisible characters or a reference date in the year 142 is refused, and both are (400).
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    negative_data_rejection,
]


@pytest.fixture(scope="module")
def fuzzed_app(
    service_workspace: Path, service_keys: ServiceKeys, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[FastAPI]:
    # A copy (keys included): generated review decisions and uploads must not change the
    # workspace other tests read.
    copy = tmp_path_factory.mktemp("fuzz") / "ws"
    shutil.copytree(service_workspace, copy, ignore=shutil.ignore_patterns("corpus"))
    app = create_app(ServiceSettings(workspace=copy))
    with TestClient(app):  # runs the lifespan, so the app's job queue is closed after
        yield app


def test_no_server_error_and_every_response_is_documented(
    fuzzed_app: FastAPI, service_keys: ServiceKeys
) -> None:
    api = from_asgi("/openapi.json", fuzzed_app)
    operations = [result.ok() for result in api.get_all_operations()]
    assert len(operations) >= 12
    for operation in operations:

        @given(case=operation.as_strategy())
        @settings(
            max_examples=EXAMPLES,
            deadline=None,
            database=None,
            suppress_health_check=list(HealthCheck),
        )
        def generated(case: Case) -> None:
            case.call_and_validate(
                headers={"Authorization": f"Bearer {service_keys.internal}"}, checks=CHECKS
            )

        generated()
