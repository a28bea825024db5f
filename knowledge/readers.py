"""Files to chunks: Markdown, text, HTML, PDF, DOCX and FAQ lists (pure, no database).

Every reader turns its format into Markdown-like text with `#` headings, so one heading-aware
chunker serves them all and every chunk keeps the heading path a citation shows. A file that
cannot be read raises `IngestError` with a sentence an operator can act on.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from html.parser import HTMLParser

from django.conf import settings

from knowledge.chunking import TextChunk, chunk_markdown
from knowledge.extract import CONTAINER_TYPES, ExtractLimits, IngestError, text_extract, text_extract_isolated
from knowledge.tables import table_sentences

MARKDOWN_TYPES = {".md", ".markdown", ".txt"}
FAQ_TYPES = {".csv", ".json"}
HTML_TYPES = {".html", ".htm"}
SUPPORTED_TYPES = MARKDOWN_TYPES | FAQ_TYPES | HTML_TYPES | CONTAINER_TYPES


@dataclass(frozen=True)
class ReadDocument:
    title: str
    chunks: list[TextChunk]


def suffix_of(name: str) -> str:
    dot = name.rfind(".")
    return name[dot:].lower() if dot > name.rfind("/") else ""


def decode_text(raw: bytes, name: str) -> str:
    """UTF-8 (with or without BOM), else GB18030, the superset of the GBK that Chinese Windows writes."""
    if b"\x00" in raw[:4096]:
        raise IngestError(f"{name}: binary content in a text file")
    for encoding in ("utf-8-sig", "gb18030"):
        try:
            text = raw.decode(encoding)
        except UnicodeDecodeError:
            continue
        # gb18030 decodes almost any byte soup; real text has few control characters.
        controls = sum(1 for c in text[:4096] if ord(c) < 32 and c not in "\r\n\t\f")
        if controls <= len(text[:4096]) * 0.01:
            return text
    raise IngestError(f"{name}: not UTF-8 or GBK text")


# "shipping_en.md", "faq-zh-CN.json": a language tag at the end of a file name is no part of its topic
_LANGUAGE_TAG = re.compile(r"[ _.-](?:en|zh|cn|zh[_-](?:cn|hans|hant|tw|hk)|en[_-](?:us|gb))$", re.IGNORECASE)


def _title_from(name: str) -> str:
    stem = name.rsplit("/", 1)[-1]
    stem = stem[: stem.rfind(".")] if "." in stem else stem
    return _LANGUAGE_TAG.sub("", stem).replace("_", " ").replace("-", " ").strip() or name


_PIPE_RULE = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)*\|?\s*$")


def _pipe_cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def _pipe_tables_as_sentences(text: str) -> str:
    """Markdown pipe tables (a heading row, a |---| rule, the rows) become one sentence per row."""
    lines, out, i = text.splitlines(), [], 0
    while i < len(lines):
        if "|" in lines[i] and i + 1 < len(lines) and _PIPE_RULE.match(lines[i + 1]):
            rows, i = [_pipe_cells(lines[i])], i + 2
            while i < len(lines) and "|" in lines[i] and lines[i].strip():
                rows.append(_pipe_cells(lines[i]))
                i += 1
            out += table_sentences(rows, header=True)
        else:
            out.append(lines[i])
            i += 1
    return "\n".join(out)


def _markdown(text: str, name: str, title: str = "") -> ReadDocument:
    text = _pipe_tables_as_sentences(text.strip())
    if not text:
        raise IngestError(f"{name}: empty")
    first = re.sub(r"^#+\s*", "", text.splitlines()[0]).strip()
    title = title or first[:300] or _title_from(name)
    chunks = chunk_markdown(text, title=title)
    if not chunks:
        raise IngestError(f"{name}: no text to index")
    return ReadDocument(title, chunks)


def _faq(entries: list[tuple[str, str]], name: str) -> ReadDocument:
    chunks = [TextChunk(q.strip(), f"{q.strip()} {a.strip()}") for q, a in entries if q.strip() and a.strip()]
    if not chunks:
        raise IngestError(f"{name}: no question/answer entries")
    return ReadDocument(_title_from(name), chunks)


def _read_csv(raw: bytes, name: str) -> ReadDocument:
    rows = list(csv.DictReader(io.StringIO(decode_text(raw, name))))
    header = {h.strip().lower() for h in rows[0]} if rows else set()
    if not {"question", "answer"} <= header:
        raise IngestError(f"{name}: an FAQ CSV needs a question,answer header")
    clean = [{(k or "").strip().lower(): (v or "") for k, v in row.items()} for row in rows]
    return _faq([(r["question"], r["answer"]) for r in clean], name)


def _read_json(raw: bytes, name: str) -> ReadDocument:
    try:
        data = json.loads(decode_text(raw, name))
    except json.JSONDecodeError as exc:
        raise IngestError(f"{name}: invalid JSON ({exc.msg}, line {exc.lineno})") from None
    if not isinstance(data, list) or not all(isinstance(e, dict) and "question" in e and "answer" in e for e in data):
        raise IngestError(f'{name}: an FAQ JSON must be a list of {{"question": …, "answer": …}}')
    return _faq([(str(e["question"]), str(e["answer"])) for e in data], name)


class _HtmlToMarkdown(HTMLParser):
    """Headings become `#` lines, blocks become lines, a table one sentence per row (`table_sentences`);
    scripts, styles and page chrome are dropped."""

    SKIP = {"script", "style", "noscript", "template", "nav", "header", "footer", "aside", "svg"}
    BLOCKS = {"p", "div", "section", "article", "li", "br", "blockquote", "pre", "dd", "dt"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.lines: list[str] = [""]
        self.title = ""
        self._skipping = 0
        self._in_title = False
        self._tables = 0  # depth: a table inside a cell is read as the cell's text
        self._rows: list[list[str]] = []
        self._heads: list[bool] = []  # per row: every cell a <th>
        self._cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self.SKIP:
            self._skipping += 1
        elif tag == "title":
            self._in_title = True
        elif tag == "table":
            self._tables += 1
            if self._tables == 1:
                self._rows, self._heads = [], []
        elif self._tables == 1 and tag == "tr":
            self._rows.append([])
            self._heads.append(True)
        elif self._tables == 1 and tag in ("td", "th") and self._rows:
            self._cell = []
            self._heads[-1] = self._heads[-1] and tag == "th"
        elif re.fullmatch(r"h[1-6]", tag):
            self.lines.append("#" * int(tag[1]) + " ")
        elif tag in self.BLOCKS:
            self.lines.append("")

    def handle_endtag(self, tag: str) -> None:
        if tag in self.SKIP:
            self._skipping = max(0, self._skipping - 1)
        elif tag == "title":
            self._in_title = False
        elif tag == "table" and self._tables:
            self._tables -= 1
            if not self._tables:
                header = bool(self._heads) and self._heads[0] and len(self._rows) > 1
                self.lines += ["", *table_sentences(self._rows, header=header or None), ""]
        elif self._tables == 1 and tag in ("td", "th") and self._cell is not None:
            self._rows[-1].append(" ".join(self._cell))
            self._cell = None
        elif re.fullmatch(r"h[1-6]", tag) or tag in self.BLOCKS:
            self.lines.append("")

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title += data.strip()
        elif self._skipping:
            return
        elif self._cell is not None:
            self._cell.append(data)
        elif not self._tables:
            self.lines[-1] += re.sub(r"\s+", " ", data)


def _read_html(raw: bytes, name: str) -> ReadDocument:
    head = raw[:2048].decode("ascii", "ignore").lower()
    charset = re.search(r"charset=[\"']?([a-z0-9_-]+)", head)
    if charset and charset.group(1) in ("gbk", "gb2312", "gb18030"):
        text = raw.decode("gb18030", errors="replace")
    else:
        text = decode_text(raw, name)
    parser = _HtmlToMarkdown()
    parser.feed(text)
    parser.close()
    lines = [line.strip().strip("|").strip() for line in parser.lines]
    markdown = "\n".join(line for line in lines if line and not re.fullmatch(r"#+", line))
    return _markdown(markdown, name, title=parser.title)


def extract_limits() -> ExtractLimits:
    return ExtractLimits(
        inflated_bytes=settings.KNOWLEDGE_MAX_INFLATED_BYTES,
        inflate_ratio=settings.KNOWLEDGE_MAX_INFLATE_RATIO,
        pdf_pages=settings.KNOWLEDGE_MAX_PDF_PAGES,
        pdf_page_bytes=settings.KNOWLEDGE_MAX_PDF_PAGE_BYTES,
        text_chars=settings.KNOWLEDGE_MAX_TEXT_CHARS,
    )


def _read_container(raw: bytes, name: str) -> ReadDocument:
    extracted = text_extract(name, raw, extract_limits())
    return _markdown(extracted.text, name, title=extracted.title)


_READERS: dict[str, Callable[[bytes, str], ReadDocument]] = {
    ".csv": _read_csv,
    ".json": _read_json,
    ".html": _read_html,
    ".htm": _read_html,
    ".pdf": _read_container,
    ".docx": _read_container,
}


def document_check_unread(name: str, size: int, *, max_bytes: int) -> None:
    """What can be refused before reading a byte: an unsupported type, a file too large."""
    suffix = suffix_of(name)
    if suffix not in SUPPORTED_TYPES:
        supported = ", ".join(sorted(SUPPORTED_TYPES))
        raise IngestError(f"{name}: unsupported type {suffix or '(no extension)'}; supported: {supported}")
    if size > max_bytes:
        raise IngestError(f"{name}: {size / 1048576:.1f} MB is larger than the {max_bytes // 1048576} MB limit")


def document_read_precheck(name: str, raw: bytes, *, max_bytes: int) -> None:
    """The checks that need no parsing: a supported type, not too large, not empty."""
    document_check_unread(name, len(raw), max_bytes=max_bytes)
    if not raw.strip():
        raise IngestError(f"{name}: empty")


def document_read(name: str, raw: bytes, *, max_bytes: int) -> ReadDocument:
    """The title and chunks of a file named `name`; an FAQ entry is one chunk (question + answer)."""
    document_read_precheck(name, raw, max_bytes=max_bytes)
    reader = _READERS.get(suffix_of(name))
    if reader is None:
        return _markdown(decode_text(raw, name), name)
    return reader(raw, name)


def document_read_isolated(
    name: str, raw: bytes, *, max_bytes: int, waiting: Callable[[], None] | None = None
) -> ReadDocument:
    """`document_read`, with a PDF or DOCX read in a child process under KNOWLEDGE_PARSE_MAX_CPU_S and
    KNOWLEDGE_PARSE_MAX_MEMORY_BYTES (knowledge.extract); `waiting` is called while it works, and what
    it raises kills the child. The other formats cannot unpack to more than they weigh, so they are
    read here, saving a process start."""
    if suffix_of(name) not in CONTAINER_TYPES:
        return document_read(name, raw, max_bytes=max_bytes)
    document_read_precheck(name, raw, max_bytes=max_bytes)
    extracted = text_extract_isolated(
        name,
        raw,
        limits=extract_limits(),
        cpu_s=settings.KNOWLEDGE_PARSE_MAX_CPU_S,
        memory_bytes=settings.KNOWLEDGE_PARSE_MAX_MEMORY_BYTES,
        waiting=waiting,
    )
    return _markdown(extracted.text, name, title=extracted.title)
