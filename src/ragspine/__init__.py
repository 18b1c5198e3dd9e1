"""RAGSpine: exact numbers with their source, or an honest "not found"."""

from __future__ import annotations

__version__ = "0.1.0"
