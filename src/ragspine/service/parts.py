"""The service's parts opened from its settings: the backend over a workspace or a deployment,
its FAQ, its API keys and its job queue, each the embedded kind or the PostgreSQL one.

The HTTP app and ``ragspine mcp`` (stdio) open them the same way. Each opener appends what
closes the part to ``owned``; :func:`close_all` closes them in reverse order.
"""

from __future__ import annotations

from collections.abc import Callable

from ragspine.service.backends import Backend, PostgresBackend, WorkspaceBackend
from ragspine.service.faq.faq_cache import FaqCache, FaqLookup
from ragspine.service.jobs.in_process import InProcessJobQueue
from ragspine.service.jobs.queue import JobQueue
from ragspine.service.keys.store import Authenticator, KeyStore
from ragspine.service.settings import ServiceSettings
from ragspine.workspace import Workspace


def close_all(closers: list[Callable[[], None]]) -> None:
    for close in reversed(closers):
        close()


def open_backend(settings: ServiceSettings, owned: list[Callable[[], None]]) -> Backend:
    backend: Backend
    if settings.workspace is not None:
        backend = WorkspaceBackend(settings, Workspace.open(settings.workspace))
    else:
        backend = PostgresBackend(settings)
    owned.append(backend.close)
    return backend


def open_authenticator(
    settings: ServiceSettings, backend: Backend, owned: list[Callable[[], None]]
) -> Authenticator:
    if isinstance(backend, WorkspaceBackend):
        keys = KeyStore(backend.workspace)
        owned.append(keys.close)
        return keys
    from ragspine.service.keys.pg_keys import PostgresKeyStore

    assert settings.database_url is not None
    assert isinstance(backend, PostgresBackend)
    table = PostgresKeyStore(
        settings.database_url, schema=settings.database_schema, database=backend.database
    )
    owned.append(table.close)
    return table


def open_faq(
    settings: ServiceSettings, backend: Backend, owned: list[Callable[[], None]]
) -> FaqLookup:
    if isinstance(backend, WorkspaceBackend):
        return FaqCache.from_profile(backend.profile)
    from ragspine.service.faq.pg_faq import PostgresFaqStore, PublishedFaq

    assert settings.database_url is not None
    assert isinstance(backend, PostgresBackend)
    store = PostgresFaqStore(
        settings.database_url, schema=settings.database_schema, database=backend.database
    )
    owned.append(store.close)
    return PublishedFaq(store, backend.profile)


def open_job_queue(
    settings: ServiceSettings, backend: Backend, owned: list[Callable[[], None]]
) -> JobQueue:
    if isinstance(backend, WorkspaceBackend):
        local = InProcessJobQueue(backend.workspace, dense=settings.dense)
        owned.append(local.close)
        local.remove_unqueued_uploads()  # left by a server killed in the middle of a request
        return local
    from ragspine.service.jobs.rq_jobs import RQJobQueue

    assert settings.database_url is not None and settings.redis_url is not None
    assert isinstance(backend, PostgresBackend)
    queue = RQJobQueue(
        settings.database_url,
        settings.redis_url,
        schema=settings.database_schema,
        database=backend.database,
    )
    owned.append(queue.close)
    return queue
