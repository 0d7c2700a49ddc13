"""Line numbers of fields in a TOML or JSON text, and field paths as a user reads them.

The maps are read the way the parsers read the text: only ``\\n`` ends a line (``\\r\\n`` too,
ending in ``\\n``); strings, multi-line strings and comments are skipped whole, so a
``[[model]]`` inside a string or a U+2028 in a comment moves no field. A field path is
the one :func:`format_path` prints (``("model", 3, "base")``): tables by key, arrays of
tables and array items by index. The texts are ones the parsers accepted; on anything
unexpected a map stops where it is (a missing line is only a less precise message).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

_WS = re.compile(r"[ \t]*")
#: Whitespace, newlines and comments between values of an array.
_WS_NL = re.compile(r"(?:[ \t\r\n]+|#[^\n]*)*+")
_BARE_KEY = re.compile(r"[A-Za-z0-9_\-]+")
_BASIC = re.compile(r'"(?:[^"\\\n]+|\\.)*+"')
_LITERAL = re.compile(r"'[^'\n]*'")
_ML_BASIC = re.compile(r'"""(?:[^"\\]+|\\.|"(?!""))*+""""{0,2}', re.DOTALL)
_ML_LITERAL = re.compile(r"'''(?:[^']+|'(?!''))*+''''{0,2}", re.DOTALL)
#: A number, boolean, date or time: up to the next delimiter (a date-time may hold a space).
_SCALAR = re.compile(r"[^,\]}\n#]+")
_ESCAPES = {"b": "\b", "t": "\t", "n": "\n", "f": "\f", "r": "\r", '"': '"', "\\": "\\"}
_ESCAPE = re.compile(r'\\(?:u([0-9A-Fa-f]{4})|U([0-9A-Fa-f]{8})|(.))')
#: Deeper than any scenario can be (the reader refuses nesting past 12): stop mapping there.
_MAX_NESTING = 64
#: Items of one array given a line: a longer list is refused as a whole (limits.MAX_ITEMS), so no
#: problem names an item past it, and the rest is skipped fast (800,000 points took 15 s to map).
_MAX_NOTED = 10_001
#: A string or a comment, skipped whole when skipping to the end of an array (a bracket in it is text).
_SKIP_TEXT = re.compile(
    r'"""(?:[^"\\]+|\\.|"(?!""))*+""""{0,2}'
    r"|'''(?:[^']+|'(?!''))*+''''{0,2}"
    r'|"(?:[^"\\\n]+|\\.)*+"'
    r"|'[^'\n]*'"
    r"|#[^\n]*",
    re.DOTALL,
)
#: A run of anything else: brackets, numbers, commas, whitespace.
_SKIP_PLAIN = re.compile(r"""[^"'#]+""")


class _Stop(Exception):
    """The text is not as expected here: keep what was mapped."""


def _unescape(body: str) -> str:
    def one(m: re.Match[str]) -> str:
        code = m.group(1) or m.group(2)
        return chr(int(code, 16)) if code else _ESCAPES.get(m.group(3), m.group(3))

    return _ESCAPE.sub(one, body)


class _Toml:
    """One pass over a TOML text, recording the line of every key, table and array item."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0
        self.lines: dict[tuple[Any, ...], int] = {}
        self._last_pos = 0
        self._last_line = 1

    def line(self, pos: int) -> int:
        """The 1-based line of ``pos``: positions mostly move forward, so count from the last one asked."""
        if pos >= self._last_pos:
            self._last_line += self.text.count("\n", self._last_pos, pos)
        else:
            self._last_line = self.text.count("\n", 0, pos) + 1
        self._last_pos = pos
        return self._last_line

    def note(self, path: tuple[Any, ...], pos: int) -> None:
        self.lines.setdefault(path, self.line(pos))

    def skip(self, pattern: re.Pattern[str]) -> None:
        m = pattern.match(self.text, self.pos)
        if m:
            self.pos = m.end()

    def peek(self, n: int = 1) -> str:
        return self.text[self.pos : self.pos + n]

    def skip_to_close(self) -> None:
        """From inside an array, to just after the bracket that closes it (the brackets of a run of
        plain text counted with numpy: a list of 800,000 points is one run)."""
        depth = 1
        text = self.text
        while True:
            m = _SKIP_TEXT.match(text, self.pos) or _SKIP_PLAIN.match(text, self.pos)
            if not m:
                raise _Stop
            run = m.group()
            if run[0] in "\"'#":
                self.pos = m.end()
                continue
            codes = np.frombuffer(run.encode("utf-32-le"), dtype=np.uint32)
            steps = (codes == 91).astype(np.int64) + (codes == 123) - (codes == 93) - (codes == 125)  # [ { ] }
            levels = depth + np.cumsum(steps)
            closed = np.flatnonzero(levels == 0)
            if closed.size:
                self.pos = m.start() + int(closed[0]) + 1
                return
            depth = int(levels[-1])
            self.pos = m.end()

    def key(self) -> tuple[str, ...]:
        """A dotted key (``a."b.c".d``) as its parts."""
        parts: list[str] = []
        while True:
            self.skip(_WS)
            for pattern, quoted in ((_BASIC, "basic"), (_LITERAL, "literal"), (_BARE_KEY, "")):
                m = pattern.match(self.text, self.pos)
                if m:
                    raw = m.group()
                    parts.append(_unescape(raw[1:-1]) if quoted == "basic" else raw[1:-1] if quoted else raw)
                    self.pos = m.end()
                    break
            else:
                raise _Stop
            self.skip(_WS)
            if self.peek() != ".":
                return tuple(parts)
            self.pos += 1

    def value(self, path: tuple[Any, ...], depth: int) -> None:
        if depth > _MAX_NESTING:
            raise _Stop
        text, pos = self.text, self.pos
        c = text[pos : pos + 1]
        if c == "[":
            self.pos += 1
            index = 0
            while True:
                self.skip(_WS_NL)
                if self.peek() == "]":
                    self.pos += 1
                    return
                if index >= _MAX_NOTED:
                    self.skip_to_close()
                    return
                self.note((*path, index), self.pos)
                self.value((*path, index), depth + 1)
                index += 1
                self.skip(_WS_NL)
                if self.peek() == ",":
                    self.pos += 1
                elif self.peek() != "]":
                    raise _Stop
        elif c == "{":
            self.pos += 1
            self.skip(_WS)
            if self.peek() == "}":
                self.pos += 1
                return
            while True:
                start = self.pos
                self.skip(_WS)
                parts = self.key()
                self.note_key(path, parts, start)
                if self.peek() != "=":
                    raise _Stop
                self.pos += 1
                self.skip(_WS)
                self.value((*path, *parts), depth + 1)
                self.skip(_WS)
                if self.peek() == ",":
                    self.pos += 1
                elif self.peek() == "}":
                    self.pos += 1
                    return
                else:
                    raise _Stop
        else:
            for pattern in (_ML_BASIC, _ML_LITERAL, _BASIC, _LITERAL, _SCALAR):
                m = pattern.match(text, pos)
                if m:
                    self.pos = m.end()
                    return
            raise _Stop

    def note_key(self, table: tuple[Any, ...], parts: tuple[str, ...], pos: int) -> None:
        # A dotted key defines the tables it passes through on its line too.
        for n in range(1, len(parts) + 1):
            self.note((*table, *parts[:n]), pos)

    def document(self) -> None:
        text = self.text
        current: tuple[Any, ...] = ()
        #: Arrays of tables met so far (paths with indices) -> how many items each has.
        arrays: dict[tuple[Any, ...], int] = {}
        while self.pos < len(text):
            self.skip(_WS_NL)
            if self.pos >= len(text):
                return
            start = self.pos
            if text.startswith("[[", start):
                self.pos += 2
                parts = self.key()
                if not text.startswith("]]", self.pos):
                    raise _Stop
                self.pos += 2
                table = self.resolve(parts[:-1], arrays) + (parts[-1],)
                index = arrays.get(table, 0)
                arrays[table] = index + 1
                current = (*table, index)
                self.note(table, start)
                self.note(current, start)
            elif text.startswith("[", start):
                self.pos += 1
                parts = self.key()
                if self.peek() != "]":
                    raise _Stop
                self.pos += 1
                current = self.resolve(parts, arrays)
                for n in range(1, len(current) + 1):
                    self.note(current[:n], start)
            else:
                parts = self.key()
                self.note_key(current, parts, start)
                if self.peek() != "=":
                    raise _Stop
                self.pos += 1
                self.skip(_WS)
                self.value((*current, *parts), 0)

    @staticmethod
    def resolve(parts: tuple[str, ...], arrays: Mapping[tuple[Any, ...], int]) -> tuple[Any, ...]:
        """A header's path: a part naming an array of tables means its last item."""
        path: tuple[Any, ...] = ()
        for part in parts:
            path = (*path, part)
            if path in arrays:
                path = (*path, arrays[path] - 1)
        return path


def toml_lines(text: str) -> dict[tuple[Any, ...], int]:
    """Map field paths (``("model", 3, "base")``) to 1-based line numbers of a TOML text."""
    reader = _Toml(text)
    try:
        reader.document()
    except (_Stop, RecursionError):
        pass
    return reader.lines


_JSON_WS = re.compile(r"[ \t\r\n]*")
_JSON_STRING = re.compile(r'"(?:[^"\\]+|\\.)*+"', re.DOTALL)
_JSON_SCALAR = re.compile(r"[^,\]}\s]+")


class _Json(_Toml):
    """The same map for a JSON text: object keys and array items (and keys given twice in one object)."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.duplicates: list[tuple[tuple[Any, ...], int, int]] = []

    def value(self, path: tuple[Any, ...], depth: int) -> None:
        if depth > _MAX_NESTING:
            raise _Stop
        self.skip(_JSON_WS)
        c = self.peek()
        if c and c in "[{":
            close = "]" if c == "[" else "}"
            self.pos += 1
            self.skip(_JSON_WS)
            if self.peek() == close:
                self.pos += 1
                return
            index = 0
            while True:
                self.skip(_JSON_WS)
                start = self.pos
                if c == "{":
                    m = _JSON_STRING.match(self.text, self.pos)
                    if not m:
                        raise _Stop
                    self.pos = m.end()
                    item = (*path, _unescape(m.group()[1:-1]))
                    if item in self.lines:
                        self.duplicates.append((item, self.line(start), self.lines[item]))
                    self.skip(_JSON_WS)
                    if self.peek() != ":":
                        raise _Stop
                    self.pos += 1
                else:
                    if index >= _MAX_NOTED:
                        self.skip_to_close()
                        return
                    item = (*path, index)
                    index += 1
                self.note(item, start)
                self.value(item, depth + 1)
                self.skip(_JSON_WS)
                if self.peek() == ",":
                    self.pos += 1
                elif self.peek() == close:
                    self.pos += 1
                    return
                else:
                    raise _Stop
        else:
            m = _JSON_STRING.match(self.text, self.pos) or _JSON_SCALAR.match(self.text, self.pos)
            if not m:
                raise _Stop
            self.pos = m.end()


def json_lines(text: str) -> dict[tuple[Any, ...], int]:
    """Map field paths to 1-based line numbers of a JSON text (a key's line, an item's first line)."""
    reader = _Json(text)
    try:
        reader.value((), 0)
    except (_Stop, RecursionError):
        pass
    return reader.lines


def json_duplicate_keys(text: str) -> list[tuple[tuple[Any, ...], int, int]]:
    """Keys given twice in one object of a JSON text: (field path, its line, the line it was first on)."""
    reader = _Json(text)
    try:
        reader.value((), 0)
    except (_Stop, RecursionError):
        pass
    # The items under a key given twice repeat the first one's paths: only the key itself is said.
    said: list[tuple[Any, ...]] = []
    for path, _, _ in reader.duplicates:
        if not any(path[: len(p)] == p for p in said):
            said.append(path)
    return [d for d in reader.duplicates if d[0] in said]


def _line_for(lines: Mapping[tuple[Any, ...], int], path: Sequence[Any]) -> int | None:
    for n in range(len(path), 0, -1):
        if tuple(path[:n]) in lines:
            return lines[tuple(path[:n])]
    return None


def format_path(loc: Sequence[Any]) -> str:
    """``("model", 3, "base")`` -> ``model[3].base``."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out
