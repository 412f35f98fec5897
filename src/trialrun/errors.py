"""Errors a user can cause. The CLI prints them as one line and exits with `exit_code`."""

from __future__ import annotations


class UserError(Exception):
    """Bad input: a file, flag or config the user can fix. Never shown with a traceback."""

    exit_code: int = 2

    def __init__(self, message: str, exit_code: int = 2) -> None:
        super().__init__(message)
        self.exit_code = exit_code


class InfraError(Exception):
    """The harness or a provider failed (unreachable after retries, sandbox failure).

    A trial that ends in one has pass = solve = None and error.kind = "infra" (after its
    re-runs, `[retries] infra_trials`): a failed pass, left out of the solve figures.
    """


class ModelTimeout(Exception):
    """A model call took longer than its per-call timeout: the agent's failure, not infra."""


class ToolError(Exception):
    """A tool refused or failed; its message is what the agent sees."""
