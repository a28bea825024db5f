"""Refuse an oversized body before anything reads it, in the error shape of the API it was sent to; and
django-axes' lockout page served in the middleware chain's own thread."""

from __future__ import annotations

from collections.abc import Callable

from axes.middleware import AxesMiddleware
from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse

from conversations.api_errors import error_body

_UPLOAD_OVERHEAD = 1024 * 1024  # multipart boundaries and fields around the file
_WIDGET_MAX_BODY_BYTES = 64 * 1024  # the session endpoint reads a few hundred bytes


def body_limit(path: str) -> int | None:
    """The largest body this path takes; None where Django's own limits apply (pages, the admin)."""
    if path.startswith("/api/v1/kb/documents"):
        return settings.KNOWLEDGE_MAX_FILE_BYTES + _UPLOAD_OVERHEAD
    if path.startswith("/api/"):
        return settings.API_MAX_BODY_BYTES
    if path.startswith("/widget/"):
        return _WIDGET_MAX_BODY_BYTES
    return None


class BodySizeLimitMiddleware:
    """A body announced larger than its path's limit gets 413 with the error shape, not Django's
    HTML 400 after reading it. A body without Content-Length is measured by the JSON parser."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        limit = body_limit(request.path)
        if limit is not None:
            try:
                length = int(request.META.get("CONTENT_LENGTH") or 0)
            except ValueError:
                length = 0
            if length > limit:
                headers = {"Access-Control-Allow-Origin": "*"} if request.path.startswith("/widget/") else {}
                body = error_body("too_large", f"The body is over {limit} bytes.")
                return JsonResponse(body, status=413, headers=headers)
        return self.get_response(request)


class LockoutMiddleware(AxesMiddleware):
    """django-axes' middleware (a locked-out login answered with its lockout page), sync only like the
    middlewares above it. Axes can run async, and did, last in a chain whose others run in a thread: so
    every request went from that thread back to the event loop for it, and to a thread again for the view.
    Sync, the whole chain and the view run in one thread, entered once per request."""

    async_capable = False
