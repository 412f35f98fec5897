"""JavaScript regexes (Gemini-Scribe task files) in Python's `re` dialect.

Scribe's matchers are JavaScript `RegExp`s, so a Scribe file is read in that dialect and
translated once, at load time; the graders only ever see Python patterns.

Translated so that a match means the same thing:
- `(?<name>…)` → `(?P<name>…)`, `\\k<name>` → `(?P=name)`; lookbehinds stay as written; a
  backreference to a group that has not matched (or is still open) matches empty;
- `\\d \\w \\s` (and `\\D \\W \\S`) are JavaScript's sets (ASCII digits and word characters,
  JavaScript's whitespace), `\\b`/`\\B` ASCII word boundaries;
- `.` stops at `\\n \\r \\u2028 \\u2029` (any character with `s`), `$` is the very end (no
  final-newline leeway as in Python; line ends with `m`), `^` with `m` also after `\\r`;
- `[^]` (any character), `[]` (nothing), `[` `&` `~` `|` inside a class, `x{,3}` (literal in
  JavaScript), `\\cX`, `\\u{…}` and surrogate pairs, `\\/`.
Refused with one line: inline flags `(?i)` / `(?i:…)` (use the matcher's `flags`),
Python-only groups (`(?P…)`, `(?#…)`, `(?>…)`, `(?(…)…)`), possessive quantifiers, Unicode
property escapes `\\p{…}`, and escapes JavaScript reads as a plain letter (`\\A`, `\\Z`, …).
Case-insensitive matching folds case as Python does.
"""

from __future__ import annotations

import re
import string
from dataclasses import dataclass, field

# JavaScript's \s: WhiteSpace and LineTerminator code points (ECMA-262 CharacterClassEscape).
_JS_SPACE = "\\t\\n\\v\\f\\r \\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff"
_SETS = {"d": "0-9", "w": "A-Za-z0-9_", "s": _JS_SPACE}
_LINE_ENDS = "\\n\\r\\u2028\\u2029"
_QUANTIFIER = re.compile(r"\{(\d+)(,(\d*))?\}")
_INLINE_FLAGS = re.compile(r"\(\?(?=[a-zA-Z-])([a-zA-Z]*)(?:-[a-zA-Z]*)?[:)]")
_NAME = re.compile(r"<([^>]*)>")
_CONTROL_ESCAPES = {"t": "\\t", "n": "\\n", "v": "\\v", "f": "\\f", "r": "\\r"}
_CLASS_SPECIAL = set("[]\\^-&~|")
_HEX = set(string.hexdigits)


class JSRegexError(ValueError):
    """A JavaScript pattern or flag that has no faithful Python form (one line)."""


def js_flags(flags: str) -> str:
    """JavaScript flags → Python's: `i m s` kept, `g u` dropped, `y d v` refused."""
    out = ""
    for ch in flags:
        if ch in "ims":
            out += "" if ch in out else ch
        elif ch in "gu":
            continue  # global, unicode: no meaning for a yes/no search over a str
        elif ch == "y":
            raise JSRegexError("flag 'y' (sticky) has no meaning for a search; remove it")
        elif ch == "d":
            raise JSRegexError("flag 'd' (match indices) has no meaning for a matcher; remove it")
        elif ch == "v":
            raise JSRegexError("flag 'v' (unicode sets) is not supported; use 'u' or no flag")
        else:
            raise JSRegexError(
                f"unknown regex flag {ch!r}; use JavaScript flags: i, m, s (g and u are ignored)"
            )
    return out


def js_to_python(pattern: str, flags: str = "") -> str:
    """Translate a JavaScript pattern (with its JavaScript `flags`) to Python `re` syntax."""
    return _Translator(pattern, flags).run()


