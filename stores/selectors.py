"""Reads of the store for staff screens: whatever the backend, what the store says, or that it did not answer."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from stores.backend import store_backend
from stores.records import Order, OrderStatus, StoreUnavailable

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class StaffOrder:
    order: Order
    status_label: str  # in the staff member's language
    item_names: list[str]
    tracking: list[str]  # "UPS 1Z999…", one per shipment with a tracking number


@dataclass(frozen=True)
class StaffOrders:
    orders: list[StaffOrder] = field(default_factory=list)
    unreachable: bool = False  # the store did not answer: the screen says so instead of "no orders"


def _status_label(status: str) -> str:
    try:
        return str(OrderStatus(status).label)
    except ValueError:
        return status  # a status of the store's own that the assistant does not name


def orders_for_staff(customer_id: str, *, limit: int = 10) -> StaffOrders:
    """The customer's latest orders with their items and parcels, as the store has them now."""
    try:
        orders = store_backend().orders(customer_id, limit=limit)
    except StoreUnavailable:
        log.warning("The store did not answer for a customer's orders on a staff screen.")
        return StaffOrders(unreachable=True)
    return StaffOrders(
        orders=[
            StaffOrder(
                order=order,
                status_label=_status_label(order.status),
                item_names=[line.name for line in order.items],
                tracking=[
                    f"{s.carrier} {', '.join(s.tracking_ids)}".strip() for s in order.shipments if s.tracking_ids
                ],
            )
            for order in orders
            if order.customer_id == customer_id  # the store's answer is checked, as the chat's are
        ]
    )
