"""Load a domain profile from TOML; a malformed file fails naming the file, the key and why."""

from __future__ import annotations

import tomllib
from functools import lru_cache
from importlib import resources
from pathlib import Path

from pydantic import ValidationError

from ragspine.errors import ProfileError
from ragspine.profile.model import DomainProfile

EXAMPLE_PROFILE_NAME = "acme.toml"


def example_profile_path() -> Path:
    """Path of the ACME example profile shipped inside the package."""
    return Path(str(resources.files("ragspine.profile").joinpath("data", EXAMPLE_PROFILE_NAME)))


def load_profile(path: str | Path | None = None) -> DomainProfile:
    """Load and validate a profile; ``None`` loads the shipped ACME example (cached)."""
    if path is None:
        return _example_profile()
    return _load(Path(path))


@lru_cache(maxsize=1)
def _example_profile() -> DomainProfile:
    return _load(example_profile_path())


def _load(path: Path) -> DomainProfile:
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ProfileError(f"{path}: profile file not found") from None
    except tomllib.TOMLDecodeError as exc:
        raise ProfileError(f"{path}: not valid TOML: {exc}") from None
    try:
        return DomainProfile.model_validate(raw)
    except ValidationError as exc:
        raise ProfileError(f"{path}: {_describe(exc)}") from None


def _describe(exc: ValidationError) -> str:
    parts = []
    for error in exc.errors():
        key = ".".join(str(p) for p in error["loc"]) or "(top level)"
        parts.append(f"key '{key}': {error['msg']}")
    return "; ".join(parts)
