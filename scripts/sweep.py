"""The systematic sweep: every generated question of the demo profile, judged for number safety.

    python scripts/sweep.py [--workspace DIR] [--every N] [--template T] [--examples 5] [--json]

Builds a demo workspace in a temporary folder (or uses ``--workspace``), generates the grid
of ``ragspine.eval.sweep_grid`` from the demo profile and the demo corpus's ground truth, asks
every question with the mock provider and judges each answer with the eval's oracle
(``ragspine.eval.sweep``): fabrication, leaks, and another key's figure. Prints the figures by
template and language, then the failing questions grouped by property and template
(docs/eval.md, "The sweep"). ``--every N`` asks every N-th question only, ``--per-template N``
N of each template, ``--template`` the named templates only.

Exits 1 when any answer fails a property.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Annotated

import typer

from ragspine.cli import guarded, use_utf8_output
from ragspine.demo.tour import build_demo_workspace
from ragspine.eval.oracle import Oracle, demo_truth
from ragspine.eval.sweep import (
    SweepJudge,
    WorkspaceSweepAsker,
    render_sweep,
    run_sweep,
    sample,
    sweep_questions,
    totals,
)
from ragspine.workspace import Workspace

app = typer.Typer(add_completion=False)


@app.command()
@guarded
def main(
    workspace: Annotated[
        Path | None, typer.Option(help="A demo workspace; built in a temporary folder if omitted.")
    ] = None,
    every: Annotated[int, typer.Option(min=1, help="Ask every N-th question only.")] = 1,
    per_template: Annotated[
        int | None, typer.Option(min=1, help="Ask N questions of each template, spread out.")
    ] = None,
    template: Annotated[
        list[str] | None, typer.Option(help="Only these templates (plain, growth, ...).")
    ] = None,
    examples: Annotated[int, typer.Option(help="Failing questions shown per template.")] = 5,
    json_output: Annotated[bool, typer.Option("--json", help="Print the totals as JSON.")] = False,
) -> None:
    use_utf8_output()
    with tempfile.TemporaryDirectory(prefix="ragspine-sweep-") as tmp:
        root = workspace
        if root is None:
            root = Path(tmp) / "ws"
            build_demo_workspace(root)
        profile = Workspace.open(root).profile()
        truth = demo_truth()
        questions = sweep_questions(profile, truth)
        if template:
            questions = [q for q in questions if q.template in template]
        questions = questions[::every]
        if per_template is not None:
            questions = sample(questions, per_template)
        judge = SweepJudge(Oracle(profile, profile.defaults.channel), truth)
        with WorkspaceSweepAsker(root) as ask:
            outcomes = run_sweep(ask, questions, judge)
    if json_output:
        typer.echo(json.dumps(totals(outcomes), indent=2))
    else:
        typer.echo(render_sweep(outcomes, examples=examples))
    if any(count for name, count in totals(outcomes).items() if name != "questions"):
        raise typer.Exit(1)


if __name__ == "__main__":
    app()
