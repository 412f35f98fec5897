"""`python -m trialrun.cli`."""

from trialrun.cli import main

main()
