"""What a customer reads for the store's own codes, in the language of the reply: order statuses, product
categories and carriers. A code the store does not know is said as it is stored."""

from __future__ import annotations

from django.utils import translation
from django.utils.translation import gettext_noop

from conversations.language import Language, say, say_in_context
from stores.records import OrderStatus

CATEGORY_CONTEXT = "product category"
CATEGORIES = {
    "phone": gettext_noop("Phone"),
    "phones": gettext_noop("Phone"),
    "tablet": gettext_noop("Tablet"),
    "earbuds": gettext_noop("Earbuds"),
    "headphones": gettext_noop("Headphones"),
    "watch": gettext_noop("Watch"),
    "accessory": gettext_noop("Accessory"),
    "accessories": gettext_noop("Accessory"),
    "laptop": gettext_noop("Laptop"),
}
# Carriers by the names a store writes them in, English first.
CARRIERS = (
    ("SF Express", "顺丰速运"),
    ("JD Logistics", "京东物流"),
    ("YTO Express", "圆通速递"),
    ("ZTO Express", "中通快递"),
    ("STO Express", "申通快递"),
    ("Yunda Express", "韵达快递"),
    ("J&T Express", "极兔速递"),
    ("Deppon Express", "德邦快递"),
    ("China Post", "中国邮政"),
    ("EMS", "EMS 邮政特快专递"),
    ("DHL", "DHL 敦豪"),
    ("FedEx", "FedEx 联邦快递"),
    ("UPS", "UPS 联合包裹"),
)
_CARRIER_NAMES = {name.casefold(): pair for pair in CARRIERS for name in pair}


def order_status_said(status: str, language: str) -> str:
    """An order's status as the customer reads it ("pending" → "Pending" / "待处理")."""
    try:
        label = OrderStatus(status).label
    except ValueError:
        return status
    with translation.override("en"):
        english = str(label)
    return say(language, english)


def category_said(category: str, language: str) -> str:
    message = CATEGORIES.get(category.casefold())
    return say_in_context(CATEGORY_CONTEXT, language, message) if message else category


def carrier_said(carrier: str, language: str) -> str:
    pair = _CARRIER_NAMES.get(carrier.strip().casefold())
    if pair is None:
        return carrier
    return pair[1] if language == Language.ZH else pair[0]
