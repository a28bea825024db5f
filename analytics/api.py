"""GET /api/v1/analytics: the figures of a period (docs/analytics.md), for the store's own dashboards."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from analytics.report import PeriodError, analytics_report, period_parse
from conversations.api_errors import error_response


class AnalyticsApi(APIView):
    required_scope = "admin"

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "from", OpenApiTypes.DATE, description="First day (YYYY-MM-DD); 30 days before `to` if left out."
            ),
            OpenApiParameter(
                "to", OpenApiTypes.DATE, description="Last day, included (YYYY-MM-DD); today if left out."
            ),
        ],
        responses=OpenApiTypes.OBJECT,
        summary="Resolution, containment, escalations, CSAT, intents, latency, cache hits and knowledge misses",
    )
    def get(self, request: Request) -> Response:
        try:
            period = period_parse(request.query_params.get("from"), request.query_params.get("to"))
        except PeriodError as error:
            return error_response("invalid", str(error), field=error.field)
        return Response(analytics_report(period))
