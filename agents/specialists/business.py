"""Store questions answered from the store: prices (with the national subsidy), stock, specs,
comparisons, recommendations, orders and deliveries.

Offline, a deterministic plan maps intent + entities to tool calls and formats the answer in the
customer's language. Private answers need a verified customer (see agents.verification).
"""

from __future__ import annotations

import json
import re
from typing import Any

from django.utils.translation import gettext_noop

from agents.answers import SpecialistContext, SpecialistResult
from agents.llm.client import LLMUnavailable, llm_chat, llm_enabled
from agents.pii import mask_pii
from agents.specialists import Specialist, register
from agents.taxonomy import Intent
from agents.tools import TOOLS, ToolContext, ToolError, tool_call
from agents.verification import ProofStatus, chat_proof, verified_customer
from agents.workflows.verify import identity_question, workflow_verify_start
from conversations.language import Language, say
from conversations.models import Conversation
from conversations.services import conversation_verified_customer_set
from stores.catalogue import store_catalogue
from stores.labels import carrier_said, order_status_said
from stores.money import money
from stores.records import StoreUnavailable

PRIVATE = {Intent.ORDER_QUERY, Intent.LOGISTICS_QUERY, Intent.RETURN, Intent.EXCHANGE}
_SUBSIDY_WORDS = re.compile(r"国补|补贴|subsid", re.IGNORECASE)


def _money(value: float, currency: str | None) -> str:
    return money(value, currency or store_catalogue().currency)


def _item_name(item: dict[str, Any], language: str) -> str:
    """An order item's name in the reply's language: the catalogue's Chinese name where it has one."""
    return (item.get("name_zh") if language == Language.ZH else "") or item["name"]


def _scan_said(event: dict[str, Any], language: str) -> str:
    """A tracking scan in the reply's language: what happened, where (unless that already says it) and when.
    A Chinese reply takes the Chinese text where the carrier's data has it."""
    zh = language == Language.ZH
    description = (event.get("description_zh") if zh else "") or event["description"]
    place = (event.get("location_zh") if zh else "") or event["location"]
    when = event["at"][:16].replace("T", " ")
    detail = f"{place}, {when}" if place and place not in description else when
    return f"{description}（{detail.replace(', ', '，')}）" if zh else f"{description} ({detail})"


_CATEGORIES = {"phone": r"phone|手机", "earbuds": r"earbud|earphone|headphone|耳机", "tablet": r"tablet|pad|平板"}
_TAGS = {
    "camera": r"camera|photo|拍照|摄影|相机",
    "gaming": r"gam|游戏|打游戏",
    "light": r"light|thin|轻|薄",
    "business": r"business|work|office|办公|商务",
    "study": r"study|student|学习|学生|网课",
    "music": r"music|音乐|听歌",
}


def _product_names(ctx: SpecialistContext) -> list[str]:
    return list(ctx.entities.get("products") or [])


def verification_prompt(language: str) -> str:
    return say(
        language,
        "To look at your orders I first need to confirm it's you. Please send the email on your account, or your "
        "first and last name with your zip code, or an order id with the last 4 digits of your phone number.",
    )


# A price line by (subsidised, sold at several prices, saying no subsidy applies because it was asked about).
_PRICE_LINES = {
    (True, True, False): gettext_noop(
        "%(product)s from: %(price)s; with the national subsidy (−%(subsidy)s) you pay %(final)s."
    ),
    (True, False, False): gettext_noop(
        "%(product)s: %(price)s; with the national subsidy (−%(subsidy)s) you pay %(final)s."
    ),
    (False, True, True): gettext_noop("%(product)s from: %(price)s (no national subsidy for this category)."),
    (False, False, True): gettext_noop("%(product)s: %(price)s (no national subsidy for this category)."),
    (False, True, False): gettext_noop("%(product)s from: %(price)s."),
    (False, False, False): gettext_noop("%(product)s: %(price)s."),
}

_TOOL_ERRORS = {
    "order_not_found": gettext_noop("I couldn't find that order on your account. Could you check the order id?"),
    "tracking_not_found": gettext_noop("I couldn't find that tracking number on your account."),
    "product_not_found": gettext_noop("We don't sell a product by that name."),
    "variant_not_found": gettext_noop("That product isn't available with those options."),
}


