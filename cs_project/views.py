from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views import defaults
from django.views.decorators.http import require_GET

from cs_project.health import health_report


@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    report = health_report()
    return JsonResponse(report, status=503 if report["down"] else 200)


def not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """An unknown URL under /api/ answers in the API's error shape; elsewhere, Django's page."""
    if request.path.startswith("/api/"):
        return JsonResponse({"error": {"code": "not_found", "message": "No such endpoint."}}, status=404)
    return defaults.page_not_found(request, exception)  # type: ignore[arg-type]


def server_error(request: HttpRequest) -> HttpResponse:
    if request.path.startswith("/api/"):
        error = {"code": "server_error", "message": "Something went wrong on our side; it has been logged."}
        return JsonResponse({"error": error}, status=500)
    return defaults.server_error(request)
