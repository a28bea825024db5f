import logging
import sys

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views import defaults
from django.views.decorators.http import require_GET

from conversations.api_errors import error_body
from conversations.outage import RETRY_AFTER_S, service_outage
from cs_project.health import health_report

logger = logging.getLogger(__name__)

# Answered in the API's error shape; the widget's endpoint also needs CORS to be readable.
_JSON_PREFIXES = ("/api/", "/widget/", "/healthz")
_UNAVAILABLE_PAGE = """<!doctype html><html><head><meta charset="utf-8"><title>503</title></head><body>
<h1>服务暂时不可用 / Temporarily unavailable</h1>
<p>请稍后刷新页面。 / Please reload the page in a few seconds.</p></body></html>"""


_health_down_logged: list[str] = []


@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    """200 when every part answers, else 503 naming what is down. A 503 here is the report a monitor asked
    for (the worker still starting, say), not a failure of the request: it is logged once as a warning when
    what is down changes, instead of as an error on every poll."""
    report = health_report()
    response = JsonResponse(report, status=503 if report["down"] else 200)
    if report["down"] != _health_down_logged:
        if report["down"]:
            logger.warning("healthz: down: %s", ", ".join(report["down"]))
        elif _health_down_logged:
            logger.info("healthz: every part is up again")
        _health_down_logged[:] = report["down"]
    response._has_been_logged = True  # type: ignore[attr-defined]  # Django's own 5xx log skips it
    return response


def not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """An unknown URL under /api/ answers in the API's error shape; elsewhere, Django's page."""
    if request.path.startswith("/api/"):
        return JsonResponse({"error": {"code": "not_found", "message": "No such endpoint."}}, status=404)
    return defaults.page_not_found(request, exception)  # type: ignore[arg-type]


def bad_request(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """A request Django refuses before any view (a Host header that is no host name, a suspicious operation)
    answers under /api/ in the API's error shape; elsewhere, Django's page."""
    if request.path.startswith("/api/"):
        return JsonResponse({"error": {"code": "bad_request", "message": "The request could not be read."}}, status=400)
    return defaults.bad_request(request, exception)  # type: ignore[arg-type]


def server_error(request: HttpRequest) -> HttpResponse:
    """Django's 500 handler, also reached when middleware fails. An outage of Postgres or Redis is
    not an error of ours: it is a 503 with Retry-After, which clients retry."""
    if service_outage(sys.exc_info()[1]):
        return service_unavailable(request)
    if request.path.startswith("/api/"):
        error = {"code": "server_error", "message": "Something went wrong on our side; it has been logged."}
        return JsonResponse({"error": error}, status=500)
    return defaults.server_error(request)


def service_unavailable(request: HttpRequest) -> HttpResponse:
    headers = {"Retry-After": str(RETRY_AFTER_S)}
    if request.path.startswith(_JSON_PREFIXES):
        if request.path.startswith("/widget/"):
            headers["Access-Control-Allow-Origin"] = "*"
        body = error_body(
            "service_unavailable", f"A service we depend on is briefly unavailable; retry in {RETRY_AFTER_S} seconds."
        )
        return JsonResponse(body, status=503, headers=headers)
    return HttpResponse(_UNAVAILABLE_PAGE, status=503, headers=headers)
