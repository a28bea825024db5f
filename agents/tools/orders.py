"""Order and delivery tools: private, always scoped to the verified customer."""

from __future__ import annotations

from typing import Any

from agents.store.models import Fulfillment, Order
from agents.tools.base import ToolContext, ToolError, tool

ORDER_ID = {"type": "string", "minLength": 2, "maxLength": 64, "description": "Order id, e.g. #W1234567"}


def order_for_customer(ctx: ToolContext, order_id: str) -> Order:
    """The customer's own order; another customer's order is reported exactly like a missing one."""
    order = (
        Order.objects.filter(external_id=order_id, customer=ctx.customer)
        .prefetch_related("items__variant", "fulfillments__events", "transactions__payment_method")
        .first()
    )
    if order is None:
        raise ToolError("order_not_found", f"No order {order_id} was found on this account.")
    return order


def order_json(order: Order) -> dict[str, Any]:
    items = list(order.items.all())
    return {
        "order_id": order.external_id,
        "status": order.status,
        "currency": order.currency,
        "placed_at": order.placed_at.isoformat() if order.placed_at else None,
        "delivered_at": order.delivered_at.isoformat() if order.delivered_at else None,
        "items": [
            {
                "item_id": i.variant.external_id,
                "name": i.name,
                "name_zh": i.product.name_zh,  # the catalogue's Chinese name, for a reply in Chinese ("" if none)
                "options": i.options,
                "price": float(i.price),
            }
            for i in items
        ],
        "total": float(sum(i.price for i in items)),
        "address": order.address,
        "fulfillments": [
            {"tracking_ids": f.tracking_ids, "item_ids": f.item_ids, "carrier": f.carrier}
            for f in order.fulfillments.all()
        ],
        "payments": [
            {"type": t.kind, "amount": float(t.amount), "payment_method_id": t.payment_method.external_id}
            for t in order.transactions.all()
        ],
        **order.action_details,
    }


@tool(
    name="get_order_info",
    description="Status, items, total, shipments and payments of one of the customer's orders.",
    parameters={"properties": {"order_id": ORDER_ID}, "required": ["order_id"]},
    kind="read",
    private=True,
)
def get_order_info(ctx: ToolContext, args: dict[str, Any]) -> dict[str, Any]:
    return order_json(order_for_customer(ctx, args["order_id"]))


@tool(
    name="list_orders",
    description="The customer's orders, newest first, with status and item names.",
    parameters={"properties": {}},
    kind="read",
    private=True,
)
def list_orders(ctx: ToolContext, args: dict[str, Any]) -> dict[str, Any]:
    orders = (
        Order.objects.filter(customer=ctx.customer)
        .prefetch_related("items__product")
        .order_by("-placed_at", "-id")[:20]
    )
    return {
        "orders": [
            {
                "order_id": o.external_id,
                "status": o.status,
                "items": [i.name for i in o.items.all()],
                "items_zh": [i.product.name_zh or i.name for i in o.items.all()],
            }
            for o in orders
        ]
    }


@tool(
    name="get_logistics_info",
    description="Where a shipment is: latest tracking events and estimated arrival, by tracking number or order id.",
    parameters={
        "properties": {"tracking_number": {"type": "string", "minLength": 4, "maxLength": 64}, "order_id": ORDER_ID},
        "anyOf": [{"required": ["tracking_number"]}, {"required": ["order_id"]}],
    },
    kind="read",
    private=True,
)
def get_logistics_info(ctx: ToolContext, args: dict[str, Any]) -> dict[str, Any]:
    if args.get("tracking_number"):
        fulfillments = list(
            Fulfillment.objects.filter(
                tracking_ids__contains=[args["tracking_number"]], order__customer=ctx.customer
            ).select_related("order")
        )
        if not fulfillments:
            raise ToolError("tracking_not_found", f"No shipment {args['tracking_number']} was found on this account.")
        order = fulfillments[0].order
    else:
        order = order_for_customer(ctx, args["order_id"])
        fulfillments = list(order.fulfillments.all())
    shipments = []
    for fulfillment in fulfillments:
        events = sorted(fulfillment.events.all(), key=lambda e: e.occurred_at, reverse=True)
        shipments.append(
            {
                "tracking_ids": fulfillment.tracking_ids,
                "carrier": fulfillment.carrier,
                "estimated_arrival": fulfillment.estimated_arrival.isoformat()
                if fulfillment.estimated_arrival
                else None,
                "events": [
                    {
                        "at": e.occurred_at.isoformat(),
                        "status": e.status,
                        "location": e.location,
                        "location_zh": e.location_zh,
                        "description": e.description,
                        "description_zh": e.description_zh,
                    }
                    for e in events[:5]
                ],
            }
        )
    return {"order_id": order.external_id, "order_status": order.status, "shipments": shipments}
