"""``python -m fairpanel`` runs the CLI."""

from fairpanel.judging import app

app()