STORE_UNREACHABLE = gettext_noop(
    "I can't reach the order system right now, so nothing has been changed. Please try again in a few minutes, "
    "or talk to a person."
)


WRITE_UNCONFIRMED = gettext_noop(
    "I couldn't get an answer from the order system, so I can't confirm that this went through. Please say yes "
    "again in a few minutes (it won't be done twice), or talk to a person."
)


def store_unreachable(language: str, *, write_unconfirmed: bool = False) -> SpecialistResult:
    """The store's system did not answer: said plainly, unresolved (it counts as a failed turn), a person offered.
    A write that got no answer may have been done, so it is not said to be undone."""
    return SpecialistResult(
        text=say(language, WRITE_UNCONFIRMED if write_unconfirmed else STORE_UNREACHABLE),
        resolved=False,
        quick_replies=(say(language, "Talk to a person"),),
        data={"tool_error": "store_unavailable"},
    )


# Seed 004's whitelist: the business agent reads; writes only happen in workflows, after a yes.
READ_TOOLS = [
    "product_search",
    "get_inventory_info",
    "get_price_info",
    "product_compare",
    "product_recommend",
    "get_order_info",
    "list_orders",
    "get_logistics_info",
]
MAX_TOOL_STEPS = 4


def tool_loop(ctx: SpecialistContext, tools: ToolContext) -> SpecialistResult:
    """Let the LLM call read tools (call → result → answer), at most MAX_TOOL_STEPS rounds.

    Tool errors go back to the model as results, so it can correct itself or explain. The customer
    is injected into every call; an argument naming a customer is refused by the tool schema.
    """
    language = "Simplified Chinese" if ctx.language == "zh" else "English"
    messages: list[dict[str, Any]] = [
        {
            "role": "system",
            "content": "You are the customer-service assistant of an online store. Answer only from tool results; "
            f"never invent prices, stock or order data. Reply in {language}, briefly.",
        },
        {"role": "user", "content": f"<message>\n{mask_pii(ctx.message_text)}\n</message>"},
    ]
    definitions = [TOOLS[name].openai_definition() for name in READ_TOOLS]
    for _ in range(MAX_TOOL_STEPS):
        result = llm_chat(messages, tier="main", tools=definitions)
        if not result.tool_calls:
            return SpecialistResult(text=result.text.strip(), data={"llm_tool_steps": len(messages) - 2})
        messages.append(
            {
                "role": "assistant",
                "content": result.text or None,
                "tool_calls": [
                    {"id": c["id"], "type": "function", "function": {"name": c["name"], "arguments": c["arguments"]}}
                    for c in result.tool_calls
                ],
            }
        )
        for call in result.tool_calls:
            messages.append(
                {
                    "role": "tool",
                    "tool_call_id": call["id"],
                    "content": json.dumps(_run_tool(call, tools), ensure_ascii=False),
                }
            )
    raise LLMUnavailable(f"no answer after {MAX_TOOL_STEPS} tool rounds")


def _run_tool(call: dict[str, Any], tools: ToolContext) -> dict[str, Any]:
    if call["name"] not in READ_TOOLS:
        return {"error": "not_allowed", "message": f"{call['name']} is not available here."}
    try:
        arguments = json.loads(call["arguments"] or "{}")
    except json.JSONDecodeError:
        return {"error": "bad_arguments", "message": "arguments are not valid JSON"}
    if not isinstance(arguments, dict):
        return {"error": "bad_arguments", "message": "arguments must be an object"}
    try:
        return tool_call(call["name"], tools, arguments)
    except ToolError as exc:
        return exc.as_json()


class _Answer(Exception):
    """Raised by a planner step that has the final answer (keeps the plan code flat)."""

    def __init__(self, result: SpecialistResult) -> None:
        self.result = result


