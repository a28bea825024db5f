"""PDF and DOCX files that unpack to far more than they weigh are refused before they are unpacked; what
gets past the checks is stopped by the limits of the child process that reads it."""

from __future__ import annotations

import dataclasses
import time
import tracemalloc
from collections.abc import Callable

import psutil
import pypdf  # noqa: F401 - imported here, so what it allocates on import is not counted as a file's
import pytest

from knowledge.extract import ExtractLimits, IngestError, _child_answer, text_extract, text_extract_isolated
from tests.knowledge.documents import (
    MB,
    declared_size_changed,
    docx_bomb,
    docx_of_paragraphs,
    pdf_drawing,
    reads_a_file,
)

LIMITS = ExtractLimits(
    inflated_bytes=50 * MB, inflate_ratio=100, pdf_pages=500, pdf_page_bytes=1 * MB, text_chars=2_000_000
)


def refused(name: str, raw: bytes, limits: ExtractLimits = LIMITS) -> tuple[str, float, int]:
    """Why `text_extract` refused the file, how long it took (slowed some threefold by tracemalloc), and the
    most memory it allocated meanwhile."""
    tracemalloc.start()
    started = time.monotonic()
    try:
        with pytest.raises(IngestError) as error:
            text_extract(name, raw, limits)
        return str(error.value), time.monotonic() - started, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_docx_bomb_is_refused_by_its_declared_size_before_anything_is_inflated() -> None:
    bomb = docx_bomb(unpacked_mb=100)

    reason, seconds, peak = refused("bomb.docx", bomb)

    assert len(bomb) < 500_000
    assert reason.startswith("bomb.docx: too large when unpacked: it declares 97.9 MB; at most 50.0 MB")
    assert reason.endswith("(KNOWLEDGE_MAX_INFLATED_BYTES)")
    assert seconds < 5 and peak < 2 * MB  # nothing was inflated


def test_a_docx_part_packed_too_tightly_is_refused_though_under_the_size_limit() -> None:
    reason, _, peak = refused("dense.docx", docx_bomb(unpacked_mb=20))

    assert "word/document.xml unpacks to" in reason and "at most 100 times (KNOWLEDGE_MAX_INFLATE_RATIO)" in reason
    assert peak < 2 * MB


def test_a_docx_that_declares_less_than_it_holds_is_read_no_further_than_declared() -> None:
    # given: 20 MB of XML declared as 1000 bytes, under every limit
    lying = declared_size_changed(docx_bomb(unpacked_mb=20), "word/document.xml", 1000)

    reason, _, peak = refused("lying.docx", lying)

    assert reason.startswith("lying.docx: not a readable DOCX file (Bad CRC-32")
    assert peak < 2 * MB


def test_a_pdf_whose_pages_each_draw_a_large_stream_is_refused_before_any_is_parsed() -> None:
    # given: the security re-run's file, 450 pages that each draw one shared 8 MB stream
    bomb = pdf_drawing(pages=450, drawn_bytes=8 * MB)

    reason, seconds, peak = refused("bomb.pdf", bomb)

    assert len(bomb) < 100_000
    assert reason == "bomb.pdf: too large when unpacked: page 1 draws more than 1.0 MB (KNOWLEDGE_MAX_PDF_PAGE_BYTES)"
    assert seconds < 5 and peak < 5 * MB  # the 8 MB stream stopped inflating at the page's 1 MB


def test_a_pdf_whose_pages_draw_too_much_together_is_refused_before_any_is_parsed() -> None:
    reason, seconds, _ = refused("long.pdf", pdf_drawing(pages=60, drawn_bytes=900_000))

    assert reason.startswith(
        "long.pdf: too large when unpacked: its first 59 of 60 pages draw 50.6 MB; at most 50.0 MB"
    )
    assert seconds < 5  # parsing what they draw would take pypdf about 100 s


