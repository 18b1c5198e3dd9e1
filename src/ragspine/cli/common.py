"""What every ``ragspine`` command shares: one-line errors, option parsing and UTF-8 output.

A leaf of the CLI package: the command modules import from here, never from each other or from
``ragspine.cli`` itself, so registering the commands cannot form an import cycle.
"""

from __future__ import annotations

import functools
import io
import os
import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Annotated, Any, ParamSpec

import typer

# Typer vendors Click: its usage errors are these classes, not the `click` package's.
from typer._click.exceptions import ClickException, NoArgsIsHelpError
from typer._click.exceptions import UsageError as FrameworkUsageError
from typer.core import TyperGroup

from ragspine import __version__
from ragspine.agent.agent import FIRST_REFERENCE_DATE, LAST_REFERENCE_DATE
from ragspine.errors import ERROR_MAP, RagSpineError, UsageError, mapping_for
from ragspine.profile.sensitivity import Sensitivity
from ragspine.terminal import plain

P = ParamSpec("P")

WorkspaceOption = Annotated[
    Path, typer.Option("--workspace", "-w", help="Workspace folder (holds ragspine.db).")
]

# The default of --schema; kept here so `--help` needs no psycopg (checked by a test).
DEFAULT_SCHEMA = "ragspine"

# The variables every command reads, as `serve` does (docs/scale-out.md, "One configuration
# everywhere"); a flag on the command line wins over its variable.
WORKSPACE_VARIABLE = "RAGSPINE_WORKSPACE"
DATABASE_URL_VARIABLE = "RAGSPINE_DATABASE_URL"
SCHEMA_VARIABLE = "RAGSPINE_DATABASE_SCHEMA"
REDIS_URL_VARIABLE = "RAGSPINE_REDIS_URL"
INDEX_DIR_VARIABLE = "RAGSPINE_INDEX_DIR"


def from_environment(variable: str) -> str | None:
    """The variable's value, ``None`` when unset or blank."""
    value = os.environ.get(variable, "").strip()
    return value or None


def chosen(flag: str | None, variable: str, default: str | None = None) -> tuple[str | None, str]:
    """A setting and where it came from: the flag, else the variable, else the default."""
    if flag is not None:
        return flag, "flag"
    value = from_environment(variable)
    if value is not None:
        return value, f"${variable}"
    return default, "default"


def announce(what: str) -> None:
    """Say on stderr, once at start, what a command runs against (passwords hidden)."""
    from ragspine.storage.postgres.connection import redact

    typer.echo(plain(f"ragspine: using {redact(what)}"), err=True)


def announce_database(url: str, url_from: str, schema: str, schema_from: str) -> None:
    announce(f"PostgreSQL {url} [{url_from}], schema {schema} [{schema_from}]")


# The commands that run on either backend take these four options; `choose_target` checks
# that exactly one backend was named.
TargetWorkspaceOption = Annotated[
    Path | None,
    typer.Option(
        "--workspace", "-w", help="Workspace folder (holds ragspine.db); or --database-url."
    ),
]
TargetDatabaseOption = Annotated[
    str | None,
    typer.Option(
        "--database-url",
        help="PostgreSQL URL, postgresql://USER@HOST:PORT/DATABASE, instead of --workspace.",
    ),
]
TargetSchemaOption = Annotated[
    str | None,
    typer.Option(help=f"With --database-url: the schema holding the tables [{DEFAULT_SCHEMA}]."),
]
TargetIndexOption = Annotated[
    Path | None,
    typer.Option(
        "--index-dir",
        help="With --database-url: this process's search index folder, kept up to date from "
        "the database (a temporary one if omitted).",
    ),
]


@dataclass(frozen=True)
class ServerTarget:
    """A PostgreSQL schema named on the command line, and the search index folder to use."""

    url: str
    schema: str
    index_dir: Path | None

    def options(self) -> str:
        """The options naming it again (password hidden), for the commands a message suggests."""
        from ragspine.storage.postgres.connection import redact

        return f"--database-url {redact(self.url)} --schema {self.schema}"


