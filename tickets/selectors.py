"""What the live console shows: the inbox (its views, counts, unread counts and search), one chat in full, the
customer beside it, and the colleagues a chat can go to."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser, User
from django.db.models import Count, Exists, F, OuterRef, Prefetch, Q, QuerySet, Subquery, Value
from django.db.models.functions import Coalesce

from conversations.models import Conversation, ConversationStatus, Customer, Message, Sender
from conversations.realtime import staff_display_name
from tickets.cards import CardView, card_view
from tickets.models import CannedResponse, EscalationCard, Ticket
from tickets.presence import staff_online_ids

STAFF_PERMISSION = "conversations.take_over_conversation"


def console_allowed(user: User | AnonymousUser) -> bool:
    return bool(user.is_active and user.is_staff and user.has_perm(STAFF_PERMISSION))


def _with_latest_card(conversations: QuerySet[Conversation]) -> QuerySet[Conversation]:
    return conversations.select_related("customer", "assigned_staff").prefetch_related(
        Prefetch("escalation_cards", queryset=EscalationCard.objects.order_by("-created_at"), to_attr="cards")
    )


def _latest_card(conversation: Conversation) -> CardView | None:
    cards = conversation.cards  # type: ignore[attr-defined]
    return card_view(cards[0]) if cards else None


# The inbox's views (Chatwoot's and Intercom's): chats waiting for a person, mine, open chats nobody owns
# (the bot's, and the waiting ones), every open chat, and closed chats.
INBOX_VIEWS = ("waiting", "mine", "unassigned", "all", "closed")
INBOX_LIMIT = 100


def _inbox_filter(view: str, staff: AbstractBaseUser) -> Q:
    return {
        "waiting": Q(status=ConversationStatus.WAITING_HUMAN),
        "mine": Q(status=ConversationStatus.HUMAN, assigned_staff_id=staff.pk),
        "unassigned": ~Q(status=ConversationStatus.CLOSED) & Q(assigned_staff__isnull=True),
        "all": ~Q(status=ConversationStatus.CLOSED),
        "closed": Q(status=ConversationStatus.CLOSED),
    }[view]


@dataclass(frozen=True)
class InboxList:
    view: str
    query: str
    counts: dict[str, int]  # view → conversations in it (all of them, not only those listed)
    items: Sequence[Conversation]  # annotated with `unread` and `last_text`


def inbox_list(*, staff: AbstractBaseUser, view: str, query: str = "") -> InboxList:
    """One view of the inbox, searched by customer (name, id, email, phone), order id or message text.

    Waiting and Mine put the longest-waiting chat first (the one a person should answer next); the
    other views the latest activity first. `unread`: the customer's messages since the last answer (the
    bot's, a person's or a system line)."""
    if view not in INBOX_VIEWS:
        view = "waiting"
    query = query.strip()[:100]
    counts = Conversation.objects.aggregate(
        **{name: Count("pk", filter=_inbox_filter(name, staff)) for name in INBOX_VIEWS}
    )
    conversations = Conversation.objects.filter(_inbox_filter(view, staff))
    if query:
        conversations = conversations.filter(_search(query))
    oldest_first = view in ("waiting", "mine")
    order = F("last_message_at").asc(nulls_last=True) if oldest_first else F("last_message_at").desc(nulls_last=True)
    last_answer = (
        Message.objects.filter(conversation=OuterRef(OuterRef("pk")), internal=False)
        .exclude(sender=Sender.CUSTOMER)
        .order_by("-pk")
        .values("pk")[:1]
    )
    unread = (
        Message.objects.filter(
            conversation=OuterRef("pk"), sender=Sender.CUSTOMER, pk__gt=Coalesce(Subquery(last_answer), Value(0))
        )
        .order_by()
        .values("conversation")
        .annotate(n=Count("pk"))
        .values("n")
    )
    last_text = Message.objects.filter(conversation=OuterRef("pk"), internal=False).order_by("-pk").values("text")[:1]
    items = list(
        conversations.select_related("customer", "verified_customer", "assigned_staff")
        .annotate(unread=Coalesce(Subquery(unread), Value(0)), last_text=Subquery(last_text))
        .order_by(order, "pk")[:INBOX_LIMIT]
    )
    return InboxList(view=view, query=query, counts=counts, items=items)


def _search(query: str) -> Q:
    words = query.lstrip("#")
    customer = (
        Q(customer__name__icontains=words)
        | Q(customer__external_id__icontains=words)
        | Q(customer__email__icontains=words)
        | Q(customer__phone__icontains=words)
        | Q(verified_customer__name__icontains=words)
        | Q(verified_customer__email__icontains=words)
    )
    said = Q(Exists(Message.objects.filter(conversation=OuterRef("pk"), internal=False, text__icontains=words)))
    number = Q(pk=int(words)) if words.isdigit() else Q(pk__in=[])
    return customer | said | number


@dataclass(frozen=True)
class CustomerHistory:
    customer: Customer  # the store customer the chat proved to be, else the chat's own visitor
    conversations: list[Conversation]  # their other conversations, latest first
    tickets: list[Ticket]


def customer_history(conversation: Conversation, *, limit: int = 10) -> CustomerHistory:
    customer = conversation.verified_customer or conversation.customer
    others = (
        Conversation.objects.filter(Q(customer=customer) | Q(verified_customer=customer))
        .exclude(pk=conversation.pk)
        .order_by("-created_at")[:limit]
    )
    tickets = Ticket.objects.filter(Q(customer=customer) | Q(conversation=conversation)).order_by("-created_at")
    return CustomerHistory(customer=customer, conversations=list(others), tickets=list(tickets[:limit]))


@dataclass(frozen=True)
class CannedChoice:
    title: str
    shortcut: str  # typed as /shortcut in the reply box
    text: str  # with this chat's variables filled in


@dataclass(frozen=True)
class ConsoleChat:
    conversation: Conversation
    card: CardView | None
    messages: list[Message]
    canned: list[CannedChoice]
    owner_name: str | None


@dataclass(frozen=True)
class Colleague:
    user: User
    name: str
    online: bool


def console_colleagues(*, staff: AbstractBaseUser) -> list[Colleague]:
    """The other staff who may take chats (by group, own permission or superuser), those online first."""
    app_label, codename = STAFF_PERMISSION.split(".")
    allowed = Q(is_superuser=True) | Q(
        user_permissions__codename=codename, user_permissions__content_type__app_label=app_label
    )
    allowed |= Q(groups__permissions__codename=codename, groups__permissions__content_type__app_label=app_label)
    users = User.objects.filter(allowed, is_active=True, is_staff=True).exclude(pk=staff.pk).distinct()
    online = staff_online_ids()
    colleagues = [Colleague(user, staff_display_name(user), user.pk in online) for user in users.order_by("pk")]
    return sorted(colleagues, key=lambda c: (not c.online, c.name.lower()))


def canned_text(text: str, *, agent: str, customer_name: str, order_id: str) -> str:
    """A canned response with its variables filled: {agent}, {customer_name}, {order_id}. A variable this
    chat has no value for stays as written, for the person to fill in before sending."""
    values = {"agent": agent, "customer_name": customer_name, "order_id": order_id}
    for name, value in values.items():
        if value:
            text = text.replace("{" + name + "}", value)
    return text


def console_chat(*, conversation_id: int, staff: AbstractBaseUser) -> ConsoleChat | None:
    conversation = _with_latest_card(Conversation.objects.filter(pk=conversation_id)).first()
    if conversation is None:
        return None
    messages = list(conversation.messages.select_related("author").order_by("created_at", "pk"))
    customer = conversation.verified_customer or conversation.customer
    card = _latest_card(conversation)
    values = {
        "agent": staff_display_name(staff),
        "customer_name": customer.display_name if customer.name or customer.first_name else "",
        "order_id": card.orders[-1].order_id if card and card.orders else "",
    }
    canned = [
        CannedChoice(response.title, response.shortcut, canned_text(response.text, **values))
        for response in CannedResponse.objects.filter(active=True, language=conversation.language)
    ]
    owner = staff_display_name(conversation.assigned_staff) if conversation.assigned_staff else None
    return ConsoleChat(
        conversation=conversation,
        card=card,
        messages=messages,
        canned=canned,
        owner_name=owner,
    )


def ticket_json(ticket: Any) -> dict[str, Any]:
    """A ticket as the API shows it."""
    return {
        "id": ticket.pk,
        "reference": ticket.reference,
        "kind": ticket.kind,
        "status": ticket.status,
        "priority": ticket.priority,
        "subject": ticket.subject,
        "customer": ticket.customer.external_id if ticket.customer_id else None,
        "conversation_id": ticket.conversation_id,
        "order_ref": ticket.order_ref or None,
        "payload": ticket.payload,
        "assignee": ticket.assignee.get_username() if ticket.assignee_id else None,
        "sla_due_at": ticket.sla_due_at.isoformat() if ticket.sla_due_at else None,
        "created_at": ticket.created_at.isoformat(),
        "updated_at": ticket.updated_at.isoformat(),
        "resolved_at": ticket.resolved_at.isoformat() if ticket.resolved_at else None,
    }