@dataclass(slots=True)
class _Translator:
    src: str
    flags: str
    i: int = 0
    out: list[str] = field(default_factory=list)
    total: int = 0  # capturing groups in the whole pattern
    opened: int = 0  # capturing groups opened so far
    stack: list[int | None] = field(default_factory=list)  # open groups (None: not capturing)
    closed: set[int] = field(default_factory=set)
    names: dict[str, int] = field(default_factory=dict)

    def run(self) -> str:
        scan = _Scanner(self.src)
        self._check_inline_flags(scan)
        self.total = scan.capturing_groups()
        while self.i < len(self.src):
            ch = self.src[self.i]
            if ch == "\\":
                self.out.append(self._escape_outside())
            elif ch == "[":
                self.out.append(self._char_class())
            elif ch == "(":
                self.out.append(self._group_open())
            elif ch == ")":
                self.i += 1
                if self.stack and (number := self.stack.pop()) is not None:
                    self.closed.add(number)
                self.out.append(")")
            elif ch == "{":
                self._brace()
            elif ch in "*+?":
                self.i += 1
                self.out.append(ch)
                self._after_quantifier()
            elif ch == ".":
                self.i += 1
                self.out.append("." if "s" in self.flags else f"[^{_LINE_ENDS}]")
            elif ch == "$":
                self.i += 1
                self.out.append("(?:$|(?=[\\r\\u2028\\u2029]))" if "m" in self.flags else "\\Z")
            elif ch == "^":
                self.i += 1
                self.out.append("(?:^|(?<=[\\r\\u2028\\u2029]))" if "m" in self.flags else "^")
            else:
                self.i += 1
                self.out.append(ch)
        return "".join(self.out)

    def _check_inline_flags(self, scan: _Scanner) -> None:
        """`(?i)` / `(?i:…)` anywhere outside a class or escape: the flags field's job."""
        for at in scan.group_starts():
            match = _INLINE_FLAGS.match(self.src, at)
            if match:
                shown = match.group(0) + ("…)" if match.group(0).endswith(":") else "")
                letters = "".join(ch for ch in match.group(1) if ch in "ims") or "i"
                raise JSRegexError(
                    f"inline flags '{shown}' are not JavaScript regex syntax; put them in the "
                    f'matcher\'s "flags" field (e.g. "flags": "{letters}")'
                )

    def _after_quantifier(self) -> None:
        if self.src.startswith("?", self.i):  # lazy
            self.i += 1
            self.out.append("?")
        elif self.src.startswith("+", self.i):
            raise JSRegexError(
                "possessive quantifiers (e.g. a*+) are not JavaScript regex syntax; drop the +"
            )

    def _brace(self) -> None:
        match = _QUANTIFIER.match(self.src, self.i)
        if match is None:  # not a quantifier: a literal brace (`x{,3}` included)
            self.i += 1
            self.out.append("\\{")
            return
        self.i = match.end()
        self.out.append(match.group(0))
        self._after_quantifier()

    # --- groups ---
    def _group_open(self) -> str:
        src, at = self.src, self.i
        if not src.startswith("(?", at):
            self.i += 1
            self.opened += 1
            self.stack.append(self.opened)
            return "("
        for opener in ("(?:", "(?=", "(?!", "(?<=", "(?<!"):
            if src.startswith(opener, at):
                self.i += len(opener)
                self.stack.append(None)
                return opener
        if src.startswith("(?<", at):
            match = _NAME.match(src, at + 2)
            if match is None:
                raise JSRegexError("unterminated group name after (?<; write (?<name>…)")
            name = match.group(1)
            if not name.isidentifier():
                raise JSRegexError(
                    f"group name {name!r} cannot be used in Python; use letters, digits and _"
                )
            if name in self.names:
                raise JSRegexError(f"group name {name!r} is used twice; give each group its own")
            self.i = match.end()
            self.opened += 1
            self.stack.append(self.opened)
            self.names[name] = self.opened
            return f"(?P<{name}>"
        shown = src[at : at + 3]
        hint = " (write (?<name>…) for a named group)" if shown == "(?P" else ""
        raise JSRegexError(f"'{shown}' is not JavaScript regex syntax{hint}")

    # --- escapes ---
    def _escape_outside(self) -> str:
        src = self.src
        if self.i + 1 >= len(src):
            raise JSRegexError("\\ at end of pattern; escape it as \\\\")
        ch = src[self.i + 1]
        if ch in "dws":
            self.i += 2
            return f"[{_SETS[ch]}]"
        if ch in "DWS":
            self.i += 2
            return f"[^{_SETS[ch.lower()]}]"
        if ch in "bB":
            self.i += 2
            return f"(?a:\\{ch})"
        if ch.isdigit() and ch != "0":  # a backreference, all its digits
            end = self.i + 1
            while end < len(src) and src[end].isdigit():
                end += 1
            number, self.i = int(src[self.i + 1 : end]), end
            if number > self.total:
                raise JSRegexError(
                    f"backreference \\{number} names no group (the pattern has {self.total})"
                )
            return self._backreference(number, str(number))
        if ch == "k":
            match = _NAME.match(src, self.i + 2)
            if match is None or not match.group(1).isidentifier():
                raise JSRegexError("\\k must name a group: \\k<name>")
            self.i = match.end()
            name = match.group(1)
            named = self.names.get(name) or _Scanner(src).group_number(name)
            if named is None:
                raise JSRegexError(f"\\k<{name}> names no group; define (?<{name}>…)")
            return self._backreference(named, name)
        return self._common_escape(in_class=False)

    def _backreference(self, number: int, ref: str) -> str:
        """JavaScript: a group that has not matched (or is still open) matches empty."""
        if number not in self.closed:
            return "(?:)"
        inner = f"\\{ref}" if ref.isdigit() else f"(?P={ref})"
        return f"(?({ref}){inner})"

    def _common_escape(self, *, in_class: bool) -> str:
        """Escapes with one meaning in and out of a class; returns Python text."""
        src = self.src
        ch = src[self.i + 1]
        if ch in _CONTROL_ESCAPES:
            self.i += 2
            return _CONTROL_ESCAPES[ch]
        if ch == "0" and not (self.i + 2 < len(src) and src[self.i + 2].isdigit()):
            self.i += 2
            return "\\x00"
        if ch.isdigit():  # a legacy octal escape (\0nn; \1… inside a class)
            end = self.i + 1
            while end < len(src) and end < self.i + 4 and src[end] in "01234567":
                end += 1
            if end == self.i + 1:  # \8, \9: the digit itself
                self.i += 2
                return ch
            value = int(src[self.i + 1 : end], 8)
            if value > 0o377:
                end -= 1
                value = int(src[self.i + 1 : end], 8)
            self.i = end
            return _code_point(value)
        if ch == "c":
            letter = src[self.i + 2 : self.i + 3]
            if not (letter.isascii() and letter.isalpha()):
                raise JSRegexError("\\c must be followed by a letter (a control character, \\cJ)")
            self.i += 3
            return _code_point(ord(letter) % 32)
        if ch == "x":
            digits = src[self.i + 2 : self.i + 4]
            if len(digits) == 2 and set(digits) <= _HEX:
                self.i += 4
                return f"\\x{digits}"
            raise JSRegexError("\\x must be followed by two hex digits (\\x41)")
        if ch == "u":
            return self._unicode_escape()
        if ch in "pP":
            raise JSRegexError(
                f"Unicode property escapes (\\{ch}{{…}}) are not supported by Python's re; "
                "list the characters in a class instead"
            )
        if ch.isascii() and ch.isalpha():
            raise JSRegexError(
                f"'\\{ch}' is not a JavaScript regex escape (JavaScript reads it as the letter "
                f"'{ch}'); write '{ch}' or the escape you meant"
            )
        self.i += 2
        return re.escape(ch) if not in_class or ch in _CLASS_SPECIAL else ch

    def _unicode_escape(self) -> str:
        src = self.src
        if src.startswith("{", self.i + 2):
            end = src.find("}", self.i + 3)
            digits = src[self.i + 3 : end] if end > 0 else ""
            if "u" not in self.flags or not digits or not set(digits) <= _HEX:
                raise JSRegexError("\\u{…} needs the 'u' flag and hex digits (\\u{1F600})")
            value = int(digits, 16)
            if value > 0x10FFFF:
                raise JSRegexError(f"\\u{{{digits}}} is beyond the last code point (10FFFF)")
            self.i = end + 1
            return _code_point(value)
        digits = src[self.i + 2 : self.i + 6]
        if len(digits) != 4 or not set(digits) <= _HEX:
            raise JSRegexError("\\u must be followed by four hex digits (\\u00e9)")
        value = int(digits, 16)
        self.i += 6
        low = src[self.i : self.i + 6]
        if 0xD800 <= value <= 0xDBFF and low[:2] == "\\u" and set(low[2:]) <= _HEX:
            second = int(low[2:], 16) if len(low) == 6 else 0
            if 0xDC00 <= second <= 0xDFFF:  # a surrogate pair: one code point in Python
                self.i += 6
                return _code_point(0x10000 + ((value - 0xD800) << 10) + (second - 0xDC00))
        return _code_point(value)

    # --- character classes ---
    def _char_class(self) -> str:
        src = self.src
        self.i += 1
        negated = src.startswith("^", self.i)
        if negated:
            self.i += 1
        if src.startswith("]", self.i):  # JavaScript's empty classes
            self.i += 1
            return "(?s:.)" if negated else "(?!)"
        atoms: list[tuple[str, str]] = []  # ("char", text) | ("set", body) | ("neg", body)
        while True:
            if self.i >= len(src):
                raise JSRegexError("missing ] to close a character class")
            ch = src[self.i]
            if ch == "]":
                self.i += 1
                break
            if ch == "\\":
                atoms.append(self._class_escape())
            elif ch == "-":
                self.i += 1
                atoms.append(("dash", "-"))
            else:
                self.i += 1
                atoms.append(("char", "\\" + ch if ch in _CLASS_SPECIAL else ch))
        return _build_class(atoms, negated)

    def _class_escape(self) -> tuple[str, str]:
        src = self.src
        if self.i + 1 >= len(src):
            raise JSRegexError("\\ at end of pattern; escape it as \\\\")
        ch = src[self.i + 1]
        if ch in "dws":
            self.i += 2
            return ("set", _SETS[ch])
        if ch in "DWS":
            self.i += 2
            return ("neg", _SETS[ch.lower()])
        if ch == "b":  # backspace inside a class
            self.i += 2
            return ("char", "\\x08")
        if ch == "-":
            self.i += 2
            return ("char", "\\-")
        return ("char", self._common_escape(in_class=True))


