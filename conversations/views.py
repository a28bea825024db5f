"""The widget's one HTTP endpoint: POST /widget/session (ARCHITECTURE §8)."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.csrf import csrf_exempt

from conversations.api_errors import error_body
from conversations.client_address import client_address
from conversations.json_input import JsonInputError, json_input_read
from conversations.widget import WidgetSessionError, widget_session_open

# The widget runs on the store's own domain, so the session endpoint answers any origin; it sets no
# cookie and reads none (the token travels in the body), so there is no ambient credential to abuse.
_CORS = {
    "Access-Control-Allow-Origin": "*",
    "Access-Control-Allow-Methods": "POST, OPTIONS",
    "Access-Control-Allow-Headers": "Content-Type",
    "Access-Control-Max-Age": "86400",
}
_MAX_BODY_BYTES = 8 * 1024


def _error(code: str, message: str, field: str = "", status: int = 400) -> JsonResponse:
    return JsonResponse(error_body(code, message, field), status=status, headers=_CORS)


def _params(request: HttpRequest) -> dict[str, Any]:
    raw = request.read(_MAX_BODY_BYTES + 1)
    if len(raw) > _MAX_BODY_BYTES:
        raise WidgetSessionError("too_large", f"the body is over {_MAX_BODY_BYTES} bytes", status=413)
    try:
        data = json_input_read(raw or b"{}")
    except JsonInputError as exc:
        raise WidgetSessionError(exc.code, exc.message) from None
    if not isinstance(data, dict):
        raise WidgetSessionError("invalid", "the body must be a JSON object")
    if "identity" in data:
        # The unsigned name and email of the old form could claim anyone's address.
        raise WidgetSessionError(
            "invalid", "identity is replaced by identity_token, a JWT that signs the whole identity", "identity"
        )
    for field in ("site_key", "locale", "token", "identity_token"):
        if not isinstance(data.get(field) or "", str):
            raise WidgetSessionError("invalid", f"{field} must be a string", field)
    conversation_id = data.get("conversation_id")
    if conversation_id is not None and (type(conversation_id) is not int or conversation_id < 1):
        raise WidgetSessionError("invalid", "conversation_id must be a positive integer", "conversation_id")
    return data


@csrf_exempt
def widget_session(request: HttpRequest) -> HttpResponse:
    """Open or resume the widget's conversation → {conversation_id, token, ws_url, status, locale}."""
    if request.method == "OPTIONS":
        return HttpResponse(status=204, headers=_CORS)
    if request.method != "POST":
        return _error("method_not_allowed", "use POST", status=405)
    try:
        data = _params(request)
        session = widget_session_open(
            site_key=data.get("site_key") or "",
            locale=data.get("locale") or request.headers.get("Accept-Language", ""),
            identity_token=data.get("identity_token") or "",
            conversation_id=data.get("conversation_id"),
            token=data.get("token") or "",
            client_address=client_address(request),
        )
    except WidgetSessionError as exc:
        response = _error(exc.code, exc.message, exc.field, status=exc.status)
        if exc.retry_after_s:
            response["Retry-After"] = str(exc.retry_after_s)
        return response
    conversation = session.conversation
    scheme = "wss" if request.is_secure() else "ws"
    return JsonResponse(
        {
            "conversation_id": conversation.pk,
            "token": session.token,
            "ws_url": f"{scheme}://{request.get_host()}/ws/widget?token={session.token}",
            "status": conversation.status,
            "locale": conversation.language,
            "customer": {"name": conversation.customer.name or None, "verified": conversation.customer.verified},
        },
        headers=_CORS,
    )
