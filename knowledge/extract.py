"""PDF and DOCX to text within limits: what a file unpacks to is checked before it is unpacked.

A 449 KB DOCX can declare 300 MB of XML, and a 92 KB PDF can draw one 8 MB stream on each of 450
pages: read as they come, each holds a worker for minutes. A DOCX is refused by the sizes and ratios
its archive declares before anything is inflated, then inflated with a cap in case they lie; a PDF by
what its pages' content decodes to, measured before any of it is parsed; both by the text they yield.
What gets past that is stopped by `text_extract_isolated`, which reads the file in a child process
(`python -m knowledge.extract`) with limits on processor time and memory, and can be killed at once.

No Django and only the standard library at import (pypdf and python-docx load on use): the child
starts in 0.2 s, and never sees the worker's settings or secrets.
"""

from __future__ import annotations

import io
import json
import logging
import os
import re
import resource
import signal
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from knowledge.tables import table_sentences

CONTAINER_TYPES = {".pdf", ".docx"}  # the formats that unpack to more than they weigh

# A member this small is harmless whatever its ratio (a 40 KB styles.xml can pack 50 times).
_RATIO_FLOOR_BYTES = 1024 * 1024
_MAX_MEMBERS = 10_000  # a long report with many pictures has a few hundred
_READ_STEP = 64 * 1024
# pypdf's caps on what one stream decodes to (pypdf.Configuration, 75 MB each by default), lowered to
# what a page may draw, so a larger stream stops inflating there instead of after.
_PYPDF_OUTPUT_LIMITS = (
    "zlib_maximum_output_length",
    "lzw_maximum_output_length",
    "run_length_maximum_output_length",
    "brotli_maximum_output_length",
    "jbig2_maximum_output_length",
    "array_based_stream_maximum_output_length",
)
_EXIT_MEMORY = 3  # the child's exit status when it ran out of memory
_POLL_S = 0.2
_PROJECT_ROOT = Path(__file__).resolve().parent.parent  # where `-m knowledge.extract` is found


class IngestError(Exception):
    """A file that cannot be ingested; the message says why."""


@dataclass(frozen=True)
class ExtractLimits:
    inflated_bytes: int  # a DOCX's members together; what a PDF's pages draw, together
    inflate_ratio: int  # unpacked over packed size of one DOCX member (of more than 1 MB unpacked)
    pdf_pages: int
    pdf_page_bytes: int  # what one PDF page draws: its content streams and forms, decoded
    text_chars: int  # the text a file yields


@dataclass(frozen=True)
class ExtractedText:
    title: str
    text: str  # Markdown-like: `#` headings, a block a line


def _mb(size: int) -> str:
    return f"{size / 1048576:.1f} MB"


def _text_checked(name: str, chars: int, limits: ExtractLimits) -> None:
    if chars > limits.text_chars:
        raise IngestError(
            f"{name}: more than {limits.text_chars} characters of text (KNOWLEDGE_MAX_TEXT_CHARS):"
            " split it into smaller files"
        )


# --- DOCX -------------------------------------------------------------------------------------


