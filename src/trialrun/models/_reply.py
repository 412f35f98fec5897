"""Reading a provider's JSON reply by its documented shape, one field at a time.

A field that is there but of the wrong type (`message: null`, `content: 5`,
`tool_calls: "x"`, `prompt_tokens: Infinity`) is `MalformedReply`, naming where and what:
"reply choices[0].message is null (expected an object)". It is an `InvalidResponse`, so it is
retried and then an infra error: the provider's fault, never an empty answer charged to
the model. Optional fields may be absent or null alike; unknown keys are passed over.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, TypeVar

from trialrun.models._retry import InvalidResponse

V = TypeVar("V")

MAX_COUNT = 2**53  # a token count past this is not one (nor exact as a float)
_ABSENT: Any = object()


class MalformedReply(InvalidResponse):
    """The reply is JSON, but not of the provider's shape."""


@dataclass(frozen=True, slots=True)
class Field:
    """A value in a reply and the path it was found at ("choices[0].message"; "" for
    the reply itself)."""

    value: Any
    path: str = ""

    def __getitem__(self, key: str) -> Field:
        """The field `key` of this object (absent when this one is absent or null)."""
        path = f"{self.path}.{key}" if self.path else key
        if self.value is _ABSENT or self.value is None:
            return Field(_ABSENT, path)
        return Field(self.object().get(key, _ABSENT), path)

    @property
    def where(self) -> str:
        return f"reply {self.path}" if self.path else "reply"

    @property
    def given(self) -> bool:
        """Present and not null."""
        return self.value is not _ABSENT and self.value is not None

    def object(self) -> dict[str, Any]:
        """The value as a JSON object (required)."""
        return self._typed(dict, "an object")

    def items(self, *, required: bool = False, non_empty: bool = False) -> list[Field]:
        """The elements of a list ([] when optional and absent or null)."""
        if not required and not self.given:
            return []
        values = self._typed(list, "a list")
        if non_empty and not values:
            raise MalformedReply(f"{self.where} is an empty list")
        return [Field(v, f"{self.path}[{i}]") for i, v in enumerate(values)]

    def text(self, *, required: bool = False) -> str | None:
        """A string (None when optional and absent or null)."""
        if not required and not self.given:
            return None
        return self._typed(str, "text")

    def optional_object(self) -> dict[str, Any] | None:
        return self.object() if self.given else None

    def count(self) -> int:
        """A token count: a whole number from 0 (0 when absent or null)."""
        value = self.value
        if not self.given:
            return 0
        if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_COUNT:
            return value
        if isinstance(value, float) and value.is_integer() and 0 <= value <= MAX_COUNT:
            return int(value)  # 12.0, as some servers write counts
        raise MalformedReply(f"{self.where} is {shown(value)} (expected a token count)")

    def check(self, *types: type, expected: str) -> Any:
        """The value when it is absent, null or one of `types`; else MalformedReply."""
        if not self.given:
            return None
        if isinstance(self.value, types) and not isinstance(self.value, bool):
            return self.value
        raise MalformedReply(f"{self.where} is {shown(self.value)} (expected {expected})")

    def _typed(self, kind: type[V], expected: str) -> V:
        if isinstance(self.value, kind) and not isinstance(self.value, bool):
            return self.value
        raise MalformedReply(f"{self.where} is {shown(self.value)} (expected {expected})")


def shown(value: Any) -> str:
    """What a JSON value is, in a few words: "null", "a number (5)", "text ('x')"."""
    if value is _ABSENT:
        return "missing"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(value, int | float):
        if isinstance(value, int) and abs(value) >= 10**20:  # no repr of 5,000 digits
            return "a number (over 20 digits)"
        return f"a number ({value!r})"
    if isinstance(value, str):
        return f"text ({value[:30]!r}{'...' if len(value) > 30 else ''})"
    if isinstance(value, list):
        return "a list"
    return "an object"
