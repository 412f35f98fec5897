"""`python -m trialrun`."""

from trialrun.cli import main

main()
