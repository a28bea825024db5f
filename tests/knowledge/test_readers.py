"""Every supported format becomes heading-aware chunks; every kind of bad file is refused with a reason."""

from __future__ import annotations

import io
import json

import docx
import pytest
from pypdf import PdfReader, PdfWriter
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.cidfonts import UnicodeCIDFont
from reportlab.pdfgen import canvas

from knowledge.chunking import sentences
from knowledge.readers import IngestError, decode_text, document_read

LIMIT = 1024 * 1024


def pdf_bytes(lines: list[str], *, title: str = "", chinese: bool = False) -> bytes:
    buffer = io.BytesIO()
    page = canvas.Canvas(buffer)
    if title:
        page.setTitle(title)
    font = "Helvetica"
    if chinese:
        pdfmetrics.registerFont(UnicodeCIDFont("STSong-Light"))
        font = "STSong-Light"
    page.setFont(font, 12)
    for i, line in enumerate(lines):
        page.drawString(72, 760 - 18 * i, line)
    page.showPage()
    page.save()
    return buffer.getvalue()


def docx_bytes() -> bytes:
    document = docx.Document()
    document.core_properties.title = "保修政策"
    document.add_heading("保修期", level=1)
    document.add_paragraph("手机和平板整机保修一年。耳机保修六个月。")
    document.add_heading("Repairs", level=1)
    document.add_paragraph("In-warranty repairs are free.")
    table = document.add_table(rows=2, cols=2)
    for row, cells in zip(table.rows, [("Repair", "Price"), ("Screen", "¥899")], strict=True):
        row.cells[0].text, row.cells[1].text = cells
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


def test_markdown_keeps_heading_paths() -> None:
    read = document_read("returns.md", b"# Returns\n\n## Seven days\nAny reason.\n", max_bytes=LIMIT)

    assert read.title == "Returns"
    assert [(c.heading, c.text) for c in read.chunks] == [("Returns › Seven days", "Any reason.")]


@pytest.mark.parametrize(
    ("block", "lines"),
    [
        (
            "Order: AB-1001\nPick-up: 10:00, city store\n# not a heading",
            ["Order: AB-1001", "Pick-up: 10:00, city store"],
        ),
        ("订单：ZL-0001\n取货：门店 10:00\n押金：800元", ["订单：ZL-0001", "取货：门店 10:00", "押金：800元"]),
    ],
)
def test_a_code_blocks_lines_stay_sentences_of_their_own(block: str, lines: list[str]) -> None:
    """A template in a code block is records, not one run-on sentence: withholding one line keeps the others."""
    text = f"# Rentals\n\nThe text message reads:\n\n```\n{block}\n```\n\nLate returns cost a night's fee.\n"
    read = document_read("rentals.md", text.encode(), max_bytes=LIMIT)

    assert [c.heading for c in read.chunks] == ["Rentals"]  # a "#" line inside the block is not a heading
    assert [line for line in lines if line not in sentences(read.chunks[0].text)] == []
    assert "```" not in read.chunks[0].text


def test_html_drops_scripts_and_page_chrome_and_keeps_headings() -> None:
    html = """<html><head><title>发票说明</title><style>p{color:red}</style></head><body>
    <nav>首页 | 登录</nav><h1>发票</h1><h2>专用发票</h2><p>增值税专用发票需要提供&nbsp;税号。</p>
    <script>alert('x')</script><ul><li>个人发票</li><li>公司发票</li></ul><footer>© shop</footer></body></html>"""

    read = document_read("invoice.html", html.encode(), max_bytes=LIMIT)

    assert read.title == "发票说明"
    text = " ".join(c.text for c in read.chunks)
    assert "增值税专用发票需要提供 税号。" in text and "个人发票" in text
    assert "alert" not in text and "登录" not in text and "© shop" not in text and "color" not in text
    assert read.chunks[0].heading == "发票 › 专用发票"