def check_database_url(url: str) -> str:
    if not url.startswith(("postgresql://", "postgres://")):
        raise UsageError(f"--database-url must be a postgresql:// URL, got {url.split('@')[-1]!r}")
    return url


def choose_target(
    workspace: Path | None,
    database_url: str | None,
    schema: str | None = None,
    index_dir: Path | None = None,
) -> Path | ServerTarget:
    """The workspace folder or the PostgreSQL target the options name; exactly one must be
    given, and --schema / --index-dir only with --database-url (``UsageError`` otherwise).

    A backend on the command line wins; without one, ``$RAGSPINE_DATABASE_URL`` (with
    ``$RAGSPINE_DATABASE_SCHEMA`` and ``$RAGSPINE_INDEX_DIR``) or else ``$RAGSPINE_WORKSPACE``
    names it. A PostgreSQL target is announced on stderr with where each part came from."""
    if workspace is not None and database_url is not None:
        raise UsageError("give --workspace or --database-url, not both")
    url_from = "flag"
    if workspace is None and database_url is None:
        database_url, url_from = chosen(None, DATABASE_URL_VARIABLE)
        if database_url is None:
            folder = from_environment(WORKSPACE_VARIABLE)
            workspace = Path(folder) if folder is not None else None
    if database_url is not None:
        name, schema_from = chosen(schema, SCHEMA_VARIABLE, DEFAULT_SCHEMA)
        folder, folder_from = chosen(
            str(index_dir) if index_dir is not None else None, INDEX_DIR_VARIABLE
        )
        target = ServerTarget(
            check_database_url(database_url),
            name or DEFAULT_SCHEMA,
            Path(folder) if folder is not None else None,
        )
        announce_database(target.url, url_from, target.schema, schema_from)
        if target.index_dir is not None:
            announce(f"index folder {target.index_dir} [{folder_from}]")
        return target
    if workspace is None:
        raise UsageError(
            "give --workspace DIR (a workspace folder) or --database-url postgresql://... "
            "(a PostgreSQL database upgraded by `ragspine db upgrade`), or set "
            f"{WORKSPACE_VARIABLE} or {DATABASE_URL_VARIABLE}"
        )
    extra = [name for name, v in (("--schema", schema), ("--index-dir", index_dir)) if v]
    if extra:
        raise UsageError(f"{' and '.join(extra)} only go with --database-url, not --workspace")
    return workspace


def deployment(url: str | None, schema: str | None) -> tuple[str, str]:
    """The PostgreSQL URL and schema of a command that runs on a deployment only: each from
    its flag, else its variable, else (the schema) the default; announced on stderr."""
    found, url_from = chosen(url, DATABASE_URL_VARIABLE)
    if found is None:
        raise UsageError(f"give --database-url postgresql://... or set {DATABASE_URL_VARIABLE}")
    name, schema_from = chosen(schema, SCHEMA_VARIABLE, DEFAULT_SCHEMA)
    name = name or DEFAULT_SCHEMA
    announce_database(check_database_url(found), url_from, name, schema_from)
    return found, name


def guarded(func: Callable[P, None]) -> Callable[P, None]:
    """Turn a ``RagSpineError`` into ``error: <message>`` on stderr and its mapped exit code."""

    @functools.wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> None:
        try:
            func(*args, **kwargs)
        except RagSpineError as err:
            raise typer.Exit(report_error(err)) from None

    return wrapper


# Set (to anything) to print the traceback of an unexpected failure above its error line.
DEBUG_ENV = "RAGSPINE_DEBUG"


