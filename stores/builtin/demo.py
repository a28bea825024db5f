"""The demo phone store: catalogue, national subsidy, customers and orders in every status.

Prices and the subsidy follow the product plan: Find X8 ¥2999; Find X9 ¥3999, and with the national
subsidy (15 % of the price, at most ¥500, for phones and tablets up to ¥6000) ¥3499.
Dates are relative to the day the demo is seeded, so one order is inside the 7-day return window
and another outside it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

from django.db import transaction
from django.utils import timezone

from conversations.models import Customer, Language
from conversations.services import customer_upsert
from stores.builtin.models import (
    Address,
    Fulfillment,
    Order,
    OrderItem,
    OrderStatus,
    PaymentKind,
    PaymentMethod,
    PaymentTransaction,
    Product,
    StoreProfile,
    SubsidyRule,
    TrackingEvent,
    Variant,
)
from stores.builtin.services import store_profile_set
from stores.versions import store_version_bump

PRODUCTS: list[dict[str, Any]] = [
    {
        "external_id": "P-FINDX8",
        "name": "Find X8",
        "name_zh": "Find X8",
        "category": "phone",
        "aliases": ["X8", "FindX8", "Find-X8"],
        "tags": ["camera", "light", "value"],
        "description": "Slim flagship with a Dimensity 9300, 50 MP triple camera and 5630 mAh battery.",
        "description_zh": "轻薄旗舰，天玑9300，5000万像素三摄，5630mAh 电池。",
        "specs": {
            "processor": "Dimensity 9300",
            "processor_zh": "天玑9300",
            "screen": "6.59-inch 120 Hz OLED",
            "battery_mah": 5630,
            "charging_w": 80,
            "camera": "50 MP triple, 3x periscope",
            "weight_g": 193,
        },
        "variants": [
            ("V-X8-BLK-256", {"color": "Star Black", "color_zh": "星野黑", "storage": "12GB+256GB"}, "2999.00", 156),
            ("V-X8-WHT-256", {"color": "Pearl White", "color_zh": "浮光白", "storage": "12GB+256GB"}, "2999.00", 48),
            ("V-X8-BLU-256", {"color": "Ocean Blue", "color_zh": "追风蓝", "storage": "12GB+256GB"}, "2999.00", 0),
        ],
    },
    {
        "external_id": "P-FINDX9",
        "name": "Find X9",
        "name_zh": "Find X9",
        "category": "phone",
        "aliases": ["X9", "FindX9", "Find-X9"],
        "tags": ["camera", "gaming", "flagship"],
        "description": "Flagship with a Snapdragon 8 Gen 3, Hasselblad camera and 100 W charging.",
        "description_zh": "旗舰机型，骁龙8 Gen3，哈苏影像，100W 快充。",
        "specs": {
            "processor": "Snapdragon 8 Gen 3",
            "processor_zh": "骁龙8 Gen3",
            "screen": "6.78-inch 120 Hz LTPO OLED",
            "battery_mah": 5800,
            "charging_w": 100,
            "camera": "50 MP quad, Hasselblad, 6x periscope",
            "weight_g": 215,
        },
        "variants": [
            ("V-X9-BLK-256", {"color": "Star Black", "color_zh": "星野黑", "storage": "12GB+256GB"}, "3999.00", 80),
            ("V-X9-WHT-256", {"color": "Pearl White", "color_zh": "浮光白", "storage": "12GB+256GB"}, "3999.00", 12),
            ("V-X9-BLK-512", {"color": "Star Black", "color_zh": "星野黑", "storage": "16GB+512GB"}, "4499.00", 25),
        ],
    },
    {
        "external_id": "P-ENCOX3",
        "name": "Enco X3 Earbuds",
        "name_zh": "Enco X3 无线耳机",
        "category": "earbuds",
        "aliases": ["Enco X3", "X3 earbuds", "耳机"],
        "tags": ["music", "noise-cancelling", "light"],
        "description": "Wireless earbuds with adaptive noise cancelling and 40 hours with the case.",
        "description_zh": "自适应降噪无线耳机，配合充电盒续航 40 小时。",
        "specs": {"noise_cancelling_db": 50, "battery_hours": 40, "bluetooth": "5.4", "weight_g": 5},
        "variants": [
            ("V-ENCO-WHT", {"color": "White", "color_zh": "白色"}, "999.00", 230),
            ("V-ENCO-BLK", {"color": "Black", "color_zh": "黑色"}, "999.00", 0),
        ],
    },
    {
        "external_id": "P-PAD3",
        "name": "Pad 3",
        "name_zh": "Pad 3 平板",
        "category": "tablet",
        "aliases": ["Pad3", "平板"],
        "tags": ["study", "entertainment", "business"],
        "description": "11.6-inch 144 Hz tablet for study and work, with pen support.",
        "description_zh": "11.6 英寸 144Hz 平板，学习办公两相宜，支持手写笔。",
        "specs": {
            "screen": "11.6-inch 144 Hz LCD",
            "battery_mah": 9510,
            "processor": "Dimensity 8350",
            "weight_g": 533,
        },
        "variants": [
            ("V-PAD3-GRY-128", {"color": "Space Grey", "color_zh": "深空灰", "storage": "8GB+128GB"}, "2599.00", 40),
            ("V-PAD3-GRY-256", {"color": "Space Grey", "color_zh": "深空灰", "storage": "12GB+256GB"}, "2999.00", 15),
        ],
    },
]

SUBSIDY_RULES: list[dict[str, Any]] = [
    {
        "name": "National trade-in subsidy: phones",
        "name_zh": "国家补贴：手机",
        "category": "phone",
        "rate": Decimal("0.150"),
        "max_amount": Decimal("500.00"),
        "max_price": Decimal("6000.00"),
    },
    {
        "name": "National trade-in subsidy: tablets",
        "name_zh": "国家补贴：平板",
        "category": "tablet",
        "rate": Decimal("0.150"),
        "max_amount": Decimal("500.00"),
        "max_price": Decimal("6000.00"),
    },
]

CUSTOMERS: list[dict[str, Any]] = [
    {
        "external_id": "demo_li_wei",
        "name": "李伟",
        "first_name": "伟",
        "last_name": "李",
        "email": "li.wei@example.com",
        "phone": "13800138000",
        "locale": Language.ZH,
        "address": {
            "address1": "南山区科技园路 8 号",
            "address2": "2 栋 1203",
            "city": "深圳",
            "state": "广东",
            "country": "中国",
            "zip": "518057",
        },
        "payment_methods": [
            {
                "external_id": "credit_card_demo_li",
                "kind": PaymentKind.CREDIT_CARD,
                "brand": "visa",
                "last_four": "4242",
            },
            {"external_id": "gift_card_demo_li", "kind": PaymentKind.GIFT_CARD, "balance": Decimal("200.00")},
        ],
    },
    {
        "external_id": "demo_emma_wilson",
        "name": "Emma Wilson",
        "first_name": "Emma",
        "last_name": "Wilson",
        "email": "emma.wilson@example.com",
        "phone": "+14155550142",
        "locale": Language.EN,
        "address": {
            "address1": "500 Howard Street",
            "address2": "Apt 4B",
            "city": "San Francisco",
            "state": "CA",
            "country": "USA",
            "zip": "94105",
        },
        "payment_methods": [
            {"external_id": "paypal_demo_emma", "kind": PaymentKind.PAYPAL},
            {
                "external_id": "credit_card_demo_emma",
                "kind": PaymentKind.CREDIT_CARD,
                "brand": "mastercard",
                "last_four": "5100",
            },
        ],
    },
    {
        "external_id": "demo_zhang_min",
        "name": "张敏",
        "first_name": "敏",
        "last_name": "张",
        "email": "zhang.min@example.com",
        "phone": "13912345678",
        "locale": Language.ZH,
        "address": {
            "address1": "朝阳区建国路 88 号",
            "address2": "",
            "city": "北京",
            "state": "北京",
            "country": "中国",
            "zip": "100022",
        },
        "payment_methods": [
            {"external_id": "gift_card_demo_zhang", "kind": PaymentKind.GIFT_CARD, "balance": Decimal("1000.00")},
        ],
    },
]


@dataclass(frozen=True)
class DemoShipment:
    tracking_id: str
    carrier: str
    shipped_days_ago: int
    eta_in_days: int | None
    # (days ago, status, location, location_zh, description, description_zh)
    events: tuple[tuple[float, str, str, str, str, str], ...]


@dataclass(frozen=True)
class DemoOrder:
    external_id: str
    customer: str
    status: str
    placed_days_ago: int
    variants: tuple[str, ...]
    payment_method: str
    delivered_days_ago: int | None = None
    shipment: DemoShipment | None = None
    action_details: tuple[tuple[str, Any], ...] = ()
    refunded: bool = False


_PICKED_UP = ("picked_up", "Shenzhen Nanshan", "深圳南山", "Parcel picked up", "快件已揽收")
_HUB = ("in_transit", "Guangzhou hub", "广州转运中心", "Arrived at the sorting hub", "已到达广州转运中心")


def _delivered_shipment(
    tracking_id: str, carrier: str, delivered_days_ago: int, city: str, city_zh: str
) -> DemoShipment:
    shipped = delivered_days_ago + 2
    return DemoShipment(
        tracking_id=tracking_id,
        carrier=carrier,
        shipped_days_ago=shipped,
        eta_in_days=None,
        events=(
            (shipped, *_PICKED_UP),
            (shipped - 1, *_HUB),
            (delivered_days_ago + 0.2, "out_for_delivery", city, city_zh, "Out for delivery", f"{city_zh}派送中"),
            (delivered_days_ago, "delivered", city, city_zh, "Delivered, signed by the customer", "已签收，本人签收"),
        ),
    )


ORDERS: list[DemoOrder] = [
    DemoOrder("#D1001", "demo_li_wei", OrderStatus.PENDING, 0, ("V-X9-BLK-256",), "credit_card_demo_li"),
    DemoOrder(
        "#D1002",
        "demo_li_wei",
        OrderStatus.PROCESSED,
        2,
        ("V-X8-WHT-256", "V-ENCO-WHT"),
        "credit_card_demo_li",
        shipment=DemoShipment(
            tracking_id="SF1234567890",
            carrier="SF Express",
            shipped_days_ago=1,
            eta_in_days=1,
            events=((1, *_PICKED_UP), (0.5, *_HUB)),
        ),
    ),
    DemoOrder(
        "#D1003",
        "demo_li_wei",
        OrderStatus.DELIVERED,
        5,
        ("V-ENCO-WHT",),
        "gift_card_demo_li",
        delivered_days_ago=3,
        shipment=_delivered_shipment("SF2234567891", "SF Express", 3, "Shenzhen Nanshan", "深圳南山区"),
    ),
    DemoOrder(
        "#D1004",
        "demo_li_wei",
        OrderStatus.DELIVERED,
        25,
        ("V-PAD3-GRY-128",),
        "credit_card_demo_li",
        delivered_days_ago=20,
        shipment=_delivered_shipment("SF3234567892", "SF Express", 20, "Shenzhen Nanshan", "深圳南山区"),
    ),
    DemoOrder(
        "#D2001",
        "demo_emma_wilson",
        OrderStatus.DELIVERED,
        4,
        ("V-X9-WHT-256",),
        "paypal_demo_emma",
        delivered_days_ago=2,
        shipment=_delivered_shipment("1Z999AA10123456784", "UPS", 2, "San Francisco, CA", "旧金山"),
    ),
    DemoOrder(
        "#D2002",
        "demo_emma_wilson",
        OrderStatus.PROCESSED,
        3,
        ("V-PAD3-GRY-256",),
        "credit_card_demo_emma",
        shipment=DemoShipment(
            tracking_id="1Z999AA10123456785",
            carrier="UPS",
            shipped_days_ago=2,
            eta_in_days=2,
            events=(
                (2, "picked_up", "Oakland, CA", "加州奥克兰", "Picked up", "已揽收"),
                (1, "in_transit", "Sacramento, CA", "加州萨克拉门托", "In transit", "运输中"),
            ),
        ),
    ),
    DemoOrder(
        "#D2003",
        "demo_emma_wilson",
        OrderStatus.CANCELLED,
        10,
        ("V-X8-BLK-256",),
        "paypal_demo_emma",
        action_details=(("cancel_reason", "ordered by mistake"),),
        refunded=True,
    ),
    DemoOrder(
        "#D2004",
        "demo_emma_wilson",
        OrderStatus.PENDING_ITEM_MODIFIED,
        1,
        ("V-X8-BLK-256",),
        "credit_card_demo_emma",
    ),
    DemoOrder(
        "#D3001",
        "demo_zhang_min",
        OrderStatus.RETURN_REQUESTED,
        9,
        ("V-ENCO-WHT",),
        "gift_card_demo_zhang",
        delivered_days_ago=6,
        shipment=_delivered_shipment("YT5550001111", "YTO Express", 6, "Beijing Chaoyang", "北京朝阳区"),
        action_details=(("return_items", ["V-ENCO-WHT"]), ("return_payment_method_id", "gift_card_demo_zhang")),
    ),
    DemoOrder(
        "#D3002",
        "demo_zhang_min",
        OrderStatus.EXCHANGE_REQUESTED,
        8,
        ("V-X8-WHT-256",),
        "gift_card_demo_zhang",
        delivered_days_ago=5,
        shipment=_delivered_shipment("YT5550002222", "YTO Express", 5, "Beijing Chaoyang", "北京朝阳区"),
        action_details=(
            ("exchange_items", ["V-X8-WHT-256"]),
            ("exchange_new_items", ["V-X8-BLK-256"]),
            ("exchange_payment_method_id", "gift_card_demo_zhang"),
            ("exchange_price_difference", 0.0),
        ),
    ),
]


def _anchor() -> datetime:
    """Seeded dates count back from today's noon (UTC), so two seedings on one day are identical."""
    return timezone.now().replace(hour=12, minute=0, second=0, microsecond=0)


