"""A fast YAML reader for the common task file: libyaml (PyYAML's C parser), YAML 1.2.

ruamel's round-trip parser (pure Python, line numbers for every key) costs milliseconds
per file; libyaml a tenth of that. The fast reader only answers when it is sure to give
what the round-trip reader gives: YAML 1.2 plain scalars (`yes` is a string, `1e3` a
float), simple decimal ints and floats, no duplicate keys. Anything else it is unsure of
(a `%YAML` directive, a tag, a timestamp, a merge key, `0x1F`, `1_000`, a duplicate key,
a parse error) raises `Unsure`, and the caller takes the round-trip path, which gives the
exact message and line. Without libyaml `fast_yaml` is always unsure.
"""

from __future__ import annotations

import functools
import math
import re
from typing import Any

from trialrun.tasks._limits import MAX_DEPTH, MAX_NODES


class Unsure(Exception):
    """The fast reader cannot promise the round-trip reader's answer for this text."""


_INT = re.compile(r"[-+]?(?:0|[1-9][0-9]*)\Z")
_FLOAT = re.compile(
    r"[-+]?(?:[0-9]+\.[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?\Z|[-+]?[0-9]+[eE][-+]?[0-9]+\Z"
)
_INF = re.compile(r"[-+]?\.(?:inf|Inf|INF)\Z")
_NAN = re.compile(r"\.(?:nan|NaN|NAN)\Z")
_BOOLS = {"true": True, "True": True, "TRUE": True, "false": False, "False": False,
          "FALSE": False}
PLAIN, STR = "?plain", "tag:yaml.org,2002:str"
SEQ, MAP = "tag:yaml.org,2002:seq", "tag:yaml.org,2002:map"
_NULLS = {"", "~", "null", "Null", "NULL"}
# what else ruamel's YAML 1.2 resolver makes of a plain scalar: not a string, so unsure
_OTHER = re.compile(
    r"""^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+]?[0-9]+)?
    |[-+]?(?:[0-9][0-9_]*)(?:[eE][-+]?[0-9]+)
    |[-+]?\.[0-9_]+(?:[eE][-+][0-9]+)?
    |[-+]?0b[0-1_]+|[-+]?0o?[0-7_]+|[-+]?[0-9_]+|[-+]?0x[0-9a-fA-F_]+
    |<<|=
    |[0-9][0-9][0-9][0-9]-[0-9][0-9]?-[0-9][0-9]?.*)$""",
    re.X | re.S,
)


def _plain(value: str) -> Any:
    """A plain scalar as YAML 1.2 (ruamel's resolver) reads it, or `Unsure`."""
    if value in _BOOLS:
        return _BOOLS[value]
    if value in _NULLS:
        return None
    first = value[0]
    if first in "-+0123456789.<=":
        if _INT.match(value):
            return int(value)
        if _FLOAT.match(value):
            return float(value)
        if _INF.match(value):
            return -math.inf if first == "-" else math.inf
        if _NAN.match(value):
            return math.nan
        if _OTHER.match(value):
            raise Unsure(value)
    return value


_EXPLICIT: dict[str, Any] = {
    "tag:yaml.org,2002:int": _INT,
    "tag:yaml.org,2002:float": _FLOAT,
    "tag:yaml.org,2002:bool": None,
    "tag:yaml.org,2002:null": None,
}


@functools.cache
def _parser() -> type | None:
    try:
        # libyaml's C parser, loaded with the first file parsed
        from yaml.cyaml import CParser
        from yaml.nodes import ScalarNode, SequenceNode
    except ImportError:  # PyYAML without libyaml: no faster than the round trip
        return None

    class FastParser(CParser):  # type: ignore[misc]  # PyYAML has no type information here
        """libyaml composes the nodes; tags are resolved by `_build`, not per scalar."""

        def resolve(self, kind: Any, value: Any, implicit: Any) -> str:
            if kind is ScalarNode:
                return PLAIN if implicit[0] else STR
            return SEQ if kind is SequenceNode else MAP

        def descend_resolver(self, parent: Any, index: Any) -> None:
            pass

        def ascend_resolver(self) -> None:
            pass

    return FastParser


def fast_yaml(text: str) -> Any:
    """The document as plain data, the round-trip reader's answer; or raises `Unsure`."""
    parser_cls = _parser()
    if parser_cls is None or "%YAML" in text:
        raise Unsure("not for the fast reader")
    parser = parser_cls(text)
    try:
        node = parser.get_single_node()
    except Exception as exc:  # a syntax error, two documents, …: the round trip says it
        raise Unsure(str(exc)) from None
    finally:
        parser.dispose()
    if node is None:
        return None
    try:
        return _build(node, [0], set(), 1)
    except Unsure:
        raise
    except Exception as exc:  # e.g. an int over Python's digit limit: the round trip says it
        raise Unsure(str(exc)) from None


_MARGIN = 8  # stay clear of the round trip's exact limits: near them, it decides


def _build(node: Any, count: list[int], active: set[int], depth: int) -> Any:
    """Plain data from libyaml's nodes, within the round trip's limits (kept with a
    margin): at most MAX_NODES nodes (keys and values, aliases expanded: never fewer
    than the round trip counts), at most MAX_DEPTH levels, no cycle, no duplicate key."""
    count[0] += 1
    if count[0] > MAX_NODES - _MARGIN:
        raise Unsure("too many values")
    tag = node.tag
    value = node.value
    if isinstance(value, str):  # a scalar
        if tag == PLAIN:
            return _plain(value)
        if tag == STR:
            return value
        if tag in _EXPLICIT:  # !!int "3": only the plain spelling is sure
            built = _plain(value)
            if type(built).__name__ != tag.rsplit(":", 1)[-1].replace("null", "NoneType"):
                raise Unsure(tag)
            return built
        raise Unsure(tag)
    if depth > MAX_DEPTH - _MARGIN:
        raise Unsure("nested deep")
    if id(node) in active:
        raise Unsure("a recursive alias")
    active.add(id(node))
    try:
        if tag == SEQ:
            return [_build(item, count, active, depth + 1) for item in value]
        if tag != MAP:
            raise Unsure(tag)
        out: dict[Any, Any] = {}
        count[0] += len(value)
        for key_node, value_node in value:
            if not isinstance(key_node.value, str):
                raise Unsure("a complex key")
            key = _build(key_node, count, active, depth + 1)
            if key in out:
                raise Unsure("a duplicate key")
            out[key] = _build(value_node, count, active, depth + 1)
        return out
    finally:
        active.discard(id(node))
