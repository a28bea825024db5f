"""The workflows: which slots each needs, how they are read and checked, the summary the customer
confirms, and the one write that follows a yes."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from django.utils import timezone
from django.utils.translation import gettext_noop, pgettext_lazy

from agents.intents.offline.orders import order_state_said
from agents.llm.client import llm_enabled
from agents.reading.cancel_reason import RESTATED_AT, cancel_reason
from agents.reading.message import Reading
from agents.reading.same_options import same_options_asked
from agents.taxonomy import Intent
from agents.tools import ToolContext, tool_call
from agents.workflows import slots as read
from agents.workflows.addresses import address_fragment, address_lines, parse_address
from agents.workflows.progress import Progress
from agents.workflows.variants import (
    Clarify,
    llm_replacements,
    match_replacement,
    variant_options,
    wanted_options,
)
from conversations.language import say, say_in_context
from conversations.models import WorkflowKind
from stores.backend import store_backend
from stores.catalogue import store_catalogue
from stores.labels import order_status_said
from stores.money import money
from stores.records import Order, OrderStatus, Payment, PaymentKind, StoreCustomer

RETURN_WINDOW = timedelta(days=7)


class SlotInvalid(Exception):
    """The customer's answer does not fit the slot; the message says why, in their language.

    `refused` names a value that can never be accepted (an order in the wrong status, a gift card
    short of the total): named again, it ends the request instead of asking a third time."""

    def __init__(self, message: str, *, refused: str = "") -> None:
        super().__init__(message)
        self.refused = refused


class SlotPartial(SlotInvalid):
    """The answer is part of the value (an address sent line by line): kept as a draft that the
    next message completes; the message says what is still missing."""

    def __init__(self, message: str, *, draft: str) -> None:
        super().__init__(message)
        self.draft = draft


class OrderNotEligible(SlotInvalid):
    """The order exists but its status does not allow this request."""

    def __init__(self, message: str, *, order_id: str, status: str) -> None:
        super().__init__(message, refused=order_id)
        self.status = status


# What can still be done with an order in each status, for a customer whose request does not fit.
ORDER_ACTIONS: dict[str, str] = {
    OrderStatus.PENDING: gettext_noop("it can still be cancelled, or its address, payment method or items changed"),
    OrderStatus.PROCESSED: gettext_noop("it is being prepared, so nothing can be changed now; you can track it here"),
    OrderStatus.DELIVERED: gettext_noop("its items can be returned or exchanged"),
}


def _variant_values(variants: dict[str, list[dict[str, Any]]]) -> set[str]:
    """Every option value the products come in: "laptop" is a backpack's compartment, too."""
    return {str(value) for of_product in variants.values() for v in of_product for value in v["options"].values()}