def _ago(anchor: datetime, days: float) -> datetime:
    return anchor - timedelta(days=days)


def _seed_catalogue(reset: bool) -> None:
    for data in PRODUCTS:
        fields = {k: v for k, v in data.items() if k not in ("external_id", "variants")}
        if reset:
            product, _ = Product.objects.update_or_create(external_id=data["external_id"], defaults=fields)
        else:
            product, _ = Product.objects.get_or_create(external_id=data["external_id"], defaults=fields)
        for external_id, options, price, stock in data["variants"]:
            defaults = {
                "product": product,
                "options": options,
                "price": Decimal(price),
                "stock": stock,
                "available": True,
            }
            if reset:
                Variant.objects.update_or_create(external_id=external_id, defaults=defaults)
            else:
                Variant.objects.get_or_create(external_id=external_id, defaults=defaults)
    for rule in SUBSIDY_RULES:
        fields = {k: v for k, v in rule.items() if k != "name"}
        if reset:
            SubsidyRule.objects.update_or_create(name=rule["name"], defaults={**fields, "active": True})
        else:
            SubsidyRule.objects.get_or_create(name=rule["name"], defaults=fields)


def _seed_customers(reset: bool) -> None:
    for data in CUSTOMERS:
        if Customer.objects.filter(external_id=data["external_id"]).exists() and not reset:
            continue
        fields = {k: data[k] for k in ("name", "first_name", "last_name", "email", "phone", "locale")}
        customer = customer_upsert(external_id=data["external_id"], **fields)
        Address.objects.filter(customer=customer).delete()
        Address.objects.create(customer=customer, is_default=True, **data["address"])
        for method in data["payment_methods"]:
            values = {"brand": "", "last_four": "", "balance": None, **method}
            PaymentMethod.objects.update_or_create(
                external_id=values.pop("external_id"), defaults={"customer": customer, **values}
            )


