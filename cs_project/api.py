"""The REST API's one error shape: {"error": {"code", "message", "field"?}}."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.http import Http404
from rest_framework import exceptions
from rest_framework.parsers import JSONParser
from rest_framework.response import Response
from rest_framework.views import exception_handler

from conversations.json_input import JsonInputError, json_input_read


class BodyTooLarge(exceptions.APIException):
    status_code = 413
    default_code = "too_large"


class LimitedJSONParser(JSONParser):
    """JSON bodies read through conversations.json_input (nesting, NULs, lone surrogates) and
    refused over API_MAX_BODY_BYTES, also when no Content-Length announced the size."""

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        limit = settings.API_MAX_BODY_BYTES
        raw = stream.read(limit + 1) if stream is not None else b""
        if len(raw) > limit:
            raise BodyTooLarge(f"The body is over {limit} bytes.")
        try:
            return json_input_read(raw)
        except JsonInputError as exc:
            # Malformed JSON keeps DRF's code, which integrators already handle.
            code = "parse_error" if exc.code == "invalid_json" else exc.code
            raise exceptions.ParseError(exc.message, code=code) from None


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


ERROR_SCHEMA = {
    "type": "object",
    "properties": {
        "error": {
            "type": "object",
            "properties": {
                "code": {"type": "string", "description": "invalid, not_found, permission_denied, throttled, …"},
                "message": {"type": "string"},
                "field": {"type": "string", "description": "The input the error is about, when there is one."},
            },
            "required": ["code", "message"],
        }
    },
    "required": ["error"],
}


def error_responses_everywhere(result: dict[str, Any], generator: Any, **kwargs: Any) -> dict[str, Any]:
    """drf-spectacular postprocessing hook: every operation may answer 4xx with the error shape
    (bad input, authentication, scopes, unknown ids, wrong method or media type, throttling)."""
    result.setdefault("components", {}).setdefault("schemas", {})["Error"] = ERROR_SCHEMA
    error = {
        "description": "The error shape",
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
    }
    for operations in result.get("paths", {}).values():
        for operation in operations.values():
            operation.setdefault("responses", {}).setdefault("4XX", error)
    return result
