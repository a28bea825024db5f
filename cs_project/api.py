"""The REST API's one error shape: {"error": {"code", "message", "field"?}}."""

from __future__ import annotations

from typing import Any

from django.http import Http404
from rest_framework import exceptions
from rest_framework.response import Response
from rest_framework.views import exception_handler


def _first_field_error(detail: Any) -> tuple[str | None, str]:
    if isinstance(detail, dict):
        for field, value in detail.items():
            _, message = _first_field_error(value)
            return (None if field == "non_field_errors" else str(field)), message
    if isinstance(detail, list) and detail:
        return _first_field_error(detail[0])
    return None, str(detail)


def api_exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, Http404):
        exc = exceptions.NotFound()
    response = exception_handler(exc, context)
    if response is None:
        return None
    error: dict[str, Any]
    if isinstance(exc, exceptions.ValidationError):
        field, message = _first_field_error(exc.detail)
        error = {"code": "invalid", "message": message}
        if field:
            error["field"] = field
    elif isinstance(exc, exceptions.APIException):
        codes = exc.get_codes()
        error = {"code": codes if isinstance(codes, str) else "error", "message": str(exc.detail)}
    else:  # pragma: no cover - DRF only handles APIException subclasses
        error = {"code": "error", "message": str(exc)}
    response.data = {"error": error}
    return response
