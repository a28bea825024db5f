"""The live console's actions on one chat: take over, send (a reply or an internal note), hand back,
resolve; and the guard every console page shares.

The inbox page itself (the list, the open chat, the customer beside it) is composed above the apps, in
cs_project.inbox. `static/console/console.js` posts these actions, which answer JSON to it and redirect a
plain form post back to the chat. Every action is one service call; only staff holding
`conversations.take_over_conversation` see or use any of it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib import admin, messages
from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect
from django.urls import path, reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from conversations.api_errors import error_body
from conversations.models import Conversation
from conversations.services import (
    ConversationStateError,
    ConversationTaken,
    conversation_hand_back,
    conversation_resolve,
    staff_message_send,
)
from tickets.selectors import console_allowed
from tickets.services import escalation_take_over, escalation_transfer


class StaffRequest(HttpRequest):
    """A request that passed the console's guard: its user is a signed-in staff account."""

    user: User


def console_view(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """The admin's login and staff check, then the console permission."""

    def guarded(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if not console_allowed(request.user):
            raise PermissionDenied
        return view(request, *args, **kwargs)

    return admin.site.admin_view(guarded)


def _wants_json(request: HttpRequest) -> bool:
    return "application/json" in request.headers.get("Accept", "")


def console_strings() -> dict[str, str]:
    """What console.js says, in the staff member's language."""
    return {
        "connecting": _("Connecting…"),
        "live": _("Live"),
        "reconnecting": _("Reconnecting…"),
        "forbidden": _("Not allowed"),
        "customer_typing": _("The customer is typing…"),
        "bot_answering": _("The assistant is answering…"),
        "failed": _("The action failed."),
        "unreachable": _("The server could not be reached; try again."),
        "note": _("Note"),
        "new_waiting": _("A customer is waiting for a person"),
        "notify_blocked": _("The browser does not allow notifications for this site."),
    }


def _action(request: StaffRequest, conversation_id: int, act: Callable[[], Any], done: str) -> HttpResponse:
    try:
        act()
    except ConversationTaken as exc:
        return _refused(request, conversation_id, "taken", str(exc), status=409)
    except ConversationStateError as exc:
        return _refused(request, conversation_id, "not_allowed", str(exc), status=409)
    except Conversation.DoesNotExist:
        raise Http404(_("No such conversation.")) from None
    if _wants_json(request):
        return JsonResponse({"ok": True, "message": done})
    messages.success(request, done)
    return redirect(reverse("console-chat", args=[conversation_id]))


def _refused(request: StaffRequest, conversation_id: int, code: str, message: str, *, status: int) -> HttpResponse:
    if _wants_json(request):
        return JsonResponse(error_body(code, message), status=status)
    messages.error(request, message)
    return redirect(reverse("console-chat", args=[conversation_id]))


@require_POST
def take_over(request: StaffRequest, conversation_id: int) -> HttpResponse:
    return _action(
        request,
        conversation_id,
        lambda: escalation_take_over(conversation_id=conversation_id, staff=request.user),
        _("You have taken this conversation over; the assistant is silent until you hand it back."),
    )


@require_POST
def send(request: StaffRequest, conversation_id: int) -> HttpResponse:
    internal = request.POST.get("internal") in ("1", "on", "true")
    return _action(
        request,
        conversation_id,
        lambda: staff_message_send(
            conversation_id=conversation_id, staff=request.user, text=request.POST.get("text", ""), internal=internal
        ),
        _("Note saved.") if internal else _("Sent."),
    )


@require_POST
def transfer(request: StaffRequest, conversation_id: int) -> HttpResponse:
    to = request.POST.get("to", "")
    return _action(
        request,
        conversation_id,
        lambda: escalation_transfer(
            conversation_id=conversation_id, staff=request.user, to_id=int(to) if to.isdigit() else 0
        ),
        _("Transferred."),
    )


@require_POST
def hand_back(request: StaffRequest, conversation_id: int) -> HttpResponse:
    return _action(
        request,
        conversation_id,
        lambda: conversation_hand_back(conversation_id=conversation_id, staff=request.user),
        _("Handed back to the assistant."),
    )


@require_POST
def resolve(request: StaffRequest, conversation_id: int) -> HttpResponse:
    return _action(
        request,
        conversation_id,
        lambda: conversation_resolve(
            conversation_id=conversation_id,
            staff=request.user,
            reason=request.POST.get("reason", ""),
            note=request.POST.get("note", ""),
        ),
        _("Conversation resolved."),
    )


urlpatterns = [
    path("<int:conversation_id>/take-over", console_view(take_over), name="console-take-over"),
    path("<int:conversation_id>/send", console_view(send), name="console-send"),
    path("<int:conversation_id>/transfer", console_view(transfer), name="console-transfer"),
    path("<int:conversation_id>/hand-back", console_view(hand_back), name="console-hand-back"),
    path("<int:conversation_id>/resolve", console_view(resolve), name="console-resolve"),
]