def docx_unpacked(raw: bytes, name: str, limits: ExtractLimits) -> bytes:
    """The DOCX's parts, checked and inflated with a cap, repacked uncompressed for python-docx.

    1. Refuse by what the archive declares, before inflating a byte: a method Word never uses (only
       deflate stops where it is told to), more than `inflated_bytes` in all, a large member packed more
       than `inflate_ratio` times.
    2. Inflate part by part, never past what remains of `inflated_bytes`, since declared sizes can
       lie (zipfile itself also stops at a part's declared size and then checks its CRC).
    3. Repack without compression, so python-docx reads only the bytes counted here.
    """
    try:
        archive = zipfile.ZipFile(io.BytesIO(raw))
        members = [info for info in archive.infolist() if not info.is_dir()]
        if len(members) > _MAX_MEMBERS:
            raise IngestError(f"{name}: {len(members)} parts in one DOCX; at most {_MAX_MEMBERS}")
        declared = sum(info.file_size for info in members)
        if declared > limits.inflated_bytes:
            raise IngestError(
                f"{name}: too large when unpacked: it declares {_mb(declared)};"
                f" at most {_mb(limits.inflated_bytes)} (KNOWLEDGE_MAX_INFLATED_BYTES)"
            )
        for info in members:
            if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
                raise IngestError(f"{name}: {info.filename} is packed with a method Word never uses")
            ratio = info.file_size / max(info.compress_size, 1)
            if info.file_size > _RATIO_FLOOR_BYTES and ratio > limits.inflate_ratio:
                raise IngestError(
                    f"{name}: too large when unpacked: {info.filename} unpacks to {ratio:.0f} times its packed"
                    f" size ({_mb(info.file_size)}); at most {limits.inflate_ratio} times (KNOWLEDGE_MAX_INFLATE_RATIO)"
                )
        packed, remaining, names = io.BytesIO(), limits.inflated_bytes, set()
        with zipfile.ZipFile(packed, "w", zipfile.ZIP_STORED) as repacked:
            for info in members:
                if info.filename in names:
                    raise IngestError(f"{name}: two parts named {info.filename}")
                names.add(info.filename)
                data = bytearray()
                with archive.open(info) as member:
                    # Step by step: zipfile inflates as much as one read() asks for before it cuts the
                    # result to the declared size.
                    while step := member.read(_READ_STEP):
                        data += step
                        if len(data) > remaining:
                            raise IngestError(
                                f"{name}: too large when unpacked: more than {_mb(limits.inflated_bytes)}"
                                " (KNOWLEDGE_MAX_INFLATED_BYTES), though it declared less"
                            )
                remaining -= len(data)
                repacked.writestr(info.filename, bytes(data))
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, ValueError, NotImplementedError, RuntimeError) as exc:
        raise IngestError(f"{name}: not a readable DOCX file ({exc})") from None
    return packed.getvalue()


def docx_text(raw: bytes, name: str, limits: ExtractLimits) -> ExtractedText:
    import docx
    from docx.enum.style import WD_STYLE_TYPE
    from docx.opc.exceptions import PackageNotFoundError

    unpacked = docx_unpacked(raw, name, limits)
    try:
        document = docx.Document(io.BytesIO(unpacked))
    # lxml's XMLSyntaxError is a SyntaxError
    except (PackageNotFoundError, zipfile.BadZipFile, KeyError, ValueError, SyntaxError) as exc:
        raise IngestError(f"{name}: not a readable DOCX file ({exc})") from None
    # Paragraph.style looks the default style up anew for every paragraph that has none, 2 ms each:
    # 40 s for a 300-page document. Style names by id are read once instead.
    paragraph_styles = [style for style in document.styles if style.type == WD_STYLE_TYPE.PARAGRAPH]
    names = {style.style_id: style.name or "" for style in paragraph_styles}
    default = document.styles.default(WD_STYLE_TYPE.PARAGRAPH)
    default_name = (default.name if default is not None else "") or ""
    lines: list[str] = []
    chars = 0
    for paragraph in document.paragraphs:
        text = paragraph.text.strip()
        chars += len(text)
        _text_checked(name, chars, limits)
        style_id = paragraph._p.style  # what Paragraph.style reads: the pStyle's id, None for the default
        style = names.get(style_id, default_name) if style_id else default_name
        level = re.fullmatch(r"Heading (\d)", style)
        if text and style == "Title":
            lines.append(f"# {text}")
        elif text and level:
            lines.append("#" * min(6, int(level.group(1)) + 1) + f" {text}")
        elif text:
            lines.append(text)
    for table in document.tables:
        sentences = table_sentences([[cell.text for cell in row.cells] for row in table.rows])
        chars += sum(map(len, sentences))
        _text_checked(name, chars, limits)
        lines += sentences
    return ExtractedText((document.core_properties.title or "").strip(), "\n".join(lines))


# --- PDF --------------------------------------------------------------------------------------


def _forms_bytes(resources: Any, *, depth: int, seen: set[int]) -> int:
    """What the forms (XObjects of subtype /Form) a page or form draws decode to, nested ones included."""
    from pypdf.generic import StreamObject

    resources = resources.get_object() if resources is not None else None
    xobjects = resources.get("/XObject") if isinstance(resources, dict) else None
    xobjects = xobjects.get_object() if xobjects is not None else None
    if depth > 8 or not isinstance(xobjects, dict):
        return 0
    size = 0
    for reference in xobjects.values():
        form = reference.get_object()
        if id(form) in seen or not isinstance(form, StreamObject) or form.get("/Subtype") != "/Form":
            continue
        seen.add(id(form))
        size += len(form.get_data()) + _forms_bytes(form.get("/Resources"), depth=depth + 1, seen=seen)
    return size


