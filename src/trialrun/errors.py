"""Errors a user can cause. The CLI prints them as one line and exits with `exit_code`."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Self, TypeVar

CONFIG_FILE_NAME = "trialrun.toml"
_KEEP: Any = object()
_E = TypeVar("_E", bound="UserError")


class UserError(Exception):
    """Bad input: a file, flag or config the user can fix. Never shown with a traceback.

    The parts are kept apart so a caller can say where a problem was found without
    editing text: `problem` is what is wrong and how to fix it; `place` is the flag,
    config key or task field (`--model`, `[judge] timeout_s`, `tasks[3].environment`);
    `value` is what was given there (shown right after the place: `--model foo:bar`);
    `source` is the file it came from (None: the command line or a caller's argument)
    and `line` the line in it, when known. `describe()` (and `str()`) joins them into
    `source:line: place value: problem`, each part only when known; `at(...)` is the
    same problem found at another place.
    """

    exit_code: int = 2

    def __init__(
        self,
        problem: str,
        exit_code: int = 2,
        *,
        place: str | None = None,
        value: str | None = None,
        source: Path | str | None = None,
        line: int | None = None,
    ) -> None:
        super().__init__(problem)
        self.problem = problem
        self.exit_code = exit_code
        self.place = place
        self.value = value
        self.source = source
        self.line = line

    def describe(self) -> str:
        """The one line the CLI prints: `source:line: place value: problem`."""
        where = "" if self.source is None else str(self.source)
        if where and self.line:
            where = f"{where}:{self.line}"
        label = " ".join(part for part in (self.place, self.value) if part)
        return ": ".join(part for part in (where, label, self.problem) if part)

    def __str__(self) -> str:
        return self.describe()

    def at(
        self,
        place: str | None = _KEEP,
        *,
        source: Path | str | None = _KEEP,
        value: str | None = _KEEP,
        line: int | None = _KEEP,
    ) -> Self:
        """The same problem (same type, exit code and fix), found at another place: a
        caller that knows the flag, config key or file relabels with this, never by
        editing the text. Parts not given are kept (a new `source` drops the line)."""
        state = dict(self.__dict__)
        if source is not _KEEP and line is _KEEP:
            line = None
        parts = (("place", place), ("source", source), ("value", value), ("line", line))
        for name, given in parts:
            if given is not _KEEP:
                state[name] = given
        return _restore(type(self), self.problem, state)

    def shown_with(self, clean: Any) -> Self:
        """A copy whose texts went through `clean` (e.g. `redact`: a spec's URL may hold
        credentials); the parts stay apart."""
        state = dict(self.__dict__)
        state["value"] = clean(self.value) if self.value is not None else None
        return _restore(type(self), clean(self.problem), state)

    def __reduce__(self) -> tuple[Any, ...]:
        # subclasses take other constructor arguments: rebuild from the parts
        return (_restore, (type(self), self.problem, dict(self.__dict__)))


def _restore(cls: type[_E], problem: str, state: dict[str, Any]) -> _E:
    err = cls.__new__(cls)
    Exception.__init__(err, problem)
    err.__dict__.update(state)
    err.problem = problem
    return err


class ConfigError(UserError):
    """A bad project config: `source` is the file (`trialrun.toml` when the config has
    none, e.g. the defaults) and `place` the section and key, e.g. `[judge] timeout_s`
    (None: the file as a whole, e.g. a TOML syntax error)."""

    def __init__(
        self,
        problem: str,
        *,
        place: str | None,
        source: Path | str | None,
        value: str | None = None,
        exit_code: int = 2,
    ) -> None:
        super().__init__(
            problem, exit_code, place=place, value=value, source=source or CONFIG_FILE_NAME
        )


class InfraError(Exception):
    """The harness or a provider failed (unreachable after retries, sandbox failure).

    A trial that ends in one has pass = solve = None and error.kind = "infra" (after its
    re-runs, `[retries] infra_trials`): a failed pass, left out of the solve figures.
    """


class ModelTimeout(Exception):
    """A model call took longer than its per-call timeout: the agent's failure, not infra."""


class ToolError(Exception):
    """A tool refused or failed; its message is what the agent sees."""
