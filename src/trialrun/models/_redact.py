"""Keep API keys out of error messages, results and transcripts (see `trialrun.core`)."""

from trialrun.core import KEY_VARIABLES, redact, secret_values

__all__ = ["KEY_VARIABLES", "redact", "secret_values"]
