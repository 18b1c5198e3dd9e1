"""``python -m ragspine.cli``: the same entry point as the ``ragspine`` console script."""

from __future__ import annotations

from ragspine.cli import main

if __name__ == "__main__":
    main()