class _Scanner:
    """Finds where groups open, skipping escapes and character classes."""

    def __init__(self, src: str) -> None:
        self.src = src

    def group_starts(self) -> list[int]:
        """Where `(?` groups open."""
        return [at for at in self._opens() if self.src.startswith("(?", at)]

    def capturing_groups(self) -> int:
        return len(self._capturing())

    def group_number(self, name: str) -> int | None:
        """The number of the group `(?<name>…)`, wherever it is."""
        for number, at in enumerate(self._capturing(), start=1):
            if self.src.startswith(f"(?<{name}>", at):
                return number
        return None

    def _capturing(self) -> list[int]:
        src = self.src
        return [
            at
            for at in self._opens()
            if not src.startswith("(?", at)
            or (src.startswith("(?<", at) and src[at + 3 : at + 4] not in ("=", "!"))
        ]

    def _opens(self) -> list[int]:
        src, i, out, in_class = self.src, 0, [], False
        while i < len(src):
            ch = src[i]
            if ch == "\\":
                i += 2
                continue
            if in_class:
                in_class = ch != "]"
            elif ch == "[":
                if src.startswith("]", i + 1) or src.startswith("^]", i + 1):
                    i += 3 if src[i + 1] == "^" else 2  # [] and [^]: nothing inside
                    continue
                in_class = True
                if src.startswith("^", i + 1):
                    i += 1
            elif ch == "(":
                out.append(i)
            i += 1
        return out


