"""Reading the shipped JSONL sets: one record per line, errors naming the file and line."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Protocol, TypeVar

from ragspine.errors import UsageError


class _Identified(Protocol):
    @property
    def id(self) -> str: ...


T = TypeVar("T", bound=_Identified)


def read_records(source: Path, parse: Callable[[str], T], what: str) -> list[T]:
    """Parse every non-blank line; ids must be unique and the file must not be empty."""
    try:
        lines = source.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise UsageError(f"cannot read {what} {source}: {exc.strerror}") from None
    records: list[T] = []
    seen: set[str] = set()
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            record = parse(line)
        except ValueError as exc:
            raise UsageError(f"{source}:{number}: {exc}") from None
        if record.id in seen:
            raise UsageError(f"{source}:{number}: duplicate id {record.id!r}")
        seen.add(record.id)
        records.append(record)
    if not records:
        raise UsageError(f"{what} {source} holds no records")
    return records
