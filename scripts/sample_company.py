"""Write the documents of Lotus Bay Holdings, an invented company with no profile of its own,
to follow docs/own-company.md without documents of your own.

    python scripts/sample_company.py DIR

Four files: a workbook, a deck, a Word report and a Markdown memo (HK$ and RMB, a fiscal year
ending on 31 March, labels in English and Chinese). The same files on every run.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ragspine.cli import guarded, use_utf8_output
from ragspine.demo import lotus


@guarded
def write(
    folder: Annotated[Path, typer.Argument(help="Folder to write the documents into.")],
) -> None:
    """Write Lotus Bay Holdings' four documents into FOLDER."""
    lotus.build(folder)
    typer.echo(f"Wrote the documents of {lotus.COMPANY} into {folder}.")


if __name__ == "__main__":
    use_utf8_output()
    typer.run(write)