def _code_point(value: int) -> str:
    if value <= 0xFF:
        return f"\\x{value:02x}"
    if value <= 0xFFFF:
        return f"\\u{value:04x}"
    return f"\\U{value:08x}"


def _build_class(atoms: list[tuple[str, str]], negated: bool) -> str:
    """Python text for a parsed JavaScript class: ranges kept, a `-` next to a set literal."""
    body: list[str] = []
    negs: list[str] = []
    n = 0
    while n < len(atoms):
        kind, text = atoms[n]
        is_range = (
            kind == "char"
            and n + 2 < len(atoms)
            and atoms[n + 1][0] == "dash"
            and atoms[n + 2][0] == "char"
        )
        if is_range:
            body.append(f"{text}-{atoms[n + 2][1]}")
            n += 3
            continue
        if kind == "set":
            body.append(text)
        elif kind == "neg":
            negs.append(text)
        else:
            body.append("\\-" if kind == "dash" else text)
        n += 1
    inner = "".join(body)
    if not negs:
        return f"[{'^' if negated else ''}{inner}]"
    alternatives = ([f"[{inner}]"] if inner else []) + [f"[^{neg}]" for neg in negs]
    union = "|".join(alternatives)
    return f"(?:(?!{union})(?s:.))" if negated else f"(?:{union})"
