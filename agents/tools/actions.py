"""Write tools: each changes the store in one transaction and opens the ticket that follows it up."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils.translation import gettext_noop

from agents.tools.base import ToolContext, ToolError, tool
from agents.tools.orders import ORDER_ID, order_for_customer
from conversations.language import say
from conversations.models import Conversation, Language
from stores.backend import store_backend
from stores.records import CANCEL_REASONS, ItemsSwap, OrderStatus, StoreError, StoreUnavailable, WriteResult
from tickets.models import Ticket, TicketKind
from tickets.services import ticket_create

ITEM_IDS = {
    "type": "array",
    "items": {"type": "string", "minLength": 1, "maxLength": 64},
    "minItems": 1,
    "maxItems": 20,
}
PAYMENT_METHOD_ID = {"type": "string", "minLength": 1, "maxLength": 64}
ADDRESS = {
    "address1": {"type": "string", "minLength": 1, "maxLength": 200},
    "address2": {"type": "string", "maxLength": 200},
    "city": {"type": "string", "minLength": 1, "maxLength": 100},
    "state": {"type": "string", "maxLength": 100},
    "country": {"type": "string", "minLength": 1, "maxLength": 100},
    "zip": {"type": "string", "minLength": 3, "maxLength": 20},
}
RETURN_INSTRUCTIONS = gettext_noop(
    "Pack the items with their accessories and send them within 3 days to: %(address)s. A prepaid label is on "
    "its way by email."
)
_TAX_ID = re.compile(r"^[0-9A-Z]{15,20}$")


def _swap(args: dict[str, Any]) -> ItemsSwap:
    return ItemsSwap(args["item_ids"], args["new_item_ids"], args["payment_method_id"])


def write_key(ctx: ToolContext, kind: str, arguments: dict[str, Any]) -> str:
    """The idempotency key of a write: the same request in the same conversation is one write at the store. The
    conversation is named by its id and the moment it began, so a key is never met again by another chat (ids
    start again in a new database, and the store keeps keys for a day)."""
    chat = Conversation.objects.filter(pk=ctx.conversation_id) if ctx.conversation_id is not None else None
    began = chat.values_list("created_at", flat=True).first() if chat is not None else None
    request = [ctx.conversation_id, began, kind, arguments]
    return hashlib.sha256(json.dumps(request, sort_keys=True, ensure_ascii=False, default=str).encode()).hexdigest()[
        :40
    ]


def _write(
    ctx: ToolContext, *, kind: str, order_id: str, subject: str, write: Any, payload: dict[str, Any]
) -> tuple[WriteResult, Ticket]:
    """Run a store write and open its ticket in one transaction; StoreError becomes ToolError.

    `write` gets the store's customer id and the write's idempotency key. The ticket needs no idempotency key of
    its own: it commits with the write, and a repeated write is refused by the store (its status rule, or its
    idempotency key) before reaching it (an address may change twice: two changes, two tickets).
    """
    customer_id = ctx.verified_customer.external_id
    key = write_key(ctx, kind, {"order_id": order_id, **payload, "subject": subject})
    try:
        with transaction.atomic():
            result = _read_back(write(customer_id, key), customer_id)
            ticket = ticket_create(
                kind=kind,
                subject=subject,
                customer=ctx.verified_customer,
                conversation_id=ctx.conversation_id,
                order_ref=order_id,
                payload={**payload, **result.details, "status": result.status},
            )
    except StoreError as exc:
        raise ToolError(exc.code, str(exc)) from None
    return result, ticket


def _read_back(result: WriteResult, customer_id: str) -> WriteResult:
    """The write's result with the order's status as the store holds it now, read again rather than taken from
    the write's answer alone. When it cannot be read back this moment, the answer stands: the write was done."""
    try:
        order = store_backend().order(customer_id, result.order_id)
    except StoreUnavailable:
        return result
    if order is None or order.customer_id != customer_id:
        return result
    return dataclasses.replace(result, status=order.status)


@tool(
    name="cancel_pending_order",
    description="Cancel a pending order. Reason: 'no longer needed' or 'ordered by mistake'. Refunds every payment.",
    parameters={
        "properties": {"order_id": ORDER_ID, "reason": {"type": "string", "enum": list(CANCEL_REASONS)}},
        "required": ["order_id", "reason"],
    },
    kind="write",
    private=True,
)
def cancel_pending_order(ctx: ToolContext, args: dict[str, Any]) -> dict[str, Any]:
    result, ticket = _write(
        ctx,
        kind=TicketKind.CANCEL,
        order_id=args["order_id"],
        subject=f"Cancelled {args['order_id']}",
        write=lambda customer_id, key: store_backend().order_cancel(
            customer_id, args["order_id"], reason=args["reason"], key=key
        ),
        payload={"reason": args["reason"]},
    )
    return {"order_id": result.order_id, "status": result.status, "ticket": ticket.reference}


