"""Output graders: contains and regex over the final answer."""

from __future__ import annotations

import pytest
from graders_support import grade, make_trial
from pydantic import ValidationError

from trialrun.graders import parse_grader

TEXT = "The budget is 41,200 EUR.\nSecond line: Done"


@pytest.mark.parametrize(
    ("config", "passed"),
    [
        ({"value": "41,200"}, True),
        ({"value": "eur"}, False),
        ({"value": "eur", "caseSensitive": False}, True),
        ({"value": ["nope", "EUR"]}, True),
        ({"value": ["nope", "never"]}, False),
        ({"value": ["NOPE", "done"], "caseSensitive": False}, True),
    ],
)
def test_contains(config: dict, passed: bool) -> None:
    v = grade({"type": "contains", **config}, make_trial(final_text=TEXT))
    assert v.passed is passed
    if passed:
        assert v.details["matched"] and v.details["context"]
    else:
        assert v.details["text"] == TEXT


@pytest.mark.parametrize(
    ("config", "passed"),
    [
        ({"value": r"41[,.]?200"}, True),
        ({"value": r"^second"}, False),
        ({"value": r"^second", "flags": "im"}, True),
        ({"value": r"EUR\..Second"}, False),
        ({"value": r"EUR\..Second", "flags": "s"}, True),
        ({"value": ["zzz", r"\bDone$"]}, True),
        ({"value": ["zzz", "yyy"]}, False),
    ],
)
def test_regex(config: dict, passed: bool) -> None:
    v = grade({"type": "regex", **config}, make_trial(final_text=TEXT))
    assert v.passed is passed, v.details
    if passed:
        assert v.details["matched_pattern"]


def test_empty_answer() -> None:
    assert grade({"type": "contains", "value": "x"}, make_trial(final_text="")).passed is False


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"type": "regex", "value": "(unclosed"}, r"invalid regex '\(unclosed'"),
        ({"type": "regex", "value": ["ok", "[z-a]"]}, "invalid regex"),
        ({"type": "regex", "value": "a", "flags": "ix"}, "unknown regex flag 'x'"),
        ({"type": "regex", "value": []}, "non-empty list"),
        ({"type": "contains", "value": []}, "non-empty list"),
        ({"type": "contains", "value": "a", "case_sensitive": False}, "Extra inputs"),
    ],
)
def test_bad_configs_fail_at_load(config: dict, message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        parse_grader(config)


def test_regex_error_location_is_the_field() -> None:
    with pytest.raises(ValidationError) as err:
        parse_grader({"type": "regex", "value": "(", "flags": "i"})
    assert err.value.errors()[0]["loc"] == ("value",)
    with pytest.raises(ValidationError) as err:
        parse_grader({"type": "regex", "value": "a", "flags": "q"})
    assert err.value.errors()[0]["loc"] == ("flags",)