@pytest.mark.parametrize(
    ("table", "rows"),
    [
        (
            "<table><tr><th>Destination</th><th>Time</th><th>Fee</th></tr>"
            "<tr><td>Hong Kong</td><td>2-4 days</td><td>¥40</td></tr><tr><td>Japan</td><td>3-5 days</td><td>¥60</td></tr>"
            "</table>",
            ["Destination: Hong Kong, Time: 2-4 days, Fee: ¥40.", "Destination: Japan, Time: 3-5 days, Fee: ¥60."],
        ),
        (
            "<table><thead><tr><th>地区</th><th>运费</th></tr></thead>"
            "<tbody><tr><td>香港</td><td><p>40 元</p></td></tr><tr><td>日本</td><td>60 元</td></tr></tbody></table>",
            ["地区：香港，运费：40 元。", "地区：日本，运费：60 元。"],
        ),
        (  # no <th>: a first row without numbers above rows with them is the heading row
            "<table><tr><td>Plan</td><td>Price</td></tr><tr><td>Phone</td><td>¥189</td></tr></table>",
            ["Plan: Phone, Price: ¥189."],
        ),
        (  # a table of words only has no heading row to guess
            "<table><tr><td>Mon</td><td>closed</td></tr><tr><td>Tue</td><td>open</td></tr></table>",
            ["Mon, closed.", "Tue, open."],
        ),
    ],
    ids=["en-th", "zh-thead", "guessed-heading", "no-heading"],
)
def test_html_table_rows_become_sentences_with_their_column_names(table: str, rows: list[str]) -> None:
    html = f"<html><body><h1>Fees</h1><p>Prices per region.</p>{table}<p>Prices may change.</p></body></html>"

    read = document_read("fees.html", html.encode(), max_bytes=LIMIT)

    assert read.chunks[0].text == " ".join(["Prices per region.", *rows, "Prices may change."]).replace("。 ", "。")


@pytest.mark.parametrize("chinese", [False, True], ids=["en", "zh"])
def test_markdown_pipe_table_rows_become_sentences(chinese: bool) -> None:
    if chinese:
        text = "# 运费\n\n| 地区 | 运费 |\n|:---|---:|\n| 香港 | 40 元 |\n| 日本 | 60 元 |\n\n价格可能调整。\n"
        expected = "地区：香港，运费：40 元。地区：日本，运费：60 元。价格可能调整。"
    else:
        text = "# Fees\n\nRegion | Fee\n--- | ---\nHong Kong | ¥40\nJapan | ¥60\n\nPrices may change.\n"
        expected = "Region: Hong Kong, Fee: ¥40. Region: Japan, Fee: ¥60. Prices may change."

    read = document_read("fees.md", text.encode(), max_bytes=LIMIT)

    assert [c.text for c in read.chunks] == [expected]


def test_gbk_declared_html_is_decoded() -> None:
    html = '<html><head><meta charset="gbk"></head><body><h1>退货</h1><p>七天无理由退货。</p></body></html>'

    read = document_read("gbk.htm", html.encode("gbk"), max_bytes=LIMIT)

    assert read.chunks[0].text == "七天无理由退货。"


@pytest.mark.parametrize("chinese", [False, True], ids=["en", "zh"])
def test_pdf_text_layer_is_read_in_both_languages(chinese: bool) -> None:
    lines = (
        ["保修政策：整机保修一年。", "屏幕维修约 899 元。"] if chinese else ["Warranty: one year.", "Screens cost 899."]
    )

    read = document_read("policy.pdf", pdf_bytes(lines, title="Policy", chinese=chinese), max_bytes=LIMIT)

    assert read.title == "Policy"
    text = " ".join(c.text for c in read.chunks)
    assert all(line in text for line in lines)


def test_docx_headings_paragraphs_and_tables_are_read() -> None:
    read = document_read("warranty.docx", docx_bytes(), max_bytes=LIMIT)

    assert read.title == "保修政策"
    by_heading = {c.heading: c.text for c in read.chunks}
    assert by_heading["保修期"] == "手机和平板整机保修一年。耳机保修六个月。"
    assert (
        "In-warranty repairs are free." in by_heading["Repairs"]
        and "Repair: Screen, Price: ¥899." in by_heading["Repairs"]
    )