def _variants_of(items: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """Every variant of the items' products, by product id."""
    variants: dict[str, list[dict[str, Any]]] = {}
    for variant in store_backend().product_variants(sorted({i["product_id"] for i in items})):
        variants.setdefault(variant.product_id, []).append(
            {"item_id": variant.item_id, "options": variant.options, "available": variant.in_stock}
        )
    return variants


def _replacement_said(
    about: str, item: dict[str, Any], variants: list[dict[str, Any]], ctx: Ctx, *, listed: bool
) -> str | Clarify | None:
    """The new version the words `about` one item ask for (match_replacement): the item itself when it is
    listed among others to stay as it is, the version offered before when this is a yes to it."""
    if listed and read.keeps_as_is(about) and not match_replacement(about, item, variants):
        return str(item["item_id"])
    if item["item_id"] in ctx.progress.offered and ctx.reading.of(about).yes_no is True:
        return ctx.progress.offered[item["item_id"]]
    return match_replacement(about, item, variants, ctx.progress.asked.get(item["item_id"]))


def _unclear_kept(progress: Progress, item_id: str, unclear: Clarify, first: Clarify | None) -> Clarify:
    """Keep what was asked of an item whose new version is unclear, and the version offered for the first one
    (the one the customer is asked about now): the first unclear item's question."""
    progress.asked = {**progress.asked, item_id: unclear.asked}
    if first is None and unclear.offered:
        progress.offered = {**progress.offered, item_id: unclear.offered}
    return first or unclear


def _asks_other_options(text: str, items: list[dict[str, Any]]) -> bool:
    """The text names option values an item of the order does not have ("512G 的黑色" for a 256 GB phone)."""
    variants = _variants_of(items)
    for item in items:
        wanted = wanted_options(text, item["options"], variants.get(item["product_id"], []))
        current = {key: str(value).lower().strip() for key, value in item["options"].items()}
        if any(current.get(key) != value for key, value in wanted.items()):
            return True
    return False


class OtherWorkflow(Exception):
    """The order named fits another workflow (items of a pending order are changed, of a delivered
    one exchanged): the runner carries on as that workflow, with these slots added."""

    def __init__(self, kind: str, slots: dict[str, Any]) -> None:
        super().__init__(kind)
        self.kind = kind
        self.slots = slots


@dataclass
class Ctx:
    tools: ToolContext
    language: str
    reading: Reading  # the turn's reading of the message (agents.reading.message)
    progress: Progress = field(default_factory=Progress)  # the workflow's, updated as its slots are read
    awaiting: str = ""  # the slot the bot asked for before this message

    _read: dict[str, Order | None] = field(default_factory=dict, repr=False)  # the orders read this turn
    _customer: list[StoreCustomer | None] = field(default_factory=list, repr=False)  # the account, once read

    @property
    def customer_id(self) -> str:
        return self.tools.verified_customer.external_id

    def _own(self, order: Order | None) -> Order | None:
        """The store's answer is checked again: an order is used only when it is the verified customer's."""
        return order if order is not None and order.customer_id == self.customer_id else None

    def orders(self, *statuses: str) -> list[Order]:
        found = [o for o in store_backend().orders(self.customer_id, statuses=statuses, limit=50) if self._own(o)]
        self._read.update((o.order_id, o) for o in found)
        return found

    def order(self, order_id: str) -> Order | None:
        if order_id not in self._read:
            self._read[order_id] = self._own(store_backend().order(self.customer_id, order_id))
        return self._read[order_id]

    def items(self, order_id: str) -> list[dict[str, Any]]:
        order = self.order(order_id)
        if order is None:
            return []
        return [
            {
                "item_id": line.item_id,
                "product_id": line.product_id,
                "name": line.name,
                "name_zh": line.name_zh,
                "aliases": list(line.aliases),
                "options": line.options,
                "price": float(line.price),
            }
            for line in order.items
        ]

    def account(self) -> StoreCustomer | None:
        """The customer's account at the store (payment methods, default address), read once a turn."""
        if not self._customer:
            self._customer.append(store_backend().customer(self.customer_id))
        return self._customer[0]

    def payment_methods(self) -> list[dict[str, Any]]:
        customer = self.account()
        return [
            {
                "id": m.payment_method_id,
                "kind": m.kind,
                "label": m.label,
                "brand": m.brand,
                "last_four": m.last_four,
                "balance": m.balance,
            }
            for m in (customer.payment_methods if customer else ())
        ]

    def default_address(self) -> dict[str, str] | None:
        customer = self.account()
        return customer.default_address if customer else None


@dataclass
class Workflow(ABC):
    """A declared list of slots, read from messages, then one confirmed write."""

    kind: str
    intent: Intent
    statuses: tuple[str, ...] = ()  # order statuses the order_id slot accepts
    # What a customer whose order is in another status hears (%(order_id)s, %(status)s).
    not_eligible: str = ""
    # Slots whose latest word counts: a value said again replaces the one said before.
    restated: tuple[str, ...] = ()

    def read_again(self, slot: str, ctx: Ctx, text: str, entities: dict[str, Any], s: dict[str, Any]) -> Any:
        """A value of a `restated` slot said again, in place of the one it holds: as `read` reads it, unless
        replacing a value needs more than filling one."""
        return self.read(slot, ctx, text, entities, s)

    @abstractmethod
    def needed(self, s: dict[str, Any]) -> list[str]:
        """The slots still missing, in the order they are asked for."""

    @abstractmethod
    def read(self, slot: str, ctx: Ctx, text: str, entities: dict[str, Any], s: dict[str, Any]) -> Any:
        """The slot's value in this message, or None; SlotInvalid when it is there but not acceptable."""

    @abstractmethod
    def summary(self, ctx: Ctx, s: dict[str, Any]) -> str:
        """What will be written, for the explicit yes/no."""

    @abstractmethod
    def perform(self, ctx: Ctx, s: dict[str, Any]) -> dict[str, Any]:
        """The one write (a tool call)."""

    @abstractmethod
    def done(self, ctx: Ctx, s: dict[str, Any], result: dict[str, Any]) -> str:
        """What the customer is told after the write."""

    def choices(self, slot: str, ctx: Ctx, s: dict[str, Any]) -> list[str]:
        return self.order_choices(ctx) if slot == "order_id" else []

    def new_items_put_right(self, ctx: Ctx, s: dict[str, Any], meant: str) -> bool:
        """A value put right after the new versions were chosen ("sorry, I meant induction"): whether it chose
        them again (only workflows that change items to other versions do)."""
        return False

    # --- order_id is shared by most workflows ---------------------------------------------------

    def sibling(
        self, status: str, s: dict[str, Any], ctx: Ctx, text: str, entities: dict[str, Any]
    ) -> tuple[str, dict[str, Any]] | None:
        """The workflow that serves the same request for an order in `status`, with its extra slots."""
        return None

    def read_order_id(
        self, ctx: Ctx, text: str, entities: dict[str, Any], s: dict[str, Any] | None = None
    ) -> str | None:
        named = entities.get("order_ids") or []
        if not named and (described := self.order_described(ctx, text, entities)):
            named = [described]  # checked like a named one: a pending order goes to the sibling workflow
        for order_id in named:
            order = ctx.order(order_id)
            if order is None:
                raise SlotInvalid(
                    say(ctx.language, "I can't find order %(order_id)s on your account.", order_id=order_id)
                )
            if self.statuses and order.status not in self.statuses:
                sibling = self.sibling(order.status, s or {}, ctx, text, entities)
                if sibling is not None:
                    raise OtherWorkflow(sibling[0], {**sibling[1], "order_id": order_id})
                raise OrderNotEligible(
                    say(
                        ctx.language,
                        self.not_eligible,
                        order_id=order_id,
                        status=order_status_said(order.status, ctx.language),
                    ),
                    order_id=order_id,
                    status=order.status,
                )
            return order_id
        return None

    def order_described(self, ctx: Ctx, text: str, entities: dict[str, Any]) -> str | None:
        """The one order this request can be about when the message describes it without its id: the
        only one it could be about that holds the products named ("return the backpack and the
        kettle"), or the only one in a state it names ("my pending order"). A state the request cannot
        serve is looked at too ("swap the kettle, it's still pending": the sibling workflow takes it).
        The confirmation shows the order before anything is written."""
        if not self.statuses or not text.strip():
            return None
        said = order_state_said(text)
        orders = ctx.orders(*([said] if said else self.statuses))
        every = read.names_all_items(text)  # "all items" would name every order's
        named = set(entities.get("products") or [])

        def holds(items: list[dict[str, Any]]) -> bool:
            return read.names_items(text, items) or bool(named & {i["name"] for i in items})

        holding = [] if every else [o for o in orders if holds(ctx.items(o.order_id))]
        if len(holding) == 1:
            return holding[0].order_id
        if not holding and len(orders) == 1 and said:
            return orders[0].order_id
        return None

    def order_choices(self, ctx: Ctx) -> list[str]:
        return [o.order_id for o in ctx.orders(*self.statuses)][:6] if self.statuses else []


PROMPTS = {
    "order_id": gettext_noop("Which order is it? Please send the order id."),
    "item_ids": gettext_noop("Which items of the order? Name them, or say 'all items'."),
    "new_item_ids": gettext_noop("What should each item become? Tell me the new options (e.g. colour, size, storage)."),
    "payment_method_id": gettext_noop("Which payment method should be used?"),
    "reason": gettext_noop("What is the reason: 'no longer needed' or 'ordered by mistake'?"),
    "address": gettext_noop("What is the new address? Please write: street, [apartment,] city, state, zip, country."),
    "change": gettext_noop("What would you like to change: the address, the payment method, or items?"),
    "imei": gettext_noop("What is the device's IMEI (15 digits, dial *#06# to see it)?"),
    "issue_description": gettext_noop("What is wrong with the device?"),
    "warranty_status": gettext_noop("Is the device still under warranty?"),
    "repair_type": gettext_noop("Would you like to bring it to a store or mail it in?"),
    "invoice_type": gettext_noop("Which invoice: personal, company, or special VAT invoice?"),
    "invoice_title": gettext_noop("What title should the invoice carry?"),
    "tax_id": gettext_noop("A special VAT invoice needs the company's tax id. What is it?"),
}
# The reasons a cancellation is stored with, as the customer reads them (makemessages finds them here).
_CANCEL_REASONS_SAID = (
    pgettext_lazy("cancel reason", "no longer needed"),
    pgettext_lazy("cancel reason", "ordered by mistake"),
)
FREE_TEXT_SLOTS = {"issue_description", "invoice_title"}


class CancelOrder(Workflow):
    def needed(self, s: dict[str, Any]) -> list[str]:
        return [n for n in ("order_id", "reason") if n not in s]

    def read(self, slot: str, ctx: Ctx, text: str, entities: dict[str, Any], s: dict[str, Any]) -> Any:
        if slot == "order_id":
            order_id = self.read_order_id(ctx, text, entities)
            if order_id and self._part_asked(ctx, text, order_id):
                ctx.progress.part_asked = True
            return order_id
        if slot == "reason":
            return ctx.reading.of(text).reason
        return None

    def read_again(self, slot: str, ctx: Ctx, text: str, entities: dict[str, Any], s: dict[str, Any]) -> Any:
        if slot == "reason":  # a message answering something else ("邮箱是…，劳驾了") keeps the reason given
            return cancel_reason(text, at=RESTATED_AT)
        return super().read_again(slot, ctx, text, entities, s)

    @staticmethod
    def _part_asked(ctx: Ctx, text: str, order_id: str) -> bool:
        """The customer asked to take some of the order's items out ("drop the earbuds from #W1"),
        which no order allows before it ships: the confirmation says the whole order is cancelled."""
        items = ctx.items(order_id)
        named = set(read.read_items(text, items) or ())
        return bool(named) and named < {i["item_id"] for i in items} and read.names_part_of_order(text)

    def summary(self, ctx: Ctx, s: dict[str, Any]) -> str:
        values = {
            "order_id": s["order_id"],
            "items": ", ".join(i["name"] for i in ctx.items(s["order_id"])),
            # the reason is stored as the store records it; the customer reads it in their language
            "reason": say_in_context("cancel reason", ctx.language, s["reason"]),
        }
        if ctx.progress.part_asked:
            return say(
                ctx.language,
                "Single items can't be taken out of an order before it ships, so this cancels the whole order "
                "(I can change an item to another option instead). Cancel order %(order_id)s (%(items)s) because "
                "it is '%(reason)s'. Every payment is refunded to the method it came from (a gift card at once, "
                "cards in 5-7 business days).",
                **values,
            )
        return say(
            ctx.language,
            "Cancel order %(order_id)s (%(items)s) because it is '%(reason)s'. Every payment is refunded to the "
            "method it came from (a gift card at once, cards in 5-7 business days).",
            **values,
        )

    def perform(self, ctx: Ctx, s: dict[str, Any]) -> dict[str, Any]:
        return tool_call("cancel_pending_order", ctx.tools, {"order_id": s["order_id"], "reason": s["reason"]})

    def done(self, ctx: Ctx, s: dict[str, Any], result: dict[str, Any]) -> str:
        return say(
            ctx.language,
            "Done: order %(order_id)s is cancelled and the refund is on its way (%(ticket)s).",
            order_id=s["order_id"],
            ticket=result["ticket"],
        )


class _ItemsWorkflow(Workflow):
    """Shared by returns, exchanges and item changes: order → items → (new items) → payment method."""

    new_items = False

    def needed(self, s: dict[str, Any]) -> list[str]:
        order = ["order_id", "item_ids", *(["new_item_ids"] if self.new_items else []), "payment_method_id"]
        return [n for n in order if n not in s]

    def read(self, slot: str, ctx: Ctx, text: str, entities: dict[str, Any], s: dict[str, Any]) -> Any:
        if slot == "order_id":
            return self.read_order_id(ctx, text, entities, s)
        if "order_id" not in s:
            return None
        items = ctx.items(s["order_id"])
        if slot == "item_ids":
            # An order of one item: "the phone", "它", "耳机" can only mean that item.
            values = _variant_values(_variants_of(items))
            named = read.read_items(text, items, values, answering=ctx.awaiting == "item_ids")
            return named or ([items[0]["item_id"]] if len(items) == 1 else None)
        if slot == "new_item_ids" and "item_ids" in s:
            old = [next(i for i in items if i["item_id"] == item_id) for item_id in s["item_ids"]]
            return self._replacements(ctx, text, old, s)
        if slot == "payment_method_id":
            return read.read_payment_method(text, ctx.payment_methods(), self.paid_with(ctx, s["order_id"]))
        return None

    @staticmethod
    def first_payment(ctx: Ctx, order_id: str) -> Payment | None:
        """The order's first payment: how it was paid."""
        order = ctx.order(order_id)
        return order.payments[0] if order and order.payments else None

    def paid_with(self, ctx: Ctx, order_id: str) -> str | None:
        """The payment method the order was first paid with."""
        paid = self.first_payment(ctx, order_id)
        return paid.payment_method_id if paid else None

    @staticmethod
    def _replacements(ctx: Ctx, text: str, old: list[dict[str, Any]], s: dict[str, Any]) -> list[str] | None:
        """The new variant of each item, grounded in the catalogue (agents.workflows.variants).

        What earlier messages settled, asked for or were offered is kept in the workflow's progress, so the
        customer never repeats an item and the answer to "not available" or to a version offered only says
        what changes.
        """
        variants = _variants_of(old)
        progress = ctx.progress
        resolved: dict[str, str] = dict(progress.replacements)
        if llm_enabled():
            resolved.update(llm_replacements(text, [i for i in old if i["item_id"] not in resolved], variants))
        # The order's other products mark where the words about an item end ("the jacket → navy XL, the
        # yoga mat → TPE, the camera → black"), even when only the jacket is still to be read.
        names = {item["name"] for item in old}
        others = [i for i in ctx.items(s["order_id"]) if i["name"] not in names] if "order_id" in s else []
        segments = read.item_segments(text, [*old, *others], _variant_values(variants))
        whole = read.normalise(text)
        others_said = any(segments[i["item_id"]] != whole for i in others)
        first_unclear: Clarify | None = None  # asked now; the items after it are still read
        for item in old:
            if item["item_id"] in resolved:
                continue
            about = text if len(old) == 1 and not others_said else segments[item["item_id"]]
            match = _replacement_said(about, item, variants.get(item["product_id"], []), ctx, listed=len(old) > 1)
            if isinstance(match, Clarify):
                first_unclear = _unclear_kept(progress, item["item_id"], match, first_unclear)
            elif match is not None:
                resolved[item["item_id"]] = match
        if first_unclear is not None:
            progress.replacements = resolved
            raise SlotInvalid(first_unclear.said(ctx.language))
        if len(resolved) < len(old):
            progress.replacements = resolved
            return None
        progress.item_choice_done()
        return [resolved[item["item_id"]] for item in old]

    def new_items_put_right(self, ctx: Ctx, s: dict[str, Any], meant: str) -> bool:
        """The items whose product has the value meant are chosen again, over the options of the version
        proposed (so only that value changes); the others keep theirs. Whether any item has it."""
        if not self.new_items or "new_item_ids" not in s:
            return False
        by_id = {item["item_id"]: item for item in ctx.items(s["order_id"])}
        old = [by_id[item_id] for item_id in s["item_ids"] if item_id in by_id]
        variants = _variants_of(old)
        progress, again = ctx.progress, False
        for item, new_id in zip(old, s["new_item_ids"], strict=False):
            product = variants.get(item["product_id"], [])
            proposed = next((v for v in product if v["item_id"] == new_id), None)
            if proposed is not None and wanted_options(meant, proposed["options"], product):
                progress.asked[item["item_id"]] = variant_options(proposed)
                again = True
            else:
                progress.replacements[item["item_id"]] = new_id
        if again:
            s.pop("new_item_ids")
        else:
            progress.item_choice_done()
        return again

    def choices(self, slot: str, ctx: Ctx, s: dict[str, Any]) -> list[str]:
        if slot == "order_id":
            return self.order_choices(ctx)
        if slot == "item_ids" and "order_id" in s:
            return [i["name"] for i in ctx.items(s["order_id"])]
        if slot == "payment_method_id":
            return [m["id"] for m in ctx.payment_methods()]
        return []

    def _item_names(self, ctx: Ctx, s: dict[str, Any], key: str = "item_ids") -> str:
        by_id = {i["item_id"]: i for i in ctx.items(s["order_id"])}
        if key == "new_item_ids":
            variants = {v.item_id: v for v in store_backend().variants(s[key])}
            return ", ".join(
                f"{variants[v].product_name} ({', '.join(map(str, variants[v].options.values()))})" for v in s[key]
            )
        return ", ".join(f"{by_id[i]['name']} ({', '.join(map(str, by_id[i]['options'].values()))})" for i in s[key])


class Return(_ItemsWorkflow):
    def sibling(
        self, status: str, s: dict[str, Any], ctx: Ctx, text: str, entities: dict[str, Any]
    ) -> tuple[str, dict[str, Any]] | None:
        # Before delivery nothing can be returned. "Send the hose back and give me the blue one" names another
        # version of an item: the item is changed. "D1001 不想要了" gives a reason and wants nothing instead: the
        # whole order is no longer wanted, so it is cancelled (one item of several cannot be).
        if status != OrderStatus.PENDING:
            return None
        order_id = next(iter(entities.get("order_ids") or []), "")
        items = ctx.items(order_id)
        named = read.read_items(text, items) if len(items) > 1 else None
        asked = [i for i in items if named is None or i["item_id"] in named]
        if _asks_other_options(text, asked) or any(same_options_asked(text, i["name"]) for i in asked):
            return WorkflowKind.MODIFY_ORDER, {"change": "items"}
        if not ctx.reading.of(text).reason:
            return None
        return (WorkflowKind.CANCEL_ORDER, {}) if named is None or len(named) == len(items) else None

    def read(self, slot: str, ctx: Ctx, text: str, entities: dict[str, Any], s: dict[str, Any]) -> Any:
        value = super().read(slot, ctx, text, entities, s)
        if slot == "order_id" and value:
            order = ctx.order(value)
            # The no-reason window (seed 001) applies when the delivery date is known.
            if order and order.delivered_at and timezone.now() - order.delivered_at > RETURN_WINDOW:
                raise SlotInvalid(
                    say(
                        ctx.language,
                        "Order %(order_id)s was delivered more than 7 days ago, outside the no-reason return window.",
                        order_id=value,
                    )
                )
        allowed = self.choices(slot, ctx, s) if slot == "payment_method_id" and value else [value]
        if value not in allowed:  # a refund goes only where the policy allows
            raise SlotInvalid(
                say(
                    ctx.language,
                    "A refund can only go back to the original payment method or to a gift card: %(methods)s.",
                    methods=", ".join(allowed),
                ),
                refused=str(value),
            )
        return value

    def choices(self, slot: str, ctx: Ctx, s: dict[str, Any]) -> list[str]:
        if slot != "payment_method_id" or "order_id" not in s:
            return super().choices(slot, ctx, s)
        # Only where a refund may go (store policy): the order's original method or a gift card.
        original = self.paid_with(ctx, s["order_id"])
        return [m["id"] for m in ctx.payment_methods() if m["id"] == original or m["kind"] == PaymentKind.GIFT_CARD]

    def summary(self, ctx: Ctx, s: dict[str, Any]) -> str:
        return say(
            ctx.language,
            "Return from order %(order_id)s: %(items)s; refund to %(method)s.",
            order_id=s["order_id"],
            items=self._item_names(ctx, s),
            method=s["payment_method_id"],
        )

    def perform(self, ctx: Ctx, s: dict[str, Any]) -> dict[str, Any]:
        return tool_call(
            "create_return_order",
            ctx.tools,
            {"order_id": s["order_id"], "item_ids": s["item_ids"], "payment_method_id": s["payment_method_id"]},
        )

    def done(self, ctx: Ctx, s: dict[str, Any], result: dict[str, Any]) -> str:
        return say(
            ctx.language,
            "Your return %(return_id)s is registered. %(instructions)s",
            return_id=result["return_order_id"],
            instructions=result["instructions"],
        )


class Exchange(_ItemsWorkflow):
    new_items = True

    def sibling(
        self, status: str, s: dict[str, Any], ctx: Ctx, text: str, entities: dict[str, Any]
    ) -> tuple[str, dict[str, Any]] | None:
        # "Change the mouse" on an order not yet shipped is an item change, not an exchange; "a
        # different card on #W1, use credit_card_2" is a change of its payment.
        if status != OrderStatus.PENDING:
            return None
        said = ModifyOrder.change_said(ctx, text, entities, country="")
        return WorkflowKind.MODIFY_ORDER, {"change": said if said in ("address", "payment") else "items"}

    def summary(self, ctx: Ctx, s: dict[str, Any]) -> str:
        return say(
            ctx.language,
            "Exchange in order %(order_id)s: %(items)s → %(new_items)s; any price difference via %(method)s.",
            order_id=s["order_id"],
            items=self._item_names(ctx, s),
            new_items=self._item_names(ctx, s, "new_item_ids"),
            method=s["payment_method_id"],
        )

    def perform(self, ctx: Ctx, s: dict[str, Any]) -> dict[str, Any]:
        args = {k: s[k] for k in ("order_id", "item_ids", "new_item_ids", "payment_method_id")}
        return tool_call("create_exchange_order", ctx.tools, args)

    def done(self, ctx: Ctx, s: dict[str, Any], result: dict[str, Any]) -> str:
        return say(
            ctx.language,
            "Your exchange is registered (%(ticket)s); we'll email you how to send the items back.",
            ticket=result["ticket"],
        )


class ModifyOrder(_ItemsWorkflow):
    def sibling(
        self, status: str, s: dict[str, Any], ctx: Ctx, text: str, entities: dict[str, Any]
    ) -> tuple[str, dict[str, Any]] | None:
        # Items of a delivered order are exchanged; its address or payment can no longer change.
        if status == OrderStatus.DELIVERED and s.get("change", "items") == "items":
            return WorkflowKind.EXCHANGE, {}
        return None

    def needed(self, s: dict[str, Any]) -> list[str]:
        if s.get("change") == "default_address":  # the account's address: no order involved
            return [] if "address" in s else ["address"]
        if "order_id" not in s:
            return ["change", "order_id"] if "change" not in s else ["order_id"]
        if "change" not in s:
            return ["change"]
        wanted = {
            "address": ["address"],
            "payment": ["payment_method_id"],
            "items": ["item_ids", "new_item_ids", "payment_method_id"],
        }[s["change"]]
        return [n for n in wanted if n not in s]

    def read(self, slot: str, ctx: Ctx, text: str, entities: dict[str, Any], s: dict[str, Any]) -> Any:
        if slot == "change":
            country = self._country(ctx, s) if s.get("order_id") else ""
            return self.change_said(ctx, text, entities, country=country, order_named=bool(s.get("order_id")))
        if slot == "address":
            return self._address(ctx, text, s)
        value = super().read(slot, ctx, text, entities, s)
        if slot == "new_item_ids" and value and value == s.get("item_ids") and not self._same_asked(ctx, text, s):
            # Every item "changed" into itself, unasked, changes nothing (each kept as it is, "just the kettle"
            # read as "the same kettle"): never proposed, the new options are asked for.
            return None
        if slot == "payment_method_id" and value and s.get("change") == "payment":
            self._check_new_payment(ctx, s["order_id"], value)
        return value

    @staticmethod
    def _same_asked(ctx: Ctx, text: str, s: dict[str, Any]) -> bool:
        """The words ask for a new one of each item, exactly as it is ("同款同规格再来一个新的")."""
        names = {item["name"] for item in ctx.items(s["order_id"]) if item["item_id"] in s["item_ids"]}
        return all(same_options_asked(text, name) for name in names)

    def _check_new_payment(self, ctx: Ctx, order_id: str, method_id: str) -> None:
        """Refuse, when it is named, a method the write would refuse: the one already paying, or a gift
        card whose balance does not cover the order."""
        paid = self.first_payment(ctx, order_id)
        if paid is not None and method_id == paid.payment_method_id:
            raise SlotInvalid(
                say(
                    ctx.language,
                    "Order %(order_id)s is already paid with %(method)s.",
                    order_id=order_id,
                    method=method_id,
                ),
                refused=method_id,
            )
        method = next((m for m in ctx.payment_methods() if m["id"] == method_id), None)
        if (
            method is not None
            and method["kind"] == PaymentKind.GIFT_CARD
            and paid is not None
            and (method["balance"] or 0) < paid.amount
        ):
            currency = store_catalogue().currency
            raise SlotInvalid(
                say(
                    ctx.language,
                    "The balance of %(method)s (%(balance)s) does not cover the order's %(amount)s.",
                    method=method_id,
                    balance=money(method["balance"] or 0, currency),
                    amount=money(paid.amount, currency),
                ),
                refused=method_id,
            )

    @staticmethod
    def change_said(
        ctx: Ctx, text: str, entities: dict[str, Any], *, country: str, order_named: bool = False
    ) -> str | None:
        """What of an order the message changes: its address, its payment, its items, or the
        account's default address (agents.reading.change); what the order's items and the customer's
        payment methods say when the words do not."""
        said = ctx.reading.of(text).change
        if said != "default_address" and parse_address(text, default_country=country):
            return "address"  # "ship it to 12 Main St, …": the address says what changes
        if said == "default_address" and (order_named or entities.get("order_ids")):
            if not read.SETS_DEFAULT_ADDRESS.search(text):
                return "address"  # "deliver #W1 to my default address": the order's address changes
        if said is not None:
            return said
        order_id = next(iter(entities.get("order_ids") or []), None)
        items = ctx.items(order_id) if order_id else []
        if entities.get("products") or read.names_items(text, items):
            return "items"  # "the Find X9 in #D1001, white": the item named is what changes
        if items and _asks_other_options(text, items):
            return "items"  # "D1001 能不能改成 512G 的黑色": the options say it
        if read.read_payment_method(text, ctx.payment_methods(), None, strict=True):
            return "payment"  # "can I pay for #W1 with my Visa ending 5768": the method says it
        return None

    def _address(self, ctx: Ctx, text: str, s: dict[str, Any]) -> dict[str, str] | None:
        """A whole address; or the account's own ("my default address"); or a part of one, kept as a
        draft until the rest arrives."""
        country = self._country(ctx, s)
        draft = ctx.progress.draft
        if draft.endswith(text):  # read again in a later pass over the same message
            draft = draft[: -len(text)].rstrip(", ")
        found = parse_address(text, default_country=country) or (
            parse_address(f"{draft}, {text}", default_country=country) if draft else None
        )
        if found and found.get("zip"):
            ctx.progress.draft = ""
            return found
        if s.get("change") == "address" and read.ACCOUNT_ADDRESS.search(text):
            default = ctx.default_address()
            if default is not None:
                return default
        if found:  # 省/市/区 and the street without a 邮编, which the store needs: it is asked for
            so_far = {key: value for key, value in found.items() if value}
        else:
            part = address_fragment(text)
            if not part:
                return None
            so_far = address_fragment(f"{draft}, {text}") if draft else part
            if all(so_far.get(key) for key in ("address1", "city", "zip")):
                ctx.progress.draft = ""  # every field is there, only not in an order the parsers know
                return {**dict.fromkeys(("address2", "state"), ""), **so_far, "country": country}
        parts = {
            "address1": say_in_context("missing address part", ctx.language, "street"),
            "city": say_in_context("missing address part", ctx.language, "city"),
            "zip": say_in_context("missing address part", ctx.language, "zip code"),
        }
        missing = [parts[f] for f in parts if f not in so_far]
        raise SlotPartial(
            say(
                ctx.language,
                "Got it so far: %(address)s. Please send the rest (%(missing)s).",
                address=address_lines(so_far, ctx.language),
                missing=say_in_context("list separator", ctx.language, ", ").join(missing)
                or say_in_context("missing address part", ctx.language, "the full address"),
            ),
            draft=f"{draft}, {text}" if draft else text,
        )

    @staticmethod
    def _country(ctx: Ctx, s: dict[str, Any]) -> str:
        """The country an address without one is in: the order's, else the account's."""
        order = ctx.order(s["order_id"]) if s.get("order_id") else None
        if order is not None and order.address.get("country"):
            return str(order.address["country"])
        default = ctx.default_address()
        return default["country"] if default else ""

    def summary(self, ctx: Ctx, s: dict[str, Any]) -> str:
        if s["change"] in ("default_address", "address"):
            what = address_lines(s["address"], ctx.language)
            if s["change"] == "default_address":
                return say(ctx.language, "Make this your default shipping address: %(address)s.", address=what)
            return say(
                ctx.language,
                "Ship order %(order_id)s to this address: %(address)s.",
                order_id=s["order_id"],
                address=what,
            )
        if s["change"] == "payment":
            return say(
                ctx.language,
                "Pay order %(order_id)s with %(method)s; the old payment is refunded.",
                order_id=s["order_id"],
                method=s["payment_method_id"],
            )
        return say(
            ctx.language,
            "Change in order %(order_id)s: %(items)s → %(new_items)s; price difference via %(method)s. Items can be "
            "changed only once.",
            order_id=s["order_id"],
            items=self._item_names(ctx, s),
            new_items=self._item_names(ctx, s, "new_item_ids"),
            method=s["payment_method_id"],
        )

    def perform(self, ctx: Ctx, s: dict[str, Any]) -> dict[str, Any]:
        if s["change"] == "default_address":
            return {**tool_call("modify_default_address", ctx.tools, s["address"]), "ticket": "-"}
        args: dict[str, Any] = {"order_id": s["order_id"], "change": s["change"]}
        for key in ("address", "payment_method_id", "item_ids", "new_item_ids"):
            if key in s:
                args[key] = s[key]
        return tool_call("modify_pending_order", ctx.tools, args)

    def done(self, ctx: Ctx, s: dict[str, Any], result: dict[str, Any]) -> str:
        if s["change"] == "default_address":
            return say(ctx.language, "Done: your default address is updated.")
        return say(
            ctx.language,
            "Done: order %(order_id)s is updated (%(ticket)s).",
            order_id=s["order_id"],
            ticket=result["ticket"],
        )


_WARRANTY_STATUSES = {"in_warranty": gettext_noop("in warranty"), "out_of_warranty": gettext_noop("out of warranty")}
_REPAIR_TYPES = {"in_store": gettext_noop("in store"), "mail_in": gettext_noop("mail in")}


class Repair(Workflow):
    def needed(self, s: dict[str, Any]) -> list[str]:
        return [n for n in ("imei", "issue_description", "warranty_status", "repair_type") if n not in s]

    def read(self, slot: str, ctx: Ctx, text: str, entities: dict[str, Any], s: dict[str, Any]) -> Any:
        if slot == "imei":
            return entities.get("imei")
        if slot == "warranty_status":
            return read.read_choice(text, read.WARRANTY_WORDS)
        if slot == "repair_type":
            return read.read_choice(text, read.REPAIR_TYPE_WORDS)
        if slot == "issue_description":
            return text.strip()
        return None

    def summary(self, ctx: Ctx, s: dict[str, Any]) -> str:
        return say(
            ctx.language,
            "Repair for IMEI %(imei)s: %(issue)s (%(warranty)s, %(repair_type)s).",
            imei=s["imei"],
            issue=s["issue_description"],
            warranty=say(ctx.language, _WARRANTY_STATUSES[s["warranty_status"]]),
            repair_type=say(ctx.language, _REPAIR_TYPES[s["repair_type"]]),
        )

    def perform(self, ctx: Ctx, s: dict[str, Any]) -> dict[str, Any]:
        return tool_call("create_repair_order", ctx.tools, {k: s[k] for k in self.needed({})})

    def done(self, ctx: Ctx, s: dict[str, Any], result: dict[str, Any]) -> str:
        cost = result["estimated_cost"]
        return say(
            ctx.language,
            "Repair order %(repair_id)s is open; estimated cost %(cost)s.",
            repair_id=result["repair_order_id"],
            cost=money(cost, store_catalogue().currency)
            if cost
            else say_in_context("repair cost", ctx.language, "free"),
        )


class Invoice(Workflow):
    def needed(self, s: dict[str, Any]) -> list[str]:
        slots = ["order_id", "invoice_type", "invoice_title"]
        if s.get("invoice_type") == "special":
            slots.append("tax_id")
        return [n for n in slots if n not in s]

    def read(self, slot: str, ctx: Ctx, text: str, entities: dict[str, Any], s: dict[str, Any]) -> Any:
        if slot == "order_id":
            return self.read_order_id(ctx, text, entities)
        if slot == "invoice_type":
            return read.read_choice(text, read.INVOICE_TYPE_WORDS)
        if slot == "tax_id":
            return read.read_tax_id(text)
        if slot == "invoice_title":
            return text.strip()
        return None

    def summary(self, ctx: Ctx, s: dict[str, Any]) -> str:
        kinds = {
            "personal": say_in_context("invoice type", ctx.language, "Personal"),
            "company": say_in_context("invoice type", ctx.language, "Company"),
            "special": say_in_context("invoice type", ctx.language, "Special"),
        }
        values = {"order_id": s["order_id"], "type": kinds[s["invoice_type"]], "title": s["invoice_title"]}
        if s.get("tax_id"):
            return say(
                ctx.language,
                "%(type)s invoice for order %(order_id)s, title '%(title)s', tax id %(tax_id)s.",
                tax_id=s["tax_id"],
                **values,
            )
        return say(ctx.language, "%(type)s invoice for order %(order_id)s, title '%(title)s'.", **values)

    def perform(self, ctx: Ctx, s: dict[str, Any]) -> dict[str, Any]:
        args: dict[str, Any] = {k: s[k] for k in ("order_id", "invoice_type", "invoice_title", "tax_id") if k in s}
        return tool_call("generate_invoice", ctx.tools, args)

    def done(self, ctx: Ctx, s: dict[str, Any], result: dict[str, Any]) -> str:
        return say(
            ctx.language,
            "Invoice %(invoice_id)s will be emailed to you as an e-invoice.",
            invoice_id=result["invoice_id"],
        )


WORKFLOWS: dict[str, Workflow] = {
    WorkflowKind.CANCEL_ORDER: CancelOrder(
        WorkflowKind.CANCEL_ORDER,
        Intent.CANCEL_ORDER,
        (OrderStatus.PENDING,),
        gettext_noop("Order %(order_id)s is %(status)s, so it can't be cancelled."),
        # "暂时不需要了…", then, while the bot asks who they are: "取消的理由其实是点错了"
        restated=("reason",),
    ),
    WorkflowKind.RETURN: Return(
        WorkflowKind.RETURN,
        Intent.RETURN,
        (OrderStatus.DELIVERED,),
        gettext_noop("Order %(order_id)s is %(status)s, so it can't be returned."),
    ),
    WorkflowKind.EXCHANGE: Exchange(
        WorkflowKind.EXCHANGE,
        Intent.EXCHANGE,
        (OrderStatus.DELIVERED,),
        gettext_noop("Order %(order_id)s is %(status)s, so it can't be exchanged."),
    ),
    WorkflowKind.MODIFY_ORDER: ModifyOrder(
        WorkflowKind.MODIFY_ORDER,
        Intent.MODIFY_ORDER,
        (OrderStatus.PENDING,),
        gettext_noop("Order %(order_id)s is %(status)s, so it can't be changed."),
    ),
    WorkflowKind.REPAIR: Repair(WorkflowKind.REPAIR, Intent.REPAIR),
    WorkflowKind.INVOICE: Invoice(
        WorkflowKind.INVOICE,
        Intent.INVOICE,
        (OrderStatus.DELIVERED, OrderStatus.PROCESSED, OrderStatus.RETURN_REQUESTED, OrderStatus.EXCHANGE_REQUESTED),
        gettext_noop("Order %(order_id)s is %(status)s, so it can't be invoiced."),
    ),
}
WORKFLOW_FOR_INTENT = {workflow.intent.value: kind for kind, workflow in WORKFLOWS.items()}
