"""Whole-number options parsed strictly: `-k 3.0` is a usage error, not 3 trials.

The CLI library reads an `int` option leniently (`3.0` and `+3` pass); `strict_whole_numbers`
gives every `int` option of every command `whole_number` as its parser, once, where the
commands are registered, so a new option is covered without remembering to."""

from __future__ import annotations

import inspect
from typing import Any

import typer
from typer.models import ArgumentInfo, OptionInfo

_INT_ANNOTATIONS = ("int", "int | None", "Optional[int]")


def whole_number(text: str | int) -> int:
    """A whole number written as digits (`3`, `-1`); `3.0`, `1e3` or `three` is refused.
    A default the command declares arrives as an int already."""
    if isinstance(text, int) and not isinstance(text, bool):
        return text
    body = str(text).strip()
    digits = body[1:] if body[:1] == "-" else body
    if not digits.isascii() or not digits.isdigit() or len(digits) > 18:
        raise typer.BadParameter(f"{text!r} is not a whole number; write digits, e.g. 3")
    return int(body)


def _is_int(annotation: Any) -> bool:
    text = annotation if isinstance(annotation, str) else getattr(annotation, "__name__", "")
    return annotation is int or text in _INT_ANNOTATIONS


def _strict(callback: Any) -> None:
    for param in inspect.signature(callback).parameters.values():
        info = param.default
        if (
            isinstance(info, OptionInfo | ArgumentInfo)
            and info.parser is None
            and _is_int(param.annotation)
        ):
            info.parser = whole_number


def strict_whole_numbers(app: typer.Typer) -> None:
    """Give every `int` option and argument of `app`'s commands, groups and their
    callbacks `whole_number` as its parser."""
    callbacks = [c.callback for c in app.registered_commands]
    if app.registered_callback is not None:
        callbacks.append(app.registered_callback.callback)
    for callback in callbacks:
        if callback is not None:
            _strict(callback)
    for group in app.registered_groups:
        if group.typer_instance is not None:
            strict_whole_numbers(group.typer_instance)
