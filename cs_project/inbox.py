"""The staff inbox at /admin/console/ (Chatwoot's and Intercom's split view): the list of chats on the
left, the open chat in the middle, the customer beside it with their orders, past chats and tickets, and
a search of every knowledge base, internal ones included (the chat quotes only the public ones).

Composed here, above the apps, because one screen shows the console's chats (tickets), the customer's
orders (from the store's system, stores.selectors) and their conversations. Pages are server-rendered, so they
work before the socket connects; `static/console/console.js` keeps them live over `ws/staff` and posts the actions of
tickets.console.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib import admin
from django.http import Http404, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET

from conversations.models import Customer, ResolutionReason
from knowledge.selectors import chunk_search_hybrid
from stores.selectors import StaffOrders, orders_for_staff
from tickets.console import StaffRequest, console_strings
from tickets.selectors import (
    INBOX_VIEWS,
    Colleague,
    console_chat,
    console_colleagues,
    customer_history,
    inbox_list,
)

VIEW_LABELS = {
    "waiting": gettext_lazy("Waiting"),
    "mine": gettext_lazy("Mine"),
    "unassigned": gettext_lazy("Unassigned"),
    "all": gettext_lazy("All open"),
    "closed": gettext_lazy("Closed"),
}


def _list_context(request: StaffRequest, open_id: int | None, colleagues: list[Colleague]) -> dict[str, object]:
    inbox = inbox_list(staff=request.user, view=request.GET.get("view", ""), query=request.GET.get("q", ""))
    tabs = [(name, VIEW_LABELS[name], inbox.counts[name]) for name in INBOX_VIEWS]
    online = [colleague.name for colleague in colleagues if colleague.online]
    return {"inbox": inbox, "tabs": tabs, "open_id": open_id, "colleagues_online": online}


STAFF_KNOWLEDGE_RESULTS = 5


def _knowledge_context(request: StaffRequest) -> dict[str, object]:
    query = request.GET.get("kq", "").strip()[:500]
    results = chunk_search_hybrid(query=query, k=STAFF_KNOWLEDGE_RESULTS)[0] if query else []
    return {"knowledge_query": query, "knowledge": results}


def _orders(verified_customer_id: int | None, customer: Customer) -> StaffOrders:
    """Only a customer who proved who they are, or whom the site signed in, has their store orders shown."""
    if verified_customer_id is None and not customer.verified:
        return StaffOrders()
    return orders_for_staff(customer.external_id)


@require_GET
def inbox_page(request: StaffRequest, conversation_id: int | None = None) -> HttpResponse:
    colleagues = console_colleagues(staff=request.user)  # the list's "also online" and the transfer menu
    context: dict[str, object] = {
        **admin.site.each_context(request),
        "title": _("Live console"),
        "strings": console_strings(),
        **_list_context(request, conversation_id, colleagues),
        **_knowledge_context(request),
    }
    if conversation_id is not None:
        chat = console_chat(conversation_id=conversation_id, staff=request.user)
        if chat is None:
            raise Http404("no such conversation")
        history = customer_history(chat.conversation)
        context.update(
            {
                "title": _("Conversation %(id)s") % {"id": conversation_id},
                "chat": chat,
                "reasons": ResolutionReason.choices,
                "mine": chat.conversation.assigned_staff_id == request.user.pk,
                "history": history,
                "colleagues": colleagues,
                "orders": _orders(chat.conversation.verified_customer_id, history.customer),
                "orders_in_admin": settings.STORE_BACKEND == "builtin",
            }
        )
    return render(request, "admin/console/inbox.html", context)


@require_GET
def inbox_list_fragment(request: StaffRequest) -> HttpResponse:
    open_id = request.GET.get("open", "")
    context = _list_context(
        request, int(open_id) if open_id.isdigit() else None, console_colleagues(staff=request.user)
    )
    return render(request, "admin/console/_inbox_list.html", context)