def _page_drawn_bytes(page: Any) -> int:
    """What a page's content streams and forms decode to. pypdf keeps a decoded stream, so a stream that
    many pages draw is inflated once, but counted on every page: each page parses it again."""
    contents = page.get_contents()
    size = len(contents.get_data()) if contents is not None else 0
    return size + _forms_bytes(page.get("/Resources"), depth=0, seen=set())


def pdf_text(raw: bytes, name: str, limits: ExtractLimits) -> ExtractedText:
    from pypdf import PdfReader, apply_configuration
    from pypdf.errors import LimitReachedError, PyPdfError

    caps: dict[str, Any] = dict.fromkeys(_PYPDF_OUTPUT_LIMITS, limits.pdf_page_bytes)
    # No jbig2dec: text extraction never needs an image decoded, and the child starts no other program.
    caps.update(stream_decoding_work_maximum_length=limits.inflated_bytes, jbig2dec_binary=None)
    try:
        with apply_configuration(**caps):
            reader = PdfReader(io.BytesIO(raw))
            if reader.is_encrypted:
                raise IngestError(f"{name}: the PDF is password-protected")
            count = len(reader.pages)
            if count > limits.pdf_pages:
                raise IngestError(f"{name}: {count} pages; at most {limits.pdf_pages} (KNOWLEDGE_MAX_PDF_PAGES)")
            # Every page is measured before any is parsed: inflating is quick, but pypdf parses drawing
            # operators at about half a megabyte a second.
            drawn = 0
            for number, page in enumerate(reader.pages, 1):
                try:
                    size = _page_drawn_bytes(page)
                except LimitReachedError:  # a stream stopped inflating at the page's limit
                    size = limits.pdf_page_bytes + 1
                if size > limits.pdf_page_bytes:
                    raise IngestError(
                        f"{name}: too large when unpacked: page {number} draws more than"
                        f" {_mb(limits.pdf_page_bytes)} (KNOWLEDGE_MAX_PDF_PAGE_BYTES)"
                    )
                drawn += size
                if drawn > limits.inflated_bytes:
                    raise IngestError(
                        f"{name}: too large when unpacked: its first {number} of {count} pages draw {_mb(drawn)};"
                        f" at most {_mb(limits.inflated_bytes)} (KNOWLEDGE_MAX_INFLATED_BYTES)"
                    )
            pages, chars = [], 0
            for page in reader.pages:
                text = (page.extract_text() or "").strip()
                chars += len(text)
                _text_checked(name, chars, limits)
                pages.append(text)
            title = str(reader.metadata.get("/Title") or "").strip() if reader.metadata else ""
    except IngestError:
        raise
    except LimitReachedError as exc:
        raise IngestError(f"{name}: too large when unpacked ({exc})") from None
    except (PyPdfError, ValueError, KeyError, TypeError, OSError, IndexError) as exc:
        raise IngestError(f"{name}: not a readable PDF ({exc})") from None
    # PDF text comes in visual lines; a blank line between pages keeps sentences of two pages apart.
    text = "\n\n".join(p for p in pages if p)
    if not text:
        raise IngestError(f"{name}: the PDF has no text layer (a scan needs OCR first)")
    return ExtractedText(title, text)


def text_extract(name: str, raw: bytes, limits: ExtractLimits) -> ExtractedText:
    """The text of a PDF or DOCX file, in this process (see `text_extract_isolated`)."""
    reader = pdf_text if name.lower().endswith(".pdf") else docx_text
    return reader(raw, name, limits)


# --- the child process ------------------------------------------------------------------------


