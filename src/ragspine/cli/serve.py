"""``ragspine serve``: the HTTP service over one workspace or one PostgreSQL deployment, on
uvicorn."""

from __future__ import annotations

import copy
import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ragspine.cli.common import (
    DATABASE_URL_VARIABLE,
    DEFAULT_SCHEMA,
    INDEX_DIR_VARIABLE,
    REDIS_URL_VARIABLE,
    SCHEMA_VARIABLE,
    TargetDatabaseOption,
    TargetIndexOption,
    TargetWorkspaceOption,
    announce,
    announce_database,
    check_database_url,
    from_environment,
    parse_clearance,
)
from ragspine.errors import UsageError

if TYPE_CHECKING:
    from ragspine.service.settings import ServiceSettings


def serve(
    workspace: TargetWorkspaceOption = None,
    database_url: TargetDatabaseOption = None,
    schema: Annotated[
        str | None,
        typer.Option(
            help="With --database-url: the schema holding the tables "
            f"[env RAGSPINE_DATABASE_SCHEMA; default {DEFAULT_SCHEMA}]."
        ),
    ] = None,
    redis_url: Annotated[
        str | None,
        typer.Option(
            "--redis-url",
            help="With --database-url: Redis URL of the RQ queue `ragspine worker` serves "
            "[env RAGSPINE_REDIS_URL].",
        ),
    ] = None,
    index_dir: TargetIndexOption = None,
    profile: Annotated[
        Path | None,
        typer.Option(
            help="With --database-url: domain profile TOML (its FAQ), as the workers' "
            "[env RAGSPINE_PROFILE; default: the bundled example profile]."
        ),
    ] = None,
    host: Annotated[
        str | None, typer.Option(help="Address to bind [env RAGSPINE_HOST; default 127.0.0.1].")
    ] = None,
    port: Annotated[
        int | None, typer.Option(help="Port to bind [env RAGSPINE_PORT; default 8000].")
    ] = None,
    workers: Annotated[
        int | None, typer.Option(help="Worker processes [env RAGSPINE_WORKERS; default 1].")
    ] = None,
    no_auth: Annotated[
        bool,
        typer.Option("--no-auth", help="Serve without API keys (loopback addresses only)."),
    ] = False,
    clearance: Annotated[
        str | None,
        typer.Option(
            help="With --no-auth: the clearance every request gets (default CONFIDENTIAL)."
        ),
    ] = None,
) -> None:
    """Serve a workspace, or a PostgreSQL deployment with RQ workers, over HTTP (OpenAPI at
    /docs); flags override RAGSPINE_* variables."""
    import uvicorn
    from pydantic import ValidationError

    from ragspine.service.http.app import create_app
    from ragspine.service.http.connection import GuardedProtocol
    from ragspine.service.settings import ServiceSettings

    if workspace is not None and database_url is not None:
        raise UsageError("give --workspace or --database-url, not both")
    overrides: dict[str, object] = {}
    # The backend named on the command line wins over one an environment variable names.
    if workspace is not None:
        overrides.update(workspace=workspace, database_url=None)
    if database_url is not None:
        overrides.update(database_url=check_database_url(database_url), workspace=None)
    for name, value in (
        ("host", host),
        ("port", port),
        ("workers", workers),
        ("database_schema", schema),
        ("redis_url", redis_url),
        ("index_dir", index_dir),
        ("profile", profile),
    ):
        if value is not None:
            overrides[name] = value
    if no_auth:
        overrides["no_auth"] = True
    if clearance is not None:
        overrides["no_auth_clearance"] = parse_clearance(clearance)
    try:
        settings = ServiceSettings(**overrides)  # type: ignore[arg-type]
    except ValidationError as err:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in err.errors())
        raise UsageError(f"invalid service settings: {problems}") from None
    if clearance is not None and not settings.no_auth:
        raise UsageError("--clearance applies only with --no-auth (a key carries its own)")
    if settings.database_url is not None:
        _announce(settings, database_url, schema, redis_url, index_dir)
    # One access line per request, ours (it names the route template and the key's name);
    # uvicorn's own would add a second with the raw path and query.
    log_config = _log_config()
    if settings.workers == 1:
        uvicorn.run(
            create_app(settings),
            host=settings.host,
            port=settings.port,
            log_config=log_config,
            access_log=False,
            http=GuardedProtocol,
        )
        return
    # Each worker process builds its own app from the environment: pass the settings on.
    for name, value in settings.model_dump().items():
        variable = f"RAGSPINE_{name.upper()}"
        if value is None:
            os.environ.pop(variable, None)
        else:
            os.environ[variable] = str(getattr(value, "value", value))
    uvicorn.run(
        "ragspine.service.http.app:app_from_env",
        factory=True,
        host=settings.host,
        port=settings.port,
        workers=settings.workers,
        log_config=log_config,
        access_log=False,
        http=GuardedProtocol,
    )


def _announce(
    settings: ServiceSettings,
    database_url: str | None,
    schema: str | None,
    redis_url: str | None,
    index_dir: Path | None,
) -> None:
    """Say on stderr what the deployment's settings are and where each came from."""

    def source(flag: object, variable: str) -> str:
        if flag is not None:
            return "flag"
        return f"${variable}" if from_environment(variable) is not None else "default"

    assert settings.database_url is not None
    announce_database(
        settings.database_url,
        source(database_url, DATABASE_URL_VARIABLE),
        settings.database_schema,
        source(schema, SCHEMA_VARIABLE),
    )
    announce(f"Redis {settings.redis_url} [{source(redis_url, REDIS_URL_VARIABLE)}]")
    folder = settings.index_dir or "a temporary folder"
    announce(f"index folder {folder} [{source(index_dir, INDEX_DIR_VARIABLE)}]")


def _log_config() -> dict[str, Any]:
    """uvicorn's logging setup plus the service's loggers: ``ragspine.access`` on stdout,
    ``ragspine.service`` (failures, with their request id) on stderr."""
    from uvicorn.config import LOGGING_CONFIG

    config = copy.deepcopy(LOGGING_CONFIG)
    config["formatters"]["ragspine"] = {
        "class": "ragspine.service.http.access_log.LineFormatter",
        "format": "%(asctime)s %(levelname)s %(message)s",
    }
    config["handlers"]["ragspine_access"] = {
        "class": "logging.StreamHandler",
        "formatter": "ragspine",
        "stream": "ext://sys.stdout",
    }
    config["handlers"]["ragspine_errors"] = {
        "class": "logging.StreamHandler",
        "formatter": "ragspine",
        "stream": "ext://sys.stderr",
    }
    config["loggers"]["ragspine.access"] = {
        "handlers": ["ragspine_access"],
        "level": "INFO",
        "propagate": False,
    }
    config["loggers"]["ragspine.service"] = {
        "handlers": ["ragspine_errors"],
        "level": "INFO",
        "propagate": False,
    }
    return config
