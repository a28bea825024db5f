"""The intents the engine recognises (seed 001 taxonomy) and the specialist that serves each.

Pure data: no ORM, no I/O.
"""

from __future__ import annotations

from enum import StrEnum


class Intent(StrEnum):
    # queries: answered from the store (business specialist)
    ORDER_QUERY = "order_query"
    LOGISTICS_QUERY = "logistics_query"
    INVENTORY_CHECK = "inventory_check"
    PRICE_QUERY = "price_query"
    PARAMS_QUERY = "params_query"
    PRODUCT_COMPARE = "product_compare"
    PRODUCT_RECOMMEND = "product_recommend"
    # workflows: collect slots, confirm, write (workflow specialist)
    RETURN = "return"
    EXCHANGE = "exchange"
    REPAIR = "repair"
    INVOICE = "invoice"
    CANCEL_ORDER = "cancel_order"
    MODIFY_ORDER = "modify_order"
    # knowledge: answered from the knowledge base
    USAGE_TUTORIAL = "usage_tutorial"
    FAULT_DIAGNOSIS = "fault_diagnosis"
    POLICY_INQUIRY = "policy_inquiry"
    FAQ = "faq"
    # conversation
    EMOTION_SENSITIVE = "emotion_sensitive"
    COMPLAINT = "complaint"
    CHITCHAT = "chitchat"
    HUMAN_REQUEST = "human_request"
    OUT_OF_SCOPE = "out_of_scope"


QUERY_INTENTS = frozenset(
    {
        Intent.ORDER_QUERY,
        Intent.LOGISTICS_QUERY,
        Intent.INVENTORY_CHECK,
        Intent.PRICE_QUERY,
        Intent.PARAMS_QUERY,
        Intent.PRODUCT_COMPARE,
        Intent.PRODUCT_RECOMMEND,
    }
)
WORKFLOW_INTENTS = frozenset(
    {Intent.RETURN, Intent.EXCHANGE, Intent.REPAIR, Intent.INVOICE, Intent.CANCEL_ORDER, Intent.MODIFY_ORDER}
)
KNOWLEDGE_INTENTS = frozenset({Intent.USAGE_TUTORIAL, Intent.FAULT_DIAGNOSIS, Intent.POLICY_INQUIRY, Intent.FAQ})


class Specialist(StrEnum):
    """Who serves a subtask (seed 000's agent executors)."""

    BUSINESS_QUERY = "business_query"
    TICKET = "ticket"  # workflows that end in a ticket: return, exchange, repair, invoice, cancel, modify
    KNOWLEDGE_QA = "knowledge_qa"
    EMOTION = "emotion"
    COMPLAINT = "complaint"
    CHITCHAT = "chitchat"
    HUMAN = "human"


# Returns and refunds look up the order *and* start the ticket, in parallel (seed 000).
_DUAL = {Intent.RETURN, Intent.EXCHANGE}


def specialists_for(intent: Intent) -> list[Specialist]:
    """The specialists whose subtasks serve `intent`, in reply order."""
    if intent in _DUAL:
        return [Specialist.BUSINESS_QUERY, Specialist.TICKET]
    if intent in QUERY_INTENTS:
        return [Specialist.BUSINESS_QUERY]
    if intent in WORKFLOW_INTENTS:
        return [Specialist.TICKET]
    if intent in KNOWLEDGE_INTENTS:
        return [Specialist.KNOWLEDGE_QA]
    return {
        Intent.EMOTION_SENSITIVE: [Specialist.EMOTION],
        Intent.COMPLAINT: [Specialist.COMPLAINT],
        Intent.CHITCHAT: [Specialist.CHITCHAT],
        Intent.HUMAN_REQUEST: [Specialist.HUMAN],
        Intent.OUT_OF_SCOPE: [Specialist.KNOWLEDGE_QA],
    }[intent]