@register
class Business(Specialist):
    name = "business_query"

    def run(self, ctx: SpecialistContext) -> SpecialistResult:
        conversation = Conversation.objects.select_related("customer", "verified_customer").get(pk=ctx.conversation_id)
        customer = verified_customer(conversation)
        if customer is None and Intent(ctx.intent) in (Intent.RETURN, Intent.EXCHANGE):
            # The workflow subtask running beside this one asks for verification itself.
            return SpecialistResult(text="")
        if customer is None and Intent(ctx.intent) in PRIVATE:
            try:
                proof = chat_proof(conversation, ctx.entities, ctx.message_text)
            except StoreUnavailable:  # the account could not be looked up at the store
                return store_unreachable(ctx.language)
            if proof.status == ProofStatus.VERIFIED and proof.customer is not None:
                conversation_verified_customer_set(conversation_id=conversation.pk, customer=proof.customer)
                customer = proof.customer
            else:
                prompt, slot = identity_question(ctx.language, proof, ask=verification_prompt(ctx.language))
                workflow_verify_start(
                    conversation_id=conversation.pk,
                    intent=ctx.intent,
                    text=ctx.message_text,
                    step=slot,
                )
                return SpecialistResult(
                    text=prompt,
                    awaiting={"slot": slot, "prompt": prompt, "choices": []},
                    data={"verification_required": True, "failed_attempt": proof.failed},
                )
        tools = ToolContext(conversation_id=ctx.conversation_id, customer=customer, language=ctx.language)
        if llm_enabled():
            try:
                return tool_loop(ctx, tools)
            except LLMUnavailable:
                pass  # the offline plan below answers instead
        planners = {
            Intent.PRICE_QUERY: self._price,
            Intent.INVENTORY_CHECK: self._stock,
            Intent.PARAMS_QUERY: self._specs,
            Intent.PRODUCT_COMPARE: self._compare,
            Intent.PRODUCT_RECOMMEND: self._recommend,
            Intent.ORDER_QUERY: self._order,
            Intent.LOGISTICS_QUERY: self._logistics,
            Intent.RETURN: self._order,
            Intent.EXCHANGE: self._order,
        }
        planner = planners.get(Intent(ctx.intent), self._search)
        try:
            return planner(ctx, tools)
        except _Answer as answer:
            return answer.result
        except StoreUnavailable:  # the catalogue, read outside a tool, could not be read
            return store_unreachable(ctx.language)
        except ToolError as exc:
            if exc.code == "store_unavailable":
                return store_unreachable(ctx.language)
            return SpecialistResult(text=self._tool_error(ctx.language, exc), resolved=exc.code != "product_not_found")

    # --- catalogue ----------------------------------------------------------------------------

    def _need_product(self, ctx: SpecialistContext) -> list[str]:
        names = _product_names(ctx)
        if not names:
            examples = store_catalogue().examples()
            if len(examples) > 1:
                text = say(
                    ctx.language,
                    "Which product do you mean? For example %(first)s or %(second)s.",
                    first=examples[0],
                    second=examples[1],
                )
            elif examples:
                text = say(ctx.language, "Which product do you mean? For example %(first)s.", first=examples[0])
            else:
                text = say(ctx.language, "Which product do you mean?")
            raise _Answer(SpecialistResult(text=text, quick_replies=tuple(examples)))
        return names

    def _price(self, ctx: SpecialistContext, tools: ToolContext) -> SpecialistResult:
        lines = []
        for name in self._need_product(ctx):
            info = tool_call("get_price_info", tools, {"product": name, "apply_subsidy": True})
            cheapest = info["variants"][0]
            product = info["product"]["name_zh" if ctx.language == "zh" else "name"] or info["product"]["name"]
            spread = len({v["price"] for v in info["variants"]}) > 1
            currency = info["product"].get("currency")
            subsidised = bool(cheapest["subsidy"])
            line = _PRICE_LINES[subsidised, spread, not subsidised and bool(_SUBSIDY_WORDS.search(ctx.text))]
            lines.append(
                say(
                    ctx.language,
                    line,
                    product=product,
                    price=_money(cheapest["price"], currency),
                    subsidy=_money(cheapest["subsidy"], currency),
                    final=_money(cheapest["final_price"], currency),
                )
            )
        return SpecialistResult(text="\n".join(lines))

    def _stock(self, ctx: SpecialistContext, tools: ToolContext) -> SpecialistResult:
        options = ctx.entities.get("options") or {}
        lines = []
        for name in self._need_product(ctx):
            args = {"product": name, **{k: v for k, v in options.items() if k in ("color", "storage")}}
            info = tool_call("get_inventory_info", tools, args)
            for variant in info["variants"]:
                label = " / ".join(
                    str(v) for k, v in variant["options"].items() if (k.endswith("_zh")) == (ctx.language == "zh")
                ) or " / ".join(str(v) for v in variant["options"].values())
                if variant["available"]:
                    if variant["stock"] is None:
                        state = say(ctx.language, "in stock")
                    else:
                        state = say(ctx.language, "in stock (%(count)s)", count=variant["stock"])
                else:
                    state = say(ctx.language, "out of stock")
                lines.append(f"{info['product']['name']} {label}: {state}")
        return SpecialistResult(text="\n".join(lines))

    def _specs(self, ctx: SpecialistContext, tools: ToolContext) -> SpecialistResult:
        table = self._table(ctx, tools, self._need_product(ctx))
        return SpecialistResult(text=table)

    def _compare(self, ctx: SpecialistContext, tools: ToolContext) -> SpecialistResult:
        names = self._need_product(ctx)
        if len(names) < 2:
            pair = store_catalogue().pair_to_compare()
            example = f"{pair[0]} vs {pair[1]}" if pair else ""
            return SpecialistResult(
                text=say(ctx.language, "Which products should I compare? For example %(pair)s.", pair=example)
                if example
                else say(ctx.language, "Which products should I compare?"),
                quick_replies=(example,) if example else (),
            )
        return SpecialistResult(text=self._table(ctx, tools, names))

    def _table(self, ctx: SpecialistContext, tools: ToolContext, names: list[str]) -> str:
        """A markdown table: one column per product, a row per specification (one product: its specs)."""
        if len(set(names)) > 1:
            data = tool_call("product_compare", tools, {"products": names})
            products, keys = data["products"], data["spec_keys"]
        else:
            products = [self._one(tools, names[0])]
            keys = sorted(k for k in products[0]["specs"] if not k.endswith("_zh"))
        price_label = say(ctx.language, "price from")
        rows = ["| | " + " | ".join(p["name"] for p in products) + " |", "|" + "---|" * (len(products) + 1)]
        rows.append(
            f"| {price_label} | " + " | ".join(_money(p["price_from"], p.get("currency")) for p in products) + " |"
        )
        for key in keys:
            values = []
            for product in products:
                specs = product["specs"]
                localized_key = f"{key}_zh" if ctx.language == "zh" and f"{key}_zh" in specs else key
                values.append(str(specs.get(localized_key, "-")))
            rows.append(f"| {key.replace('_', ' ')} | " + " | ".join(values) + " |")
        return "\n".join(rows)

    @staticmethod
    def _one(tools: ToolContext, name: str) -> dict[str, Any]:
        product = store_catalogue().product(name)
        if product is None:
            raise ToolError("product_not_found", f"No product called {name!r} is sold here.")
        info = tool_call("get_price_info", tools, {"product": name})
        return {
            "name": product.name,
            "price_from": info["variants"][0]["price"],
            "currency": info["product"]["currency"],
            "specs": product.specs,
        }

    def _recommend(self, ctx: SpecialistContext, tools: ToolContext) -> SpecialistResult:
        amounts = [a["value"] for a in ctx.entities.get("amounts") or [] if a.get("value")]
        args: dict[str, Any] = {}
        if amounts:
            args["budget_max"] = max(amounts)
        category = next((c for c, pattern in _CATEGORIES.items() if re.search(pattern, ctx.text, re.IGNORECASE)), None)
        if category:
            args["category"] = category
        tags = [tag for tag, pattern in _TAGS.items() if re.search(pattern, ctx.text, re.IGNORECASE)]
        if tags:
            args["tags"] = tags
        picks = tool_call("product_recommend", tools, args)["recommendations"]
        if not picks:
            text = say(
                ctx.language, "Nothing in stock fits that budget right now. Would a slightly higher budget work?"
            )
            return SpecialistResult(text=text, resolved=True)
        lines = [say(ctx.language, "My suggestions:")]
        for pick in picks:
            name = (pick["name_zh"] or pick["name"]) if ctx.language == "zh" else pick["name"]
            tagline = ", ".join(pick["tags"][:3])
            lines.append(
                f"- {name}: {_money(pick['price_from'], pick.get('currency'))}{' (' + tagline + ')' if tagline else ''}"
            )
        return SpecialistResult(text="\n".join(lines), data={"recommendations": [p["name"] for p in picks]})

    def _search(self, ctx: SpecialistContext, tools: ToolContext) -> SpecialistResult:
        found = tool_call(
            "product_search", tools, {"query": " ".join(_product_names(ctx))} if _product_names(ctx) else {}
        )
        names = ", ".join(p["name"] for p in found["products"][:5])
        return SpecialistResult(text=say(ctx.language, "We sell: %(products)s.", products=names))

    # --- orders -------------------------------------------------------------------------------

    def _order(self, ctx: SpecialistContext, tools: ToolContext) -> SpecialistResult:
        order_ids = list(ctx.entities.get("order_ids") or [])
        if not order_ids:
            orders = tool_call("list_orders", tools, {})["orders"]
            if not orders:
                return SpecialistResult(text=say(ctx.language, "There are no orders on your account."))
            lines = [say(ctx.language, "Your orders:")]
            for o in orders[:5]:
                names = (o.get("items_zh") if ctx.language == Language.ZH else None) or o["items"]
                lines.append(f"- {o['order_id']}: {order_status_said(o['status'], ctx.language)} ({', '.join(names)})")
            return SpecialistResult(text="\n".join(lines), quick_replies=tuple(o["order_id"] for o in orders[:4]))
        lines = []
        for order_id in order_ids:
            order = tool_call("get_order_info", tools, {"order_id": order_id})
            items = ", ".join(
                f"{_item_name(i, ctx.language)} ({_money(i['price'], order['currency'])})" for i in order["items"]
            )
            lines.append(
                say(
                    ctx.language,
                    "Order %(order_id)s is %(status)s: %(items)s; total %(total)s.",
                    order_id=order["order_id"],
                    status=order_status_said(order["status"], ctx.language),
                    items=items,
                    total=_money(order["total"], order["currency"]),
                )
            )
        return SpecialistResult(text="\n".join(lines))

    def _logistics(self, ctx: SpecialistContext, tools: ToolContext) -> SpecialistResult:
        tracking = list(ctx.entities.get("tracking_numbers") or [])
        order_ids = list(ctx.entities.get("order_ids") or [])
        if not tracking and not order_ids:
            return self._order(ctx, tools)
        args = {"tracking_number": tracking[0]} if tracking else {"order_id": order_ids[0]}
        info = tool_call("get_logistics_info", tools, args)
        if not info["shipments"]:
            return SpecialistResult(
                text=say(
                    ctx.language,
                    "Order %(order_id)s is %(status)s and has not shipped yet.",
                    order_id=info["order_id"],
                    status=order_status_said(info["order_status"], ctx.language),
                )
            )
        lines = []
        for shipment in info["shipments"]:
            latest = shipment["events"][0] if shipment["events"] else None
            where = _scan_said(latest, ctx.language) if latest else say(ctx.language, "no scan yet")
            values = {
                "carrier": carrier_said(shipment["carrier"], ctx.language),
                "tracking": ", ".join(shipment["tracking_ids"]),
                "where": where,
            }
            eta = shipment["estimated_arrival"]
            if eta:
                line = say(
                    ctx.language, "%(carrier)s %(tracking)s: %(where)s. Estimated arrival %(eta)s.", eta=eta, **values
                )
            else:
                line = say(ctx.language, "%(carrier)s %(tracking)s: %(where)s.", **values)
            lines.append(line)
        return SpecialistResult(text="\n".join(lines))

    @staticmethod
    def _tool_error(language: str, exc: ToolError) -> str:
        message = _TOOL_ERRORS.get(exc.code)
        return say(language, message) if message else exc.message