@tool(
    name="modify_pending_order",
    description="Change a pending order: its shipping address, its payment method, or items to other options of the "
    "same product (items can be changed only once; a payment method pays or receives the difference).",
    parameters={
        "properties": {
            "order_id": ORDER_ID,
            "change": {"type": "string", "enum": ["address", "payment", "items"]},
            "address": {
                "type": "object",
                "properties": ADDRESS,
                "required": ["address1", "city", "country", "zip"],
                "additionalProperties": False,
            },
            "payment_method_id": PAYMENT_METHOD_ID,
            "item_ids": ITEM_IDS,
            "new_item_ids": ITEM_IDS,
        },
        "required": ["order_id", "change"],
    },
    kind="write",
    private=True,
)
def modify_pending_order(ctx: ToolContext, args: dict[str, Any]) -> dict[str, Any]:
    order_id, change = args["order_id"], args["change"]
    needed = {
        "address": ["address"],
        "payment": ["payment_method_id"],
        "items": ["item_ids", "new_item_ids", "payment_method_id"],
    }
    missing = [field for field in needed[change] if field not in args]
    if missing:
        raise ToolError("bad_arguments", f"Changing {change} needs {', '.join(missing)}.")
    store = store_backend()
    writes = {
        "address": lambda customer_id, key: store.order_modify_address(
            customer_id, order_id, address=args["address"], key=key
        ),
        "payment": lambda customer_id, key: store.order_modify_payment(
            customer_id, order_id, payment_method_id=args["payment_method_id"], key=key
        ),
        "items": lambda customer_id, key: store.order_modify_items(customer_id, order_id, swap=_swap(args), key=key),
    }
    result, ticket = _write(
        ctx,
        kind=TicketKind.MODIFY,
        order_id=order_id,
        subject=f"Changed {change} of {order_id}",
        write=writes[change],
        payload={"change": change},
    )
    return {
        "order_id": order_id,
        "status": result.status,
        "change": change,
        **result.details,
        "ticket": ticket.reference,
    }


@tool(
    name="create_return_order",
    description="Request the return of delivered items; the refund goes to the original payment method or a gift card.",
    parameters={
        "properties": {
            "order_id": ORDER_ID,
            "item_ids": ITEM_IDS,
            "payment_method_id": PAYMENT_METHOD_ID,
            "reason": {"type": "string", "maxLength": 500},
        },
        "required": ["order_id", "item_ids", "payment_method_id"],
    },
    kind="write",
    private=True,
)
def create_return_order(ctx: ToolContext, args: dict[str, Any]) -> dict[str, Any]:
    result, ticket = _write(
        ctx,
        kind=TicketKind.RETURN,
        order_id=args["order_id"],
        subject=f"Return from {args['order_id']}",
        write=lambda customer_id, key: store_backend().order_return(
            customer_id,
            args["order_id"],
            item_ids=args["item_ids"],
            payment_method_id=args["payment_method_id"],
            key=key,
        ),
        payload={"reason": args.get("reason", "")},
    )
    return {
        "order_id": result.order_id,
        "status": result.status,
        "return_order_id": f"R-{ticket.pk:06d}",
        "instructions": say(
            ctx.language,
            RETURN_INSTRUCTIONS,
            address=settings.RETURN_ADDRESS_ZH if ctx.language == Language.ZH else settings.RETURN_ADDRESS,
        ),
        "ticket": ticket.reference,
        **result.details,
    }


@tool(
    name="create_exchange_order",
    description="Request an exchange of delivered items for other options of the same products.",
    parameters={
        "properties": {
            "order_id": ORDER_ID,
            "item_ids": ITEM_IDS,
            "new_item_ids": ITEM_IDS,
            "payment_method_id": PAYMENT_METHOD_ID,
        },
        "required": ["order_id", "item_ids", "new_item_ids", "payment_method_id"],
    },
    kind="write",
    private=True,
)
def create_exchange_order(ctx: ToolContext, args: dict[str, Any]) -> dict[str, Any]:
    result, ticket = _write(
        ctx,
        kind=TicketKind.EXCHANGE,
        order_id=args["order_id"],
        subject=f"Exchange from {args['order_id']}",
        write=lambda customer_id, key: store_backend().order_exchange(
            customer_id, args["order_id"], swap=_swap(args), key=key
        ),
        payload={},
    )
    return {"order_id": result.order_id, "status": result.status, "ticket": ticket.reference, **result.details}