def _seed_order(demo: DemoOrder, anchor: datetime) -> None:
    customer = Customer.objects.get(external_id=demo.customer)
    address = Address.objects.get(customer=customer, is_default=True).as_dict()
    order, _ = Order.objects.update_or_create(
        external_id=demo.external_id,
        defaults={
            "customer": customer,
            "status": demo.status,
            "address": address,
            "currency": "CNY",
            "placed_at": _ago(anchor, demo.placed_days_ago),
            "delivered_at": _ago(anchor, demo.delivered_days_ago) if demo.delivered_days_ago is not None else None,
            "action_details": dict(demo.action_details),
        },
    )
    order.items.all().delete()
    order.fulfillments.all().delete()
    order.transactions.all().delete()
    variants = {
        v.external_id: v for v in Variant.objects.filter(external_id__in=demo.variants).select_related("product")
    }
    total = Decimal("0")
    for position, variant_id in enumerate(demo.variants):
        variant = variants[variant_id]
        total += variant.price
        OrderItem.objects.create(
            order=order,
            variant=variant,
            product=variant.product,
            name=variant.product.name,
            options=variant.options,
            price=variant.price,
            position=position,
        )
    method = PaymentMethod.objects.get(external_id=demo.payment_method)
    PaymentTransaction.objects.create(order=order, kind="payment", amount=total, payment_method=method, position=0)
    if demo.refunded:
        PaymentTransaction.objects.create(order=order, kind="refund", amount=total, payment_method=method, position=1)
    if demo.shipment is not None:
        shipment = demo.shipment
        fulfillment = Fulfillment.objects.create(
            order=order,
            tracking_ids=[shipment.tracking_id],
            item_ids=list(demo.variants),
            carrier=shipment.carrier,
            shipped_at=_ago(anchor, shipment.shipped_days_ago),
            estimated_arrival=(anchor + timedelta(days=shipment.eta_in_days)).date() if shipment.eta_in_days else None,
        )
        TrackingEvent.objects.bulk_create(
            TrackingEvent(
                fulfillment=fulfillment,
                occurred_at=_ago(anchor, days),
                status=status,
                location=location,
                location_zh=location_zh,
                description=description,
                description_zh=description_zh,
            )
            for days, status, location, location_zh, description, description_zh in shipment.events
        )


def store_seed_demo(*, reset: bool = False) -> None:
    """Create the demo store records that are missing; with `reset`, restore all of them.

    Without `reset` a record that exists is left as it is, so a demo return or cancellation
    survives the next `make run`. `reset` also moves the order dates to count back from today.
    """
    anchor = _anchor()
    with transaction.atomic():
        if reset or not StoreProfile.objects.exists():
            store_profile_set(currency="CNY", name="Demo phone store")
        _seed_catalogue(reset)
        _seed_customers(reset)
        existing = set(
            Order.objects.filter(external_id__in=[o.external_id for o in ORDERS]).values_list("external_id", flat=True)
        )
        for demo in ORDERS:
            if reset or demo.external_id not in existing:
                _seed_order(demo, anchor)
        transaction.on_commit(store_version_bump)  # bulk writes send no signals (stores.builtin.signals)
