"""Tables as sentences, one per row (pure): shared by the readers of every format that has tables."""

from __future__ import annotations

import re
from itertools import zip_longest

_CJK = re.compile(r"[\u3400-\u9fff]")
_DIGIT = re.compile(r"\d")


def table_sentences(rows: list[list[str]], *, header: bool | None = None) -> list[str]:
    """A table as one sentence per row, each cell labelled with its column's heading, so that a row read
    alone (in a chunk, quoted in a reply) still says what its numbers are: "Destination: Hong Kong,
    Delivery time: 2-4 business days, Shipping fee: ¥40." A flattened table runs all its cells into one
    sentence that no answer can quote. Cells are joined with commas: a ";" would end the sentence.

    `header` None guesses: the first row heads the table when it holds no digit and a later row does."""
    rows = [[re.sub(r"\s+", " ", cell).strip() for cell in row] for row in rows]
    rows = [row for row in rows if any(row)]
    if header is None:
        header = (
            len(rows) > 1
            and not any(map(_DIGIT.search, rows[0]))
            and any(_DIGIT.search(c) for r in rows[1:] for c in r)
        )
    names = rows[0] if header and len(rows) > 1 else []
    lines = []
    for row in rows[1:] if names else rows:
        chinese = any(_CJK.search(cell) for cell in row)
        between, label, end = ("，", "：", "。") if chinese else (", ", ": ", ".")
        cells = [
            f"{name}{label}{cell}" if name else cell for name, cell in zip_longest(names, row, fillvalue="") if cell
        ]
        line = between.join(cells)
        lines.append(line if line.endswith((".", "。", "!", "！", "?", "？")) else line + end)
    return lines
