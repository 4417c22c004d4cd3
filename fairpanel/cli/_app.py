"""The ``fairpanel`` Typer app: built here, its commands registered from one module per group."""

from __future__ import annotations

import typer

from fairpanel.cli._compare import compare_command
from fairpanel.cli._export import EXPORT_EPILOG, export_command
from fairpanel.cli._info import personas_command, scenarios_command, schema_command
from fairpanel.cli._label_bias import label_bias_command
from fairpanel.cli._responses import responses_app
from fairpanel.cli._run import estimate_command, report_command, run_command
from fairpanel.cli._simulate import simulate_command

__all__ = ["app"]

app = typer.Typer(
    name="fairpanel",
    help="Measure identity bias in LLM judges and judge panels.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

app.command("run")(run_command)
app.command("report")(report_command)
app.command("export", epilog=EXPORT_EPILOG)(export_command)
app.command("label-bias")(label_bias_command)
app.command("estimate")(estimate_command)
app.command("schema")(schema_command)
app.command("scenarios")(scenarios_command)
app.command("personas")(personas_command)
app.command("compare")(compare_command)
app.command("simulate")(simulate_command)
app.add_typer(responses_app, name="responses")
