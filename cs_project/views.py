from django.http import HttpRequest, JsonResponse
from django.views.decorators.http import require_GET

from cs_project.health import health_report


@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    report = health_report()
    return JsonResponse(report, status=503 if report["down"] else 200)
