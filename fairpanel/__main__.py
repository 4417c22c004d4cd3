"""``python -m fairpanel`` runs the CLI."""

from fairpanel.cli import main

main()
