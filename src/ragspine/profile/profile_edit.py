"""Small edits to a profile TOML file that keep everything else of it, comments included.

A reviewer mapping a label adds one alias to an entity, metric or channel, or one new metric;
the rest of the file is left byte for byte. Every edit is checked by loading the result as a
profile (so a clash names the alias and the code already holding it) before the file is
replaced, and the previous file is kept as a backup.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from ragspine.errors import ProfileError
from ragspine.profile.loader import load_profile
from ragspine.profile.model import DomainProfile

SECTIONS = {"metric": "metrics", "entity": "entities", "channel": "channels"}
BACKUP_FOLDER = "profile-backups"

_TABLE_HEADER = re.compile(r"^\s*\[\[?\s*([A-Za-z0-9_.\-\"' ]+?)\s*\]\]?\s*(#.*)?$")


def _toml_string(text: str) -> str:
    # A JSON string is a valid TOML basic string for any text (escapes included).
    return json.dumps(text, ensure_ascii=False)


@dataclass(frozen=True)
class _Span:
    start: int  # the line index of the table's header
    end: int  # the line index after its last line


def _tables(lines: list[str], section: str) -> list[_Span]:
    """The ``[[section]]`` tables of the file, in order."""
    spans: list[_Span] = []
    current: int | None = None
    for index, line in enumerate(lines):
        header = _TABLE_HEADER.match(line)
        if header is None:
            continue
        if current is not None:
            spans.append(_Span(current, index))
            current = None
        if line.strip().startswith("[[") and header[1].strip() == section:
            current = index
    if current is not None:
        spans.append(_Span(current, len(lines)))
    return spans


def _code_of(lines: list[str], span: _Span) -> str | None:
    body = "\n".join(lines[span.start + 1 : span.end])
    try:
        found = tomllib.loads(body).get("code")
    except tomllib.TOMLDecodeError:
        return None
    return found if isinstance(found, str) else None


def add_alias(text: str, kind: str, code: str, alias: str) -> str:
    """``text`` with ``alias`` added to the aliases of the ``kind`` (metric, entity, channel)
    ``code``; ``ProfileError`` when the file has no such table."""
    section = SECTIONS[kind]
    lines = text.split("\n")
    span = next((s for s in _tables(lines, section) if _code_of(lines, s) == code), None)
    if span is None:
        raise ProfileError(f"the profile has no {kind} {code!r}")
    for index in range(span.start + 1, span.end):
        if re.match(r"^\s*aliases\s*=", lines[index]):
            return _append_to_array(lines, index, alias)
    code_line = next(
        i for i in range(span.start + 1, span.end) if re.match(r"^\s*code\s*=", lines[i])
    )
    lines.insert(code_line + 1, f"aliases = [{_toml_string(alias)}]")
    return "\n".join(lines)


def _append_to_array(lines: list[str], first: int, alias: str) -> str:
    """Insert ``alias`` before the bracket closing the array that starts on line ``first``."""
    depth, quote, escaped, last = 0, "", False, ""
    for index in range(first, len(lines)):
        line = lines[index]
        start = line.index("=") + 1 if index == first else 0
        for pos in range(start, len(line)):
            char = line[pos]
            if quote:
                if escaped:
                    escaped = False
                elif char == "\\" and quote == '"':
                    escaped = True
                elif char == quote:
                    quote = ""
                continue
            if char in "\"'":
                quote = last = char
            elif char == "#":
                break
            elif char == "[":
                depth += 1
                last = char
            elif char == "]":
                depth -= 1
                if depth == 0:
                    # After "[" or a trailing ",", no comma of our own; TOML lets a comma
                    # open a line, so a bracket on its own line takes the value before it.
                    separator = "" if last == "[" else " " if last == "," else ", "
                    head = line[:pos].rstrip() if line[:pos].strip() else line[:pos]
                    lines[index] = f"{head}{separator}{_toml_string(alias)}{line[pos:]}"
                    return "\n".join(lines)
                last = char
            elif not char.isspace():
                last = char
    raise ProfileError("cannot find the end of an aliases array in the profile")


def add_metric(
    text: str,
    code: str,
    name: str,
    alias: str,
    *,
    unit: str | None,
    kind: str | None,
    currency: str | None = None,
    lines: Sequence[str] = (),
) -> str:
    """``text`` with a new ``[[metrics]]`` table appended; ``name`` is both its names until
    the reviewer translates one (answers then name it in either language). ``lines`` are
    written as given before its aliases (a ``nature`` line)."""
    block = [
        "",
        "# Added by `ragspine review map`: translate name_zh or name_en if need be.",
        "[[metrics]]",
        f"code = {_toml_string(code)}",
        f"name_zh = {_toml_string(name)}",
        f"name_en = {_toml_string(name)}",
    ]
    if unit is not None:
        block.append(f"unit = {_toml_string(unit)}")
    if kind is not None:
        block.append(f"kind = {_toml_string(kind)}")
    if currency is not None:
        block.append(f"currency = {_toml_string(currency)}")
    block += lines
    block.append(f"aliases = [{_toml_string(alias)}]")
    return text.rstrip("\n") + "\n" + "\n".join(block) + "\n"


def checked(text: str, where: Path) -> DomainProfile:
    """``text`` loaded as a profile (relative file names resolved from ``where``'s folder);
    ``ProfileError`` naming the key and reason when it is not a valid one."""
    with tempfile.NamedTemporaryFile(
        "w", suffix=".toml", dir=where.parent, encoding="utf-8", delete=False
    ) as handle:
        handle.write(text)
    try:
        profile = load_profile(handle.name)
    except ProfileError as exc:
        raise ProfileError(str(exc).replace(handle.name, where.name)) from None
    finally:
        os.unlink(handle.name)
    return profile


def replace_profile(path: Path, text: str) -> tuple[DomainProfile, Path | None]:
    """Validate ``text``, keep the current file in ``profile-backups/`` beside it and write
    ``text`` in its place (atomically); the new profile and the backup's path."""
    checked(text, path)
    backup: Path | None = None
    if path.is_file():
        folder = path.parent / BACKUP_FOLDER
        folder.mkdir(exist_ok=True)
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
        backup = folder / f"{path.stem}-{stamp}{path.suffix}"
        backup.write_bytes(path.read_bytes())
    scratch = path.with_name(f".{path.name}.new")
    scratch.write_text(text, encoding="utf-8")
    scratch.replace(path)
    return load_profile(path), backup
