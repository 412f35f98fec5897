"""The trialrun version (kept in one low module so any package may record it)."""

__version__ = "0.1.0"