def _repair_estimate(issue: str, warranty_status: str) -> int:
    if warranty_status == "in_warranty":
        return 0
    text = issue.lower()
    if any(word in text for word in ("screen", "display", "屏")):
        return 899
    if any(word in text for word in ("battery", "charg", "电池", "充电")):
        return 299
    return 199


@tool(
    name="create_repair_order",
    description="Open a repair order for a device by IMEI: issue, warranty status, in-store or mail-in repair.",
    parameters={
        "properties": {
            "imei": {"type": "string", "pattern": "^[0-9]{15}$"},
            "issue_description": {"type": "string", "minLength": 2, "maxLength": 1000},
            "warranty_status": {"type": "string", "enum": ["in_warranty", "out_of_warranty"]},
            "repair_type": {"type": "string", "enum": ["in_store", "mail_in"]},
            "order_id": ORDER_ID,
        },
        "required": ["imei", "issue_description", "warranty_status", "repair_type"],
    },
    kind="write",
    private=True,
)
def create_repair_order(ctx: ToolContext, args: dict[str, Any]) -> dict[str, Any]:
    estimate = _repair_estimate(args["issue_description"], args["warranty_status"])
    ticket = ticket_create(
        kind=TicketKind.REPAIR,
        subject=f"Repair {args['imei']}: {args['issue_description'][:120]}",
        customer=ctx.verified_customer,
        conversation_id=ctx.conversation_id,
        order_ref=args.get("order_id", ""),
        payload={**args, "estimated_cost": estimate},
        source_key=f"repair:{ctx.verified_customer.pk}:{args['imei']}:{args['issue_description'][:60]}",
    )
    return {
        "repair_order_id": f"RP-{ticket.pk:06d}",
        "estimated_cost": estimate,
        "repair_type": args["repair_type"],
        "ticket": ticket.reference,
    }


@tool(
    name="generate_invoice",
    description="Issue an invoice for an order: personal, company, or special VAT invoice (needs the tax id).",
    parameters={
        "properties": {
            "order_id": ORDER_ID,
            "invoice_type": {"type": "string", "enum": ["personal", "company", "special"]},
            "invoice_title": {"type": "string", "minLength": 1, "maxLength": 200},
            "tax_id": {"type": "string", "maxLength": 20},
        },
        "required": ["order_id", "invoice_type", "invoice_title"],
    },
    kind="write",
    private=True,
)
def generate_invoice(ctx: ToolContext, args: dict[str, Any]) -> dict[str, Any]:
    tax_id = (args.get("tax_id") or "").strip().upper()
    if args["invoice_type"] == "special" and not _TAX_ID.match(tax_id):
        raise ToolError("tax_id_required", "A special VAT invoice needs the company's 15-20 character tax id.")
    order = order_for_customer(ctx, args["order_id"])
    if order.status in (OrderStatus.CANCELLED, OrderStatus.PENDING):
        raise ToolError("wrong_status", f"Order {order.order_id} is {order.status}: it can be invoiced once shipped.")
    ticket = ticket_create(
        kind=TicketKind.INVOICE,
        subject=f"{args['invoice_type'].title()} invoice for {order.order_id}",
        customer=ctx.verified_customer,
        conversation_id=ctx.conversation_id,
        order_ref=order.order_id,
        payload={**args, "tax_id": tax_id},
        source_key=f"invoice:{order.order_id}:{args['invoice_type']}",
    )
    return {
        "invoice_id": f"INV-{ticket.pk:06d}",
        "order_id": order.order_id,
        "invoice_type": args["invoice_type"],
        "delivery": "e-invoice by email",
        "ticket": ticket.reference,
    }


@tool(
    name="modify_default_address",
    description="Change the customer's default shipping address (orders already placed keep theirs).",
    parameters={"properties": ADDRESS, "required": ["address1", "city", "country", "zip"]},
    kind="write",
    private=True,
)
def modify_default_address(ctx: ToolContext, args: dict[str, Any]) -> dict[str, Any]:
    try:
        address = store_backend().default_address_set(
            ctx.verified_customer.external_id, address=args, key=write_key(ctx, "default_address", args)
        )
    except StoreError as exc:
        raise ToolError(exc.code, str(exc)) from None
    return {"address": address}


@tool(
    name="transfer_to_human",
    description="Hand the conversation to a human agent when the request is outside what the tools can do.",
    parameters={"properties": {"summary": {"type": "string", "maxLength": 1000}}},
    kind="read",
    private=False,
)
def transfer_to_human(ctx: ToolContext, args: dict[str, Any]) -> dict[str, Any]:
    # The engine escalates on this result (reason "policy"); the tool itself changes nothing.
    return {"transfer": True, "summary": args.get("summary", "")}