@pytest.mark.parametrize(
    ("name", "build"),
    [("notes.docx", lambda: docx_of_paragraphs(50)), ("notes.pdf", lambda: pdf_drawing(pages=3, drawn_bytes=100))],
    ids=["docx", "pdf"],
)
def test_more_text_than_the_limit_is_refused(name: str, build: Callable[[], bytes]) -> None:
    limits = dataclasses.replace(LIMITS, text_chars=60)

    reason, _, _ = refused(name, build(), limits)

    assert reason == f"{name}: more than 60 characters of text (KNOWLEDGE_MAX_TEXT_CHARS): split it into smaller files"


def test_a_long_docx_is_read_in_seconds() -> None:
    # python-docx's Paragraph.style took 2 ms a paragraph: 40 s for this file.
    raw = docx_of_paragraphs(20_000)
    started = time.monotonic()

    extracted = text_extract("manual.docx", raw, LIMITS)

    assert extracted.text.splitlines()[-1] == "Warranty note 19999."
    assert time.monotonic() - started < 10


def test_a_child_process_reads_what_the_checks_pass() -> None:
    extracted = text_extract_isolated(
        "warranty.pdf", pdf_drawing(pages=2, drawn_bytes=100), limits=LIMITS, cpu_s=10, memory_bytes=1024 * MB
    )

    assert extracted.text == "Phones have a one-year warranty.\n\nPhones have a one-year warranty."


def test_a_file_past_the_processor_time_limit_is_killed_and_refused() -> None:
    # given: 5 pages of 0.9 MB pass every check, and take pypdf about 10 s to parse
    slow = pdf_drawing(pages=5, drawn_bytes=900_000)
    started = time.monotonic()

    with pytest.raises(IngestError) as error:
        text_extract_isolated("slow.pdf", slow, limits=LIMITS, cpu_s=1, memory_bytes=1024 * MB)

    assert str(error.value) == "slow.pdf: took too long to read: stopped after 1 s (KNOWLEDGE_PARSE_MAX_CPU_S)"
    assert time.monotonic() - started < 4


def test_a_file_past_the_memory_limit_is_refused() -> None:
    # given: 4 MB of Word XML packed 15 times, under every check; python-docx needs about 150 MB for it
    heavy = docx_of_paragraphs(80_000)

    with pytest.raises(IngestError) as error:
        text_extract_isolated("heavy.docx", heavy, limits=LIMITS, cpu_s=30, memory_bytes=100 * MB)

    assert str(error.value) == (
        "heavy.docx: too large when unpacked: reading it needs more than 100 MB of memory"
        " (KNOWLEDGE_PARSE_MAX_MEMORY_BYTES)"
    )


class Cancelled(Exception):
    pass


def test_what_waiting_raises_kills_the_child_at_once() -> None:
    children: list[psutil.Process] = []

    def cancelled() -> None:
        children.extend(child for child in psutil.Process().children() if reads_a_file(child))
        raise Cancelled

    with pytest.raises(Cancelled):
        text_extract_isolated(
            "slow.pdf",
            pdf_drawing(pages=20, drawn_bytes=900_000),
            limits=LIMITS,
            cpu_s=60,
            memory_bytes=1024 * MB,
            waiting=cancelled,
        )

    assert len(children) == 1 and not psutil.pid_exists(children[0].pid)


@pytest.mark.parametrize(
    ("code", "out", "err", "reason"),
    [
        (0, b'{"title": "", "te', b"", "a.pdf: could not be read (the reader's answer was incomplete)"),
        (
            1,
            b"",
            b"Traceback (most recent call last):\n  ...\nRuntimeError: boom\n",
            "a.pdf: could not be read (RuntimeError: boom)",
        ),
        (-9, b"", b"", "a.pdf: took too long to read: stopped after 5 s (KNOWLEDGE_PARSE_MAX_CPU_S)"),
    ],
    ids=["cut-short", "crashed", "killed"],
)
def test_a_reader_that_ends_badly_still_gives_the_file_a_reason(code: int, out: bytes, err: bytes, reason: str) -> None:
    with pytest.raises(IngestError) as error:
        _child_answer("a.pdf", code, out, err, cpu_s=5, memory_bytes=100 * MB)

    assert str(error.value) == reason
