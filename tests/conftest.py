"""Session-wide plugins for the whole suite: the CI guard against unexpected skips."""

from __future__ import annotations

pytest_plugins = ["tests.skip_guard"]
