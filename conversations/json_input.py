"""JSON from outside (API bodies, the widget's session and socket frames), read with limits.

`json.loads` alone lets a few kilobytes of `[[[[…` blow the interpreter's recursion limit, and it
accepts a NUL or a lone surrogate (`"\\ud800"`) inside a string, which Postgres refuses and UTF-8
cannot encode. It also reads `NaN`, `Infinity` and `-Infinity`, which are not JSON at all, and a text
field then stores "nan". Every door reads outside JSON through `json_input_read`, so each of these is a
clear 400 (or an `error` event on the socket) instead of a server error or a strange value.
"""

from __future__ import annotations

import json
import re
from typing import Any

MAX_DEPTH = 32  # our deepest input is three levels; this is room for any integrator's metadata
_UNREADABLE = re.compile("[\x00\ud800-\udfff]")


def _not_json(constant: str) -> None:
    raise ValueError(f"{constant} is not JSON")


class JsonInputError(ValueError):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code, self.message = code, message


def text_unreadable(text: str) -> bool:
    """A NUL or a lone surrogate: characters no database column or UTF-8 byte stream can hold."""
    return _UNREADABLE.search(text) is not None


def text_unreadable_removed(text: str) -> str:
    return _UNREADABLE.sub("", text)


def json_input_read(raw: str | bytes, *, max_depth: int = MAX_DEPTH, strings_checked: bool = True) -> Any:
    """The parsed document, or JsonInputError: invalid_json, too_deep or unreadable_text.

    `strings_checked=False` leaves NULs and lone surrogates to the caller, which can then answer
    the one field they are in (the socket's message text, with its client_id)."""
    try:
        document = json.loads(raw, parse_constant=_not_json)
    except RecursionError:
        raise JsonInputError("too_deep", f"the JSON is nested more than {max_depth} levels deep") from None
    except (ValueError, UnicodeDecodeError):
        raise JsonInputError("invalid_json", "the body is not valid JSON") from None
    _check(document, max_depth, strings_checked)
    return document


def _check(document: Any, max_depth: int, strings_checked: bool) -> None:
    # Iterative, so the check itself cannot recurse too deeply.
    pending = [(document, 1)]
    while pending:
        value, depth = pending.pop()
        if isinstance(value, str):
            if strings_checked and text_unreadable(value):
                raise JsonInputError("unreadable_text", "a string contains a NUL or a lone surrogate character")
            continue
        if not isinstance(value, (dict, list)):
            continue
        if depth > max_depth:
            raise JsonInputError("too_deep", f"the JSON is nested more than {max_depth} levels deep")
        items = value.items() if isinstance(value, dict) else enumerate(value)
        for key, item in items:
            if strings_checked and isinstance(key, str) and text_unreadable(key):
                raise JsonInputError("unreadable_text", "a key contains a NUL or a lone surrogate character")
            pending.append((item, depth + 1))
