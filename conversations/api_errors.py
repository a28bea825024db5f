"""The API's error shape, `{"error": {"code", "message", "field"?}}`, for errors a view finds itself
(cs_project.api shapes the ones DRF raises). Here, at the bottom layer, so every app's views share it."""

from __future__ import annotations

from typing import Any

from rest_framework.response import Response


def error_body(code: str, message: str, field: str = "") -> dict[str, Any]:
    return {"error": {"code": code, "message": message, **({"field": field} if field else {})}}


def error_response(code: str, message: str, *, field: str = "", status: int = 400) -> Response:
    return Response(error_body(code, message, field), status=status)
