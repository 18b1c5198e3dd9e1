"""Load a domain profile from TOML; a malformed file fails naming the file, the key and why."""

from __future__ import annotations

import re
import tomllib
from functools import lru_cache
from importlib import resources
from pathlib import Path

from pydantic import ValidationError

from ragspine.errors import ProfileError
from ragspine.profile.model import DomainProfile, ProfileIssue

EXAMPLE_PROFILE_NAME = "acme.toml"


def example_profile_path() -> Path:
    """Path of the example profile shipped inside the package."""
    return Path(str(resources.files("ragspine.profile").joinpath("data", EXAMPLE_PROFILE_NAME)))


def load_profile(path: str | Path | None = None) -> DomainProfile:
    """Load and validate a profile; ``None`` loads the shipped example (cached)."""
    if path is None:
        return _example_profile()
    return _load(Path(path))


@lru_cache(maxsize=1)
def _example_profile() -> DomainProfile:
    return _load(example_profile_path())


def _load(path: Path) -> DomainProfile:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ProfileError(f"{path}: profile file not found") from None
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ProfileError(f"{path}: not valid TOML: {exc}{_offending_line(text, exc)}") from None
    try:
        profile = DomainProfile.model_validate(raw)
    except ValidationError as exc:
        raise ProfileError(f"{path}: {_describe(exc)}") from None
    profile.read_from(path)
    return profile


def _describe(exc: ValidationError) -> str:
    parts = []
    for error in exc.errors():
        key = ".".join(str(p) for p in error["loc"]) or "(top level)"
        reason = error["msg"]
        issue = error.get("ctx", {}).get("error")
        if isinstance(issue, ProfileIssue):
            # A cross-field check runs on the whole profile; it knows which key is wrong.
            key, reason = issue.key, issue.reason
        parts.append(f"key '{key}': {reason}")
    return "; ".join(parts)


_TOML_POSITION = re.compile(r"at line (\d+)")


def _offending_line(text: str, exc: tomllib.TOMLDecodeError) -> str:
    """The source line the decoder stopped at, which names the key a syntax error is in."""
    found = _TOML_POSITION.search(str(exc))
    lines = text.splitlines()
    if found is None or not 1 <= int(found[1]) <= len(lines):
        return ""
    return f" in {lines[int(found[1]) - 1].strip()!r}"
