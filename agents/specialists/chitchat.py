"""Greetings, thanks, goodbyes and small talk: short, friendly, and steering back to the store."""

from __future__ import annotations

import re

from agents.answers import SpecialistContext, SpecialistResult
from agents.specialists import Specialist, register

_THANKS = re.compile(r"thank|thx|\bty\b|谢|感谢", re.IGNORECASE)
_BYE = re.compile(r"\bbye\b|goodbye|see you|good ?night|再见|拜拜|晚安", re.IGNORECASE)
_BOT = re.compile(r"robot|\bbot\b|\bai\b|human or|are you real|机器人|真人|人工智能|你是谁", re.IGNORECASE)
_HOW_ARE_YOU = re.compile(r"how are you|how's it going|你好吗|最近怎么样", re.IGNORECASE)

REPLIES = {
    "thanks": {
        "en": "You're welcome! Anything else I can help you with?",
        "zh": "不客气！还有什么可以帮您的吗？",
    },
    "bye": {
        "en": "Goodbye, and thanks for shopping with us!",
        "zh": "再见，感谢您的光临！",
    },
    "bot": {
        "en": "I'm the store's virtual assistant. I can check orders and deliveries, prices and stock, and help "
        "with returns, repairs and invoices - and I'll bring in a colleague whenever you'd like a person.",
        "zh": "我是商城的智能客服助手，可以帮您查询订单物流、价格库存，办理退换货、维修和发票；"
        "需要人工时随时为您转接。",
    },
    "how_are_you": {
        "en": "I'm doing well, thanks for asking! How can I help you today?",
        "zh": "我很好，谢谢关心！今天有什么可以帮您？",
    },
    "greeting": {
        "en": "Hello! How can I help you today? I can check an order, a delivery, a price or stock, or help with "
        "a return.",
        "zh": "您好！请问有什么可以帮您？我可以帮您查订单、查物流、问价格库存，或办理退换货。",
    },
}
QUICK_REPLIES = {
    "en": ("Where is my order?", "Price of Find X9", "Return an item"),
    "zh": ("我的订单到哪了", "Find X9 多少钱", "我要退货"),
}


@register
class Chitchat(Specialist):
    name = "chitchat"
    answers_in_transaction = True

    def run(self, ctx: SpecialistContext) -> SpecialistResult:
        text = ctx.text
        kind = "greeting"
        for candidate, pattern in (("thanks", _THANKS), ("bye", _BYE), ("bot", _BOT), ("how_are_you", _HOW_ARE_YOU)):
            if pattern.search(text):
                kind = candidate
                break
        quick = QUICK_REPLIES[ctx.language] if kind == "greeting" else ()
        return SpecialistResult(text=REPLIES[kind][ctx.language], quick_replies=quick, data={"kind": kind})
