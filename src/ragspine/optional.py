"""Lazy imports of optional dependencies that fail with the pip command installing their extra.

The core installs and type-checks without any extra, so an adapter imports its library by name
when it is first used; a missing one is an ``ImportError`` the CLI turns into a usage error.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["import_optional", "install_hint"]


def install_hint(extra: str) -> str:
    """The command that installs ``extra``, e.g. ``pip install 'ragspine[llm]'``."""
    return f"pip install 'ragspine[{extra}]'"


def import_optional(module: str, *, extra: str) -> Any:
    """Import ``module`` by name; if it is missing, raise ``ImportError`` naming ``extra``."""
    try:
        return importlib.import_module(module)
    except ImportError as err:
        raise ImportError(
            f"{module} is not installed; install the extra with: {install_hint(extra)}"
        ) from err
