"""Which language a customer's message is in, and so the reply's."""

from __future__ import annotations

import pytest

from conversations.language import detect_language


@pytest.mark.parametrize(
    "text",
    [
        "Wireless Earbuds, Bluetooth Speaker",  # products as sold
        "yusuf.rossi7301@example.com",
        "Yusuf Rossi 19122",
        "#W2378156",
        "credit_card_9513926",
        "OK",
        "yes",
        # a courtesy typed in English
        "ok thanks",
        "paypal_4439305 please",
        "Wireless Earbuds please",
    ],
)
def test_names_emails_ids_and_ok_keep_the_chats_language(text: str) -> None:
    assert detect_language(text, default="zh") == "zh"
    assert detect_language(text, default="en") == "en"


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("Can you cancel my order?", "en"),
        ("I want to return the Wireless Earbuds", "en"),
        ("Cancel order W2378156 because I ordered it by mistake please", "en"),
        ("never mind, thanks", "en"),
        ("Cancel it please", "en"),
        ("Wireless Earbuds 换成黑色的", "zh"),
        ("我的邮箱是 yusuf.rossi7301@example.com", "zh"),
        # one Chinese character beside the names of products as sold
        ("就Bluetooth Speaker。", "zh"),
        ("Office Chair和Desk Lamp", "zh"),
        ("Please return the Desk Lamp 谢", "en"),
    ],
)
def test_a_sentence_says_its_own_language_whatever_the_chat_spoke_before(text: str, language: str) -> None:
    assert detect_language(text, default="zh") == language
    assert detect_language(text, default="en") == language
