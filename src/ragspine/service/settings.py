"""The service's settings: ``RAGSPINE_*`` environment variables, overridden by ``serve``'s flags.

Every limit the HTTP edge enforces lives here, so a deployment tunes them in one place.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from pydantic import BeforeValidator, Field, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from ragspine.agent.agent import MAX_QUESTION_CHARS
from ragspine.errors import UsageError
from ragspine.llm.factory import ProviderName
from ragspine.profile.sensitivity import DEFAULT_CLEARANCE, Sensitivity
from ragspine.service.http.uploads import UploadLimits

# The only hosts ``--no-auth`` may bind: with no key check the port must not leave the machine.
LOOPBACK_HOSTS = frozenset({"127.0.0.1", "::1", "localhost"})


def _level(raw: object) -> object:
    # The project's forgiving parser: "internal" and " INTERNAL " both name the level.
    return Sensitivity.parse(raw) if isinstance(raw, str) else raw


class ConnectionLimits(BaseSettings):
    """What one connection may take of a ``ragspine serve`` process (``RAGSPINE_<NAME>``; see
    ``ragspine.service.http.connection``): a request's head must be whole within
    ``header_timeout`` seconds and ``max_header_bytes``; its body must keep up
    ``body_min_rate`` bytes a second after the first ``body_timeout`` seconds."""

    model_config = SettingsConfigDict(env_prefix="RAGSPINE_", extra="ignore", frozen=True)

    # Apache's mod_reqtimeout defaults: 20 s for the head, 20 s and then 500 B/s for the body.
    header_timeout: float = Field(default=20.0, gt=0)
    # Headers of any client of this API fit in a few hundred bytes; browsers' in a few KB.
    max_header_bytes: int = Field(default=32_768, ge=1_024)
    body_timeout: float = Field(default=20.0, gt=0)
    body_min_rate: int = Field(default=500, ge=1)


class ServiceSettings(BaseSettings):
    """What one ``ragspine serve`` process serves and how (read from ``RAGSPINE_<NAME>``)."""

    model_config = SettingsConfigDict(env_prefix="RAGSPINE_", extra="ignore", frozen=True)

    # What is served: a workspace folder, or a PostgreSQL deployment with its Redis queue.
    workspace: Path | None = None
    database_url: str | None = None
    # storage.postgres's DEFAULT_SCHEMA, spelled out: importing it would need psycopg here.
    database_schema: str = "ragspine"
    redis_url: str | None = None
    # With database_url: this process's followed search index (default: a temporary folder)
    # and the profile uploads are ingested with and the FAQ comes from (default: the bundled
    # example profile).
    index_dir: Path | None = None
    profile: Path | None = None
    host: str = "127.0.0.1"
    port: int = Field(default=8000, ge=0, le=65535)
    workers: int = Field(default=1, ge=1, description="uvicorn worker processes")
    ask_threads: int = Field(
        default=4, ge=1, description="threads answering questions in each worker process"
    )
    ask_inline: bool = Field(
        default=True,
        description=(
            "answer on the event loop when a question needs no I/O (a workspace, the offline "
            "provider, no dense retrieval, no reranking) instead of on the thread pool"
        ),
    )
    direct_routes: bool = Field(
        default=True,
        description=(
            "serve /v1/ask and /v1/ask/stream from the edge middleware, past FastAPI's router "
            "(the same endpoint functions and error handlers; docs/service.md)"
        ),
    )
    max_pending: int = Field(
        default=64,
        ge=1,
        description="requests one process takes on at once; more are refused with 503",
    )
    no_auth: bool = False
    no_auth_clearance: Annotated[Sensitivity, BeforeValidator(_level)] = DEFAULT_CLEARANCE
    # JSON requests: a question and a short chat history fit in far less.
    max_body_bytes: int = Field(default=1_000_000, ge=1)
    max_question_chars: int = Field(default=MAX_QUESTION_CHARS, ge=1, le=MAX_QUESTION_CHARS)
    # Uploads (POST /v1/ingest/jobs): per file, per request and how many files at once.
    max_upload_file_bytes: int = Field(default=50_000_000, ge=1)
    max_upload_request_bytes: int = Field(default=200_000_000, ge=1)
    max_upload_files: int = Field(default=20, ge=1)
    # The LLM provider, as `ragspine ask` takes it.
    provider: ProviderName = ProviderName.MOCK
    model: str | None = None
    base_url: str | None = None
    dense: str | None = None
    rerank: bool = False

    def upload_limits(self) -> UploadLimits:
        return UploadLimits(
            max_file_bytes=self.max_upload_file_bytes,
            max_request_bytes=self.max_upload_request_bytes,
            max_files=self.max_upload_files,
        )

    @model_validator(mode="after")
    def _one_backend(self) -> ServiceSettings:
        if (self.workspace is None) == (self.database_url is None):
            raise UsageError(
                "serve one workspace (--workspace DIR) or one PostgreSQL deployment "
                "(--database-url URL --redis-url URL), not "
                + ("both" if self.workspace is not None else "neither")
            )
        if self.database_url is None:
            extra = [name for name in ("redis_url", "index_dir", "profile") if getattr(self, name)]
            if extra:
                options = " and ".join(f"--{name.replace('_', '-')}" for name in extra)
                raise UsageError(f"{options} only go with --database-url, not --workspace")
        elif self.redis_url is None:
            raise UsageError(
                "--database-url needs --redis-url: uploads are queued on RQ for `ragspine worker`"
            )
        elif self.dense is not None:
            raise UsageError("dense retrieval runs on workspaces only for now, not --database-url")
        return self

    @model_validator(mode="after")
    def _loopback_without_keys(self) -> ServiceSettings:
        if self.no_auth and self.host.strip("[]") not in LOOPBACK_HOSTS:
            raise UsageError(
                f"--no-auth serves without API keys, so it binds only to loopback "
                f"(127.0.0.1, ::1, localhost), not {self.host!r}; drop --no-auth and create "
                "keys with `ragspine keys create` to serve other hosts"
            )
        return self
