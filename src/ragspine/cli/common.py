"""What every ``ragspine`` command shares: the error wrapper, option parsing and UTF-8 output.

A leaf of the CLI package: the command modules import from here, never from each other or from
``ragspine.cli`` itself, so registering the commands cannot form an import cycle.
"""

from __future__ import annotations

import functools
import io
import sys
from collections.abc import Callable
from datetime import date, datetime
from pathlib import Path
from typing import Annotated, ParamSpec

import typer

from ragspine.errors import RagSpineError, UsageError, mapping_for
from ragspine.profile.sensitivity import Sensitivity

P = ParamSpec("P")

WorkspaceOption = Annotated[
    Path, typer.Option("--workspace", "-w", help="Workspace folder (holds ragspine.db).")
]


def guarded(func: Callable[P, None]) -> Callable[P, None]:
    """Turn a ``RagSpineError`` into ``error: <message>`` on stderr and its mapped exit code."""

    @functools.wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> None:
        try:
            func(*args, **kwargs)
        except RagSpineError as err:
            typer.echo(f"error: {err}", err=True)
            raise typer.Exit(mapping_for(err).exit_code) from None

    return wrapper


def command_in(group: typer.Typer, name: str) -> Callable[[Callable[P, None]], Callable[P, None]]:
    """Register a function as the ``name`` subcommand of ``group``, inside :func:`guarded`."""

    def register(func: Callable[P, None]) -> Callable[P, None]:
        return group.command(name)(guarded(func))

    return register


def parse_reference_date(raw: str | None) -> date | None:
    if raw is None:
        return None
    try:
        return datetime.strptime(raw, "%Y-%m-%d").date()
    except ValueError:
        raise UsageError(f"--reference-date {raw!r} is not a date; use YYYY-MM-DD") from None


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
