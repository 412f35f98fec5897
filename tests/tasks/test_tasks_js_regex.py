"""The JavaScript → Python regex translator Scribe task files go through.

Where node is installed, the same patterns run in JavaScript too and must agree.
"""

from __future__ import annotations

import contextlib
import json
import re
import shutil
import subprocess

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from trialrun.tasks._js_regex import JSRegexError, js_flags, js_to_python

NODE = shutil.which("node")


def _search(pattern: str, text: str, flags: str = "") -> str | None:
    python_flags = js_flags(flags)
    bits = 0
    for ch in python_flags:
        bits |= {"i": re.I, "m": re.M, "s": re.S}[ch]
    match = re.compile(js_to_python(pattern, flags), bits).search(text)
    return None if match is None else match.group(0)


# (pattern, flags, text, expected match or None): what JavaScript's RegExp.exec finds
CASES = [
    ("(?<city>Paris)", "", "in Paris.", "Paris"),
    (r"(?<w>\w+) \k<w>", "", "it is is", "is is"),
    (r"(?<=\$)\d+", "", "cost $42", "42"),
    (r"(?<!\$)\b\d+", "", "$42 and 7", "7"),
    (r"[(?<]+", "", "a(?<b", "(?<"),
    (r"\(?<y", "", "(<y", "(<y"),
    (r"\/notes\/", "", "see /notes/a", "/notes/"),
    ("[^]+", "", "a\nb", "a\nb"),
    ("x[]y|z", "", "xy z", "z"),
    ("[]a]", "", "a]", None),
    ("a.b", "", "a\rb a-b", "a-b"),
    ("a.b", "s", "a\rb", "a\rb"),
    ("^b$", "", "a\nb\n", None),
    ("b$", "", "ab\n", None),
    ("^b$", "m", "a\rb\r", "b"),
    ("x{,2}", "", "x{,2}", "x{,2}"),
    (r"\d+", "", "٣4", "4"),
    (r"\w+", "", "café", "caf"),
    (r"\bé", "", "café", "é"),
    (r"é\b", "", "é ", None),
    (r"[^\W_]+", "", "__ab_", "ab"),
    (r"[\d-z]+", "", "a1-z", "1-z"),
    (r"\s", "", "a\u2028b", "\u2028"),
    (r"\S+", "", "\x1c\ufeff", "\x1c"),
    (r"(?:(a)|b)\1c", "", "bc", "bc"),
    (r"\1(a)", "", "a", "a"),
    (r"\u00e9\x41\cJ\0", "", "éA\n\x00", "éA\n\x00"),
    (r"\ud83d\ude00", "", "😀", "😀"),
    (r"\u{1F600}", "u", "😀", "😀"),
    ("PARIS", "gi", "paris", "paris"),
    (r"[[&&]+", "", "a[&&", "[&&"),
    (r"a{2}?b", "", "aab", "aab"),
]


@pytest.mark.parametrize(("pattern", "flags", "text", "expected"), CASES)
def test_translation_matches_what_javascript_finds(
    pattern: str, flags: str, text: str, expected: str | None
) -> None:
    assert _search(pattern, text, flags) == expected


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_the_cases_agree_with_node() -> None:
    assert _node_exec([(p, f, t) for p, f, t, _ in CASES]) == [e for *_, e in CASES]


REFUSED = [
    ("(?i)paris", "inline flags '(?i)'"),
    ("a(?i:b)", "inline flags '(?i:…)'"),
    ("(?-i:b)", "inline flags"),
    ("(?P<n>a)", "write (?<name>…)"),
    ("(?P=n)", "'(?P'"),
    ("(?#note)", "'(?#'"),
    ("(?>a)", "'(?>'"),
    ("(?(1)a)", "'(?('"),
    ("a*+", "possessive"),
    (r"\p{L}", "Unicode property"),
    (r"\A", "'\\A' is not a JavaScript regex escape"),
    (r"\Z", "'\\Z'"),
    ("[abc", "missing ]"),
    ("abc\\", "end of pattern"),
    (r"(a)\2", "names no group"),
    (r"\k<nope>", "names no group"),
    ("(?<a$>x)", "group name"),
    ("(?<x>a)(?<x>b)", "used twice"),
    (r"\u{41}", "'u' flag"),
    (r"\xZ1", "two hex digits"),
]


@pytest.mark.parametrize(("pattern", "needle"), REFUSED)
def test_refusals_say_what_and_how(pattern: str, needle: str) -> None:
    with pytest.raises(JSRegexError) as info:
        js_to_python(pattern)
    assert needle in str(info.value)
    assert "\n" not in str(info.value)