def report_error(err: Exception) -> int:
    """Print ``err`` as one plain ``error: <message>`` line on stderr; return its exit code.

    A project error exits with the code ``ragspine.errors`` maps it to. The framework's usage
    errors (unknown option, missing argument, bad choice) and a missing optional dependency (an
    ``ImportError`` naming its extra, see ``ragspine.optional``) are usage errors: 2. An
    ``OSError`` or anything unexpected is a failure of the work: 1, named by its class;
    with ``RAGSPINE_DEBUG`` set, its traceback is printed first.
    """
    if os.environ.get(DEBUG_ENV) and not isinstance(err, RagSpineError | ClickException):
        traceback.print_exception(err, file=sys.stderr)  # the one line still follows
    message = " ".join(plain(_message(err)).split())
    typer.echo(f"error: {message}", err=True)
    if isinstance(err, RagSpineError):
        return mapping_for(err).exit_code
    if isinstance(err, FrameworkUsageError | ImportError):
        return ERROR_MAP[UsageError].exit_code
    if isinstance(err, ClickException):
        return err.exit_code
    return 1


def _message(err: Exception) -> str:
    if isinstance(err, FrameworkUsageError) and err.ctx is not None:
        return f"{err.format_message().rstrip('.')}; see `{err.ctx.command_path} --help`"
    if isinstance(err, ClickException):
        return err.format_message()
    if isinstance(err, RagSpineError | ImportError):
        return str(err)
    if isinstance(err, OSError) and err.strerror:
        return f"{err.filename}: {err.strerror}" if err.filename else err.strerror
    return f"unexpected {type(err).__name__}: {err}"


class OneLineErrors(TyperGroup):
    """The root command group: every error ends in one line, the framework's own included.

    Click would print a usage block and a boxed panel, and an exception a traceback; here each
    becomes one ``error: <message>`` line (see :func:`report_error`). ``--help`` and a bare
    ``ragspine`` still print the help.
    """

    def main(self, *args: Any, **kwargs: Any) -> Any:
        standalone = kwargs.get("standalone_mode", True)
        kwargs["standalone_mode"] = False
        try:
            result = super().main(*args, **kwargs)
        except NoArgsIsHelpError as err:
            if not standalone:
                raise
            err.show()
            sys.exit(err.exit_code)
        except typer.Abort:
            if not standalone:
                raise
            typer.echo("error: aborted", err=True)
            sys.exit(1)
        except Exception as err:
            if not standalone:
                raise
            sys.exit(report_error(err))
        if not standalone:
            return result
        # Outside standalone mode Click returns the code of a `typer.Exit` instead of exiting.
        sys.exit(result if isinstance(result, int) else 0)


def package_version() -> str:
    """The installed distribution's version (the source tree's when it is not installed)."""
    try:
        return version("ragspine")
    except PackageNotFoundError:
        return __version__


def print_version(value: bool) -> None:
    """``--version``: print ``ragspine X.Y.Z`` and stop before any command runs."""
    if value:
        typer.echo(f"ragspine {package_version()}")
        raise typer.Exit()


def command_in(group: typer.Typer, name: str) -> Callable[[Callable[P, None]], Callable[P, None]]:
    """Register a function as the ``name`` subcommand of ``group``, inside :func:`guarded`."""

    def register(func: Callable[P, None]) -> Callable[P, None]:
        return group.command(name)(guarded(func))

    return register


def parse_reference_date(raw: str | None) -> date | None:
    if raw is None:
        return None
    try:
        day = datetime.strptime(raw, "%Y-%m-%d").date()
    except ValueError:
        raise UsageError(f"--reference-date {raw!r} is not a date; use YYYY-MM-DD") from None
    if not FIRST_REFERENCE_DATE <= day <= LAST_REFERENCE_DATE:
        raise UsageError(
            f"--reference-date {raw!r} is out of range; use a date from "
            f"{FIRST_REFERENCE_DATE.isoformat()} to {LAST_REFERENCE_DATE.isoformat()}"
        )
    return day


def parse_clearance(raw: str) -> Sensitivity:
    try:
        return Sensitivity.parse(raw)
    except ValueError as err:
        raise UsageError(f"--clearance: {err}") from None


def use_utf8_output() -> None:
    """Write UTF-8 whatever the locale says, so Chinese answers never fail to print."""
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(encoding="utf-8")