def test_faq_files_make_one_chunk_per_entry() -> None:
    csv_read = document_read(
        "faq.csv", "Question,Answer\n包邮吗？,满 99 元包邮。\nDo you ship abroad?,Yes.\n".encode(), max_bytes=LIMIT
    )
    entries = [
        {"question": "怎么开发票？", "answer": "发货后在聊天中申请。"},
        {"question": "Gift cards?", "answer": "Yes."},
    ]
    json_read = document_read("faq.json", json.dumps(entries, ensure_ascii=False).encode(), max_bytes=LIMIT)

    assert [(c.heading, c.text) for c in csv_read.chunks] == [
        ("包邮吗？", "包邮吗？ 满 99 元包邮。"),
        ("Do you ship abroad?", "Do you ship abroad? Yes."),
    ]
    assert [c.text for c in json_read.chunks] == ["怎么开发票？ 发货后在聊天中申请。", "Gift cards? Yes."]


@pytest.mark.parametrize(
    ("name", "title"),
    [("setup_service_en.csv", "setup service"), ("贴膜服务-zh-CN.json", "贴膜服务"), ("gift-cards.csv", "gift cards")],
)
def test_an_faq_file_is_titled_by_its_name_without_a_language_tag(name: str, title: str) -> None:
    # the title is what every entry of the file is about: the search counts its words for each entry
    read = document_read(
        name,
        b'[{"question": "Q?", "answer": "A."}]' if name.endswith(".json") else b"question,answer\nQ?,A.\n",
        max_bytes=LIMIT,
    )

    assert read.title == title


def test_gbk_text_is_detected_and_utf8_with_bom_is_clean() -> None:
    assert decode_text("保修期为一年。".encode("gbk"), "a.txt") == "保修期为一年。"
    assert decode_text("\ufeff保修".encode(), "b.txt") == "保修"


def encrypted_pdf() -> bytes:
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(pdf_bytes(["secret"]))))
    writer.encrypt("pw")
    buffer = io.BytesIO()
    writer.write(buffer)
    return buffer.getvalue()


def scanned_pdf() -> bytes:
    buffer = io.BytesIO()
    page = canvas.Canvas(buffer)
    page.rect(100, 100, 200, 200, fill=1)  # a picture, no text layer
    page.showPage()
    page.save()
    return buffer.getvalue()


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("empty.md", b"  \n ", "empty"),
        ("binary.txt", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "binary content"),
        ("noise.txt", bytes(range(1, 32)) * 40, "not UTF-8 or GBK"),
        ("slides.pptx", b"PK\x03\x04", "unsupported type .pptx"),
        ("README", b"hello", "unsupported type (no extension)"),
        ("big.md", b"# big\n" + b"x" * (LIMIT + 1), "larger than the 1 MB limit"),
        ("broken.pdf", b"%PDF-1.4 this is not really a pdf", "not a readable PDF"),
        ("locked.pdf", encrypted_pdf(), "password-protected"),
        ("scan.pdf", scanned_pdf(), "no text layer"),
        ("broken.docx", b"PK\x03\x04 not a zip at all", "not a readable DOCX"),
        ("faq.csv", b"q,a\nx,y\n", "question,answer header"),
        ("faq.json", b"{not json", "invalid JSON"),
        ("faq.json", b'{"question": "x", "answer": "y"}', "must be a list"),
        ("faq.json", b'[{"question": " ", "answer": "y"}]', "no question/answer entries"),
    ],
    ids=lambda value: value if isinstance(value, str) and len(value) < 30 else "",
)
def test_bad_files_are_refused_with_a_reason(name: str, content: bytes, message: str) -> None:
    with pytest.raises(IngestError, match=message.replace("(", r"\(").replace(")", r"\)").replace(".", r"\.")) as error:
        document_read(name, content, max_bytes=LIMIT)
    assert str(error.value).startswith(name)