def test_escaped_or_classed_inline_flags_are_literal() -> None:
    assert _search(r"\(\?i\)", "(?i)") == "(?i)"
    assert _search(r"[(?i)]+", "(?i)") == "(?i)"


def test_flags() -> None:
    assert js_flags("gimsuy".replace("y", "")) == "ims"
    assert js_flags("ii") == "i"
    assert js_flags("") == ""
    for flag, needle in (("y", "sticky"), ("d", "indices"), ("v", "unicode sets"), ("x", "'x'")):
        with pytest.raises(JSRegexError, match=needle):
            js_flags("i" + flag)


# --- properties ---

_JS_SPECIAL = set("\\^$.|?*+()[]{}/")


def _js_escape(text: str) -> str:
    return "".join("\\" + ch if ch in _JS_SPECIAL else ch for ch in text)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=30))
def test_an_escaped_literal_matches_itself(text: str) -> None:
    pattern = js_to_python(_js_escape(text))
    assert re.fullmatch(pattern, text, re.S)


_SYNTAX = list("ab()[]{}?*+<>=!:^$.|\\-,0123kPdwsDWSbBux_")


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=st.sampled_from(_SYNTAX), max_size=20))
def test_any_input_translates_or_is_refused_in_one_line(text: str) -> None:
    """Never a crash: a JSRegexError, or Python text that compiles or fails as re.error."""
    try:
        out = js_to_python(text)
    except JSRegexError as exc:
        assert "\n" not in str(exc)
        return
    with contextlib.suppress(re.error):  # e.g. unbalanced ( : the loader says "bad regex"
        re.compile(out)


_ATOMS = [
    "a",
    "b",
    "-",
    "_",
    " ",
    r"\.",
    r"\/",
    r"\d",
    r"\w",
    r"\s",
    r"\D",
    r"\W",
    r"\S",
    "[ab]",
    "[^a]",
    r"[\d_]",
    r"[^\W]",
    "[a-c]",
    "[(?<]",
    "[]",
    "[^]",
    ".",
    r"\u00e9",
]
_QUANTIFIERS = ["", "", "", "*", "+", "?", "{1,2}", "*?", "{2}"]


def _pattern() -> st.SearchStrategy[str]:
    atom = st.tuples(st.sampled_from(_ATOMS), st.sampled_from(_QUANTIFIERS)).map("".join)
    anchored = st.sampled_from(["", "^", r"\b", r"(?<=a)", r"(?<!b)"])
    end = st.sampled_from(["", "", "$", r"\b", "(?=b)", "(?!a)"])

    def wrap(parts: list[str]) -> st.SearchStrategy[str]:
        body = "".join(parts)
        return st.sampled_from([body, f"({body})", f"(?:{body})|b", f"(?<g>{body})\\k<g>"])

    return st.builds(
        lambda a, mid, e: a + mid + e,
        anchored,
        st.lists(atom, min_size=1, max_size=4).flatmap(wrap),
        end,
    )


_TEXT = st.text(alphabet=st.sampled_from(list("ab_- .\n\r1٣é\u2028\xa0\x1c(<")), max_size=12)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(_pattern(), st.sampled_from(["", "i", "m", "s", "ims"]), _TEXT),
        min_size=1,
        max_size=1,
    )
)
def test_generated_patterns_compile_and_keep_their_group_names(cases) -> None:
    [(pattern, flags, _)] = cases
    compiled = re.compile(js_to_python(pattern, flags))
    assert set(compiled.groupindex) == ({"g"} if "(?<g>" in pattern else set())


@pytest.mark.skipif(NODE is None, reason="node is not installed")
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.tuples(_pattern(), st.sampled_from(["", "i", "m", "s", "ims"]), _TEXT),
        min_size=40,
        max_size=40,
    )
)
def test_generated_patterns_agree_with_node(cases) -> None:
    """Differential: the same pattern, flags and text in node and through the translation."""
    expected = _node_exec(cases)
    got = [_search(p, t, f) for p, f, t in cases]
    for case, want, have in zip(cases, expected, got, strict=True):
        assert have == want, case


def _node_exec(cases: list[tuple[str, str, str]]) -> list[str | None]:
    script = (
        "const cases = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
        "console.log(JSON.stringify(cases.map(([p, f, t]) => {"
        "const m = new RegExp(p, f).exec(t); return m === null ? null : m[0]; })));"
    )
    assert NODE is not None
    proc = subprocess.run(
        [NODE, "-e", script],
        input=json.dumps(cases),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return json.loads(proc.stdout)
