"""Order and delivery tools: private, always scoped to the verified customer."""

from __future__ import annotations

from typing import Any

from agents.tools.base import ToolContext, ToolError, tool
from stores.backend import store_backend
from stores.records import Order, Shipment

ORDER_ID = {"type": "string", "minLength": 2, "maxLength": 64, "description": "Order id, e.g. #W1234567"}


def _own(ctx: ToolContext, order: Order | None) -> Order | None:
    """The order if it is the verified customer's: the store's answer is checked again, never trusted."""
    return order if order is not None and order.customer_id == ctx.verified_customer.external_id else None


def order_for_customer(ctx: ToolContext, order_id: str) -> Order:
    """The customer's own order; another customer's order is reported exactly like a missing one."""
    order = _own(ctx, store_backend().order(ctx.verified_customer.external_id, order_id))
    if order is None:
        raise ToolError("order_not_found", f"No order {order_id} was found on this account.")
    return order


def order_json(order: Order) -> dict[str, Any]:
    return {
        "order_id": order.order_id,
        "status": order.status,
        "currency": order.currency,
        "placed_at": order.placed_at.isoformat() if order.placed_at else None,
        "delivered_at": order.delivered_at.isoformat() if order.delivered_at else None,
        "items": [
            {
                "item_id": line.item_id,
                "name": line.name,
                "name_zh": line.name_zh,  # the catalogue's Chinese name, for a reply in Chinese ("" if none)
                "options": line.options,
                "price": float(line.price),
            }
            for line in order.items
        ],
        "total": float(order.total),
        "address": order.address,
        "fulfillments": [
            {"tracking_ids": list(s.tracking_ids), "item_ids": list(s.item_ids), "carrier": s.carrier}
            for s in order.shipments
        ],
        "payments": [
            {"type": p.kind, "amount": float(p.amount), "payment_method_id": p.payment_method_id}
            for p in order.payments
        ],
        **order.details,
    }


def _shipment_json(shipment: Shipment) -> dict[str, Any]:
    return {
        "tracking_ids": list(shipment.tracking_ids),
        "carrier": shipment.carrier,
        "estimated_arrival": shipment.estimated_arrival.isoformat() if shipment.estimated_arrival else None,
        "events": [
            {
                "at": e.at.isoformat(),
                "status": e.status,
                "location": e.location,
                "location_zh": e.location_zh,
                "description": e.description,
                "description_zh": e.description_zh,
            }
            for e in shipment.events[:5]
        ],
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
    orders = store_backend().orders(ctx.verified_customer.external_id, limit=20)
    return {
        "orders": [
            {
                "order_id": o.order_id,
                "status": o.status,
                "items": [line.name for line in o.items],
                "items_zh": [line.name_zh or line.name for line in o.items],
            }
            for o in orders
            if _own(ctx, o)
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
    tracking_number = args.get("tracking_number")
    if tracking_number:
        order = _own(ctx, store_backend().order_by_tracking(ctx.verified_customer.external_id, tracking_number))
        if order is None:
            raise ToolError("tracking_not_found", f"No shipment {tracking_number} was found on this account.")
        shipments = [s for s in order.shipments if tracking_number in s.tracking_ids]
    else:
        order = order_for_customer(ctx, args["order_id"])
        shipments = list(order.shipments)
    return {
        "order_id": order.order_id,
        "order_status": order.status,
        "shipments": [_shipment_json(s) for s in shipments],
    }
