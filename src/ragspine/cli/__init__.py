"""The ``ragspine`` command line: quickstart, demo, init, load-fixtures, ask, chat, ingest,
serve, mcp, worker, profile, review, documents, facts, eval, jobs, keys, faq, db.

Every error ends with one plain line ``error: <message>`` on stderr and the exit code from
``ragspine.errors`` (0 success, 1 the work ran but failed, 2 usage or missing input), so scripts
can rely on the codes: a ``RagSpineError`` inside one error wrapper (:func:`guarded`), the
framework's usage errors and anything unexpected in the root group (:class:`OneLineErrors`).
The commands live in one module per group; this module puts them on ``app`` in the order
``--help`` lists.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated

import typer

from ragspine.cli import (
    ask,
    chat,
    db,
    demo,
    documents,
    evaluate,
    facts,
    faq,
    ingest,
    jobs,
    keys,
    mcp_server,
    profile,
    review_map,
    serve,
    worker,
)
from ragspine.cli.common import (
    OneLineErrors,
    guarded,
    parse_reference_date,
    print_version,
    use_utf8_output,
)

__all__ = ["app", "guarded", "main", "parse_reference_date", "use_utf8_output"]

app = typer.Typer(
    name="ragspine",
    help="Exact numbers with their source, or an honest 'not found'.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    # Plain help and errors: no boxed panels, and no markup read from file names.
    rich_markup_mode=None,
    cls=OneLineErrors,
)


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            help="Print the version (ragspine X.Y.Z) and exit.",
            callback=print_version,
            is_eager=True,
        ),
    ] = False,
) -> None:
    """Exact numbers with their source, or an honest 'not found'."""


_COMMANDS: tuple[tuple[str, Callable[..., None]], ...] = (
    ("quickstart", demo.quickstart),
    ("demo", demo.demo),
    ("init", demo.init),
    ("load-fixtures", demo.load_fixtures),
    ("ask", ask.ask),
    ("chat", chat.chat),
    ("ingest", ingest.ingest_command),
    ("serve", serve.serve),
    ("mcp", mcp_server.mcp),
    ("worker", worker.worker),
)
for _name, _func in _COMMANDS:
    app.command(_name)(guarded(_func))
app.add_typer(profile.profile_app, name="profile")
ingest.review_app.command("map")(guarded(review_map.review_map))
app.add_typer(ingest.review_app, name="review")
app.add_typer(documents.documents_app, name="documents")
app.add_typer(facts.facts_app, name="facts")
app.add_typer(evaluate.eval_app, name="eval")
app.add_typer(jobs.jobs_app, name="jobs")
app.add_typer(keys.keys_app, name="keys")
app.add_typer(faq.faq_app, name="faq")
app.add_typer(db.db_app, name="db")


def main() -> None:
    """Console-script entry point (``ragspine``)."""
    use_utf8_output()
    app()
