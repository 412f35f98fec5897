"""The one failure a domain tool raises: its text is what the agent reads."""

from __future__ import annotations


class ToolFailure(Exception):
    """A refused tool call (unknown record, bad argument, policy of the tool): the call
    returns `Error: <message>` and the database is left as it was."""