def text_extract_isolated(
    name: str,
    raw: bytes,
    *,
    limits: ExtractLimits,
    cpu_s: int,
    memory_bytes: int,
    waiting: Callable[[], None] | None = None,
) -> ExtractedText:
    """`text_extract` in a child process limited to `cpu_s` seconds of processor time and `memory_bytes`
    of address space; IngestError when the file is refused, by the checks or by those limits.

    `waiting` is called every 0.2 s while the child works: whatever it raises (the job was cancelled,
    or is out of time) kills the child at once and goes on up."""
    job = json.dumps({"name": name, "limits": asdict(limits), "cpu_s": cpu_s, "memory_bytes": memory_bytes})
    # The file goes in through an unnamed temporary file: communicate() retried after a timeout stops
    # writing to a pipe (CPython registers stdin only on its first call), and the child would wait forever.
    with tempfile.TemporaryFile() as given:
        given.write(raw)
        given.seek(0)
        process = subprocess.Popen(
            [sys.executable, "-E", "-s", "-m", "knowledge.extract", job],
            stdin=given,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=_PROJECT_ROOT,
            env={"PATH": os.environ.get("PATH", ""), "LANG": "C.UTF-8"},  # none of the worker's secrets
        )
    # The processor-time limit is the child's own; this one covers a child that waits instead of working.
    deadline = time.monotonic() + 2 * cpu_s + 10
    try:
        while True:
            try:
                out, err = process.communicate(timeout=_POLL_S)
                break
            except subprocess.TimeoutExpired:
                if time.monotonic() > deadline:
                    process.kill()
                    out, err = process.communicate()
                    break
                if waiting is not None:
                    waiting()
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    return _child_answer(name, process.returncode, out, err, cpu_s=cpu_s, memory_bytes=memory_bytes)


def _child_answer(name: str, code: int, out: bytes, err: bytes, *, cpu_s: int, memory_bytes: int) -> ExtractedText:
    if code == 0:
        try:
            answer = json.loads(out)
            if "error" in answer:
                raise IngestError(answer["error"])
            return ExtractedText(answer["title"], answer["text"])
        except (ValueError, KeyError, TypeError):  # an answer cut short: the job must still record the file
            raise IngestError(f"{name}: could not be read (the reader's answer was incomplete)") from None
    if code == _EXIT_MEMORY:
        raise IngestError(
            f"{name}: too large when unpacked: reading it needs more than {memory_bytes // 1048576} MB of memory"
            " (KNOWLEDGE_PARSE_MAX_MEMORY_BYTES)"
        )
    if code in (-signal.SIGXCPU, -signal.SIGKILL):
        raise IngestError(f"{name}: took too long to read: stopped after {cpu_s} s (KNOWLEDGE_PARSE_MAX_CPU_S)")
    last = err.decode("utf-8", "replace").strip().splitlines()[-1:] or [f"exit status {code}"]
    raise IngestError(f"{name}: could not be read ({last[0][:200]})")


def _memory_peak_bytes() -> int:
    """The most address space this process has held (Linux), which is what RLIMIT_AS limits."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            peak = next((line.split()[1] for line in status if line.startswith("VmPeak:")), "0")
    except OSError:
        return 0
    return int(peak) * 1024


def _child_main() -> None:
    """Read one file from stdin and write its text, or why not, as JSON to stdout."""
    job = json.loads(sys.argv[1])
    import docx  # noqa: F401 - loaded before the limits, which are for the file, not the interpreter
    import pypdf  # noqa: F401

    logging.disable(logging.WARNING)  # pypdf warns about every broken object, to no one here
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # a child stopped by SIGXCPU leaves no core file
    resource.setrlimit(resource.RLIMIT_AS, (job["memory_bytes"], job["memory_bytes"]))
    # Past the soft limit the kernel sends SIGXCPU, which ends the process; past the hard one, SIGKILL.
    resource.setrlimit(resource.RLIMIT_CPU, (job["cpu_s"], job["cpu_s"] + 1))
    try:
        raw = sys.stdin.buffer.read()
        try:
            extracted = text_extract(job["name"], raw, ExtractLimits(**job["limits"]))
            answer = {"title": extracted.title, "text": extracted.text}
        except IngestError as exc:
            # libxml2 out of memory is an XML syntax error ("unknown error") to lxml, not a MemoryError.
            if _memory_peak_bytes() > 0.9 * job["memory_bytes"]:
                os._exit(_EXIT_MEMORY)
            answer = {"error": str(exc)}
        sys.stdout.buffer.write(json.dumps(answer, ensure_ascii=False).encode())
    except MemoryError:
        os._exit(_EXIT_MEMORY)


if __name__ == "__main__":
    _child_main()
