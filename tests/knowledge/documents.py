"""PDF and DOCX files built for the tests: ordinary ones, and ones that unpack to far more than they weigh; and
how a test tells the processes that read them."""

from __future__ import annotations

import io
import struct
import zipfile
import zlib

import docx
import psutil

MB = 1024 * 1024
WARRANTY_OPS = b"BT /F1 12 Tf 72 720 Td (Phones have a one-year warranty.) Tj ET\n"
_LINE_OPS = b"0 0 m 1 1 l S\n"  # a line drawn from one corner to the next, over and over


def _docx_parts() -> dict[str, bytes]:
    document = docx.Document()
    document.add_paragraph("Phones have a one-year warranty.")
    buffer = io.BytesIO()
    document.save(buffer)
    with zipfile.ZipFile(buffer) as archive:
        return {info.filename: archive.read(info) for info in archive.infolist()}


def docx_bomb(unpacked_mb: int) -> bytes:
    """A DOCX whose word/document.xml unpacks to `unpacked_mb` MB of empty paragraphs, written to the
    archive as a stream so the test never holds it (100 MB packs to about 330 KB)."""
    parts = _docx_parts()
    head, tail = parts["word/document.xml"].split(b"</w:body>")
    paragraphs = b"<w:p><w:r><w:t>x</w:t></w:r></w:p>" * (MB // 35)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in parts.items():
            if name != "word/document.xml":
                archive.writestr(name, data)
                continue
            with archive.open(name, "w", force_zip64=True) as member:
                member.write(head)
                for _ in range(unpacked_mb):
                    member.write(paragraphs)
                member.write(b"</w:body>" + tail)
    return buffer.getvalue()


def docx_of_paragraphs(count: int) -> bytes:
    """An ordinary DOCX of `count` numbered paragraphs (20,000 fill about 300 pages)."""
    parts = _docx_parts()
    head, tail = parts["word/document.xml"].split(b"</w:body>")
    body = b"".join(b"<w:p><w:r><w:t>Warranty note %d.</w:t></w:r></w:p>" % i for i in range(count))
    parts["word/document.xml"] = head + body + b"</w:body>" + tail
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in parts.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def declared_size_changed(raw: bytes, member: str, size: int) -> bytes:
    """The archive with `member`'s unpacked size in the central directory, which is what zipfile reads,
    replaced by `size`: an archive that lies about what it holds."""
    data = bytearray(raw)
    at = data.find(b"PK\x01\x02")
    while at != -1:
        (name_length,) = struct.unpack_from("<H", data, at + 28)
        if data[at + 46 : at + 46 + name_length] == member.encode():
            struct.pack_into("<I", data, at + 24, size)
            return bytes(data)
        at = data.find(b"PK\x01\x02", at + 4)
    raise AssertionError(f"no {member} in the archive")


def pdf_drawing(pages: int, drawn_bytes: int) -> bytes:
    """A PDF of `pages` pages that each draw one shared, deflated content stream of `drawn_bytes`: a line
    of warranty text, then lines drawn over and over. 450 pages of 8 MB weigh about 90 KB."""
    content = WARRANTY_OPS + _LINE_OPS * max(0, (drawn_bytes - len(WARRANTY_OPS)) // len(_LINE_OPS))
    packed = zlib.compress(content, 9)
    objects = {
        1: b"<< /Type /Catalog /Pages 2 0 R >>",
        3: b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        4: b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(packed) + packed + b"\nendstream",
    }
    page = b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents 4 0 R >>"
    kids = list(range(5, 5 + pages))
    objects.update(dict.fromkeys(kids, page))
    objects[2] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (b" ".join(b"%d 0 R" % kid for kid in kids), pages)
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n")
    offsets = {}
    for number in sorted(objects):
        offsets[number] = out.tell()
        out.write(b"%d 0 obj\n%s\nendobj\n" % (number, objects[number]))
    xref, size = out.tell(), max(objects) + 1
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % size)
    out.writelines(b"%010d 00000 n \n" % offsets[number] for number in range(1, size))
    out.write(b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (size, xref))
    return out.getvalue()


def reads_a_file(process: psutil.Process) -> bool:
    """Whether `process` is a reader of knowledge.extract. One gone, or a zombie its parent has not reaped yet (a
    killed reader), reads nothing and has no command line to ask."""
    try:
        return "knowledge.extract" in " ".join(process.cmdline())
    except psutil.NoSuchProcess:  # ZombieProcess is one
        return False
