"""The ``fairpanel`` command line: parses arguments, calls the library, prints.

The only package that imports typer and rich; nothing else imports it. ``_app`` builds the app and
registers the commands, one module per group: ``_run`` (run, report, estimate), ``_status``,
``_export`` (export, responses export), ``_info`` (schema, scenarios, personas; ``_study_info`` for
study files), ``_label_bias``, ``_compare``, ``_simulate``; the consoles, exit codes and progress
bars they share are in ``_console``. After ``run`` and ``report``, ``_answer`` prints the short
summary and ``_tables`` (``--tables``) the full tables; ``_live`` draws a run's progress with the
engine's counters (``RunPulse``).
"""

from fairpanel.cli._app import app, main

__all__ = ["app", "main"]
