"""REST endpoints of the engine: /api/v1/nlu/parse and conversations with their messages and turns."""

from __future__ import annotations

from typing import Any

from asgiref.sync import async_to_sync
from django.conf import settings
from django.http import Http404, StreamingHttpResponse
from django.http.response import HttpResponseBase
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.pagination import CursorPagination
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from agents.intents.catalogue import catalogue_get
from agents.intents.recognize import recognize
from agents.models import TurnRun
from agents.selectors import turn_json
from agents.services import MessageRejected, conversation_start_for_integrator, customer_message_handle
from agents.states import TERMINAL
from agents.streaming import sse, turn_events
from agents.turn_wait import turn_wait
from conversations.api_errors import error_response
from conversations.api_keys import ApiKeyRateThrottle, CustomerMessageThrottle
from conversations.models import Conversation, Message, ResolutionReason
from conversations.realtime import ConversationListener, message_payload
from conversations.selectors import conversation_customer_id, conversation_json
from conversations.services import RATING_COMMENT_MAX_CHARS, ConversationStateError, conversation_resolve

# --- what the endpoints answer (the OpenAPI schema; the bodies come from the selectors) -------


class ConversationSerializer(serializers.Serializer):
    class CustomerRefSerializer(serializers.Serializer):
        external_id = serializers.CharField()
        verified = serializers.BooleanField()

    id = serializers.IntegerField()
    status = serializers.CharField(help_text="bot, waiting_human, human or closed")
    channel = serializers.CharField()
    language = serializers.CharField()
    customer = CustomerRefSerializer()
    created_at = serializers.DateTimeField()
    closed_at = serializers.DateTimeField(allow_null=True)
    resolution = serializers.CharField(allow_null=True)


class SourceSerializer(serializers.Serializer):
    title = serializers.CharField()
    url = serializers.CharField(required=False)
    chunk_id = serializers.IntegerField(required=False)


class AwaitingSerializer(serializers.Serializer):
    slot = serializers.CharField()
    prompt = serializers.CharField()
    choices = serializers.ListField(child=serializers.CharField())


class ReplySerializer(serializers.Serializer):
    text = serializers.CharField()
    sources = SourceSerializer(many=True)
    awaiting = AwaitingSerializer(allow_null=True)
    quick_replies = serializers.ListField(child=serializers.CharField())


class TurnIntentSerializer(serializers.Serializer):
    name = serializers.CharField()
    confidence = serializers.FloatField()


class EscalationSerializer(serializers.Serializer):
    reason = serializers.CharField()
    card_id = serializers.IntegerField()


class TurnSerializer(serializers.Serializer):
    turn_id = serializers.IntegerField()
    reply = ReplySerializer()
    status = serializers.CharField(help_text="The conversation's status after the turn.")
    turn_status = serializers.CharField(help_text="done, escalated, skipped (a person has the chat) or failed")
    intents = TurnIntentSerializer(many=True)
    escalation = EscalationSerializer(allow_null=True)


class TurnPendingSerializer(serializers.Serializer):
    turn_id = serializers.IntegerField(help_text="Poll GET …/turns/{turn_id} for the reply.")


class MessageSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    conversation_id = serializers.IntegerField()
    sender = serializers.CharField(help_text="customer, bot, agent or system")
    author_name = serializers.CharField(allow_null=True)
    client_id = serializers.CharField(allow_blank=True)
    text = serializers.CharField(allow_blank=True)
    sources = SourceSerializer(many=True)
    metadata = serializers.DictField()
    internal = serializers.BooleanField()
    created_at = serializers.DateTimeField(allow_null=True)


class NluIntentSerializer(serializers.Serializer):
    name = serializers.CharField()
    confidence = serializers.FloatField()
    text = serializers.CharField(help_text="The part of the text this intent was read in.")


class NluParseApi(APIView):
    required_scope = "chat"

    class NluParseInputSerializer(serializers.Serializer):
        text = serializers.CharField(trim_whitespace=True, allow_blank=False)
        locale = serializers.ChoiceField(choices=["zh", "en"], required=False)

        def validate_text(self, value: str) -> str:
            if len(value) > settings.MAX_MESSAGE_CHARS:
                raise serializers.ValidationError(
                    f"Ensure this field has no more than {settings.MAX_MESSAGE_CHARS} characters."
                )
            return value

    class NluParseOutputSerializer(serializers.Serializer):
        intents = NluIntentSerializer(many=True)
        entities = serializers.DictField()
        emotion_score = serializers.FloatField()
        level = serializers.CharField()
        flags = serializers.ListField(child=serializers.CharField())

    @extend_schema(
        request=NluParseInputSerializer,
        responses=NluParseOutputSerializer,
        summary="Intents, entities and emotion of a text",
    )
    def post(self, request: Request) -> Response:
        data = self.NluParseInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        recognition = recognize(data.validated_data["text"], catalogue=catalogue_get())
        return Response(
            {
                "intents": recognition.as_json(),
                "entities": recognition.entities,
                "emotion_score": round(recognition.emotion_score, 3),
                "level": recognition.level,
                "flags": recognition.flags,
            }
        )


# --- conversations -----------------------------------------------------------------------------


class ConversationCreateApi(APIView):
    required_scope = "chat"

    class CustomerInputSerializer(serializers.Serializer):
        external_id = serializers.CharField(max_length=128)
        name = serializers.CharField(max_length=200, required=False, allow_blank=True)
        email = serializers.EmailField(required=False, allow_blank=True)
        phone = serializers.CharField(max_length=32, required=False, allow_blank=True)
        verified = serializers.BooleanField(required=False, default=False)

    class ConversationCreateSerializer(serializers.Serializer):
        customer = serializers.DictField()
        locale = serializers.ChoiceField(choices=["zh", "en"], required=False, default="en")
        channel = serializers.ChoiceField(choices=["api", "widget", "terminal"], required=False, default="api")

        def validate_customer(self, value: dict[str, Any]) -> dict[str, Any]:
            nested = ConversationCreateApi.CustomerInputSerializer(data=value)
            if not nested.is_valid():
                field, errors = next(iter(nested.errors.items()))
                raise serializers.ValidationError({field: errors})
            return dict(nested.validated_data)

    @extend_schema(
        request=ConversationCreateSerializer,
        responses={201: ConversationSerializer},
        summary="Start a conversation for a customer",
    )
    def post(self, request: Request) -> Response:
        data = self.ConversationCreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        conversation = conversation_start_for_integrator(
            customer=data.validated_data["customer"],
            language=data.validated_data["locale"],
            channel=data.validated_data["channel"],
        )
        return Response(conversation_json(conversation), status=201)


STREAM_ON = ("1", "true", "yes")


def sources_absolute(request: Request, payload: dict[str, Any]) -> dict[str, Any]:
    """`payload` (a turn, a message, a stream event) with its citations' links as full URLs on this server: an
    integrator's client is on another host, where "/kb/sources/12" means nothing."""

    def absolute(sources: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [
            {**source, "url": request.build_absolute_uri(source["url"])}
            if str(source.get("url") or "").startswith("/")
            else source
            for source in sources
        ]

    payload = {**payload, "sources": absolute(payload["sources"])} if payload.get("sources") else payload
    for key in ("reply", "message"):
        if isinstance(payload.get(key), dict):
            payload = {**payload, key: sources_absolute(request, payload[key])}
    return payload


class EventStreamRenderer(BaseRenderer):
    """`Accept: text/event-stream` (what EventSource and most SSE clients send) asks for the stream.
    The stream itself is a StreamingHttpResponse, and errors are JSON (MessageCreateApi), so this
    renders only what a view might return besides: one event."""

    media_type = "text/event-stream"
    format = "sse"
    charset = None

    def render(self, data: Any, accepted_media_type: str | None = None, renderer_context: Any = None) -> bytes:
        return b"" if data is None else sse("message", data)


class _NoFormatOverride:
    URL_FORMAT_OVERRIDE = None


class AcceptHeaderNegotiation(DefaultContentNegotiation):
    """The Accept header alone picks JSON or the event stream; `?format=` does not."""

    settings = _NoFormatOverride()


class MessageCreateApi(APIView):
    required_scope = "chat"
    throttle_classes = [ApiKeyRateThrottle, CustomerMessageThrottle]
    renderer_classes = [JSONRenderer, EventStreamRenderer]
    content_negotiation_class = AcceptHeaderNegotiation

    def finalize_response(self, request: Request, response: Any, *args: Any, **kwargs: Any) -> Any:
        # An error is an ordinary JSON error, also for a client that asked for the stream.
        if isinstance(response, Response) and response.status_code >= 400:
            request.accepted_renderer, request.accepted_media_type = JSONRenderer(), JSONRenderer.media_type
        return super().finalize_response(request, response, *args, **kwargs)

    class MessageInputSerializer(serializers.Serializer):
        text = serializers.CharField(trim_whitespace=False, allow_blank=True, max_length=20000)
        client_id = serializers.CharField(max_length=64, required=False, allow_blank=True, default="")

    @staticmethod
    def _handle(conversation_id: int, text: str, key: str) -> TurnRun | Response:
        """The turn of this message, or the error response if the message is refused."""
        try:
            turn = customer_message_handle(conversation_id=conversation_id, text=text, client_id=key)
        except MessageRejected as rejected:
            return error_response(rejected.code, rejected.reply, field="text")
        if key and turn.message.text != text.strip():
            return error_response(
                "idempotency_mismatch",
                "This Idempotency-Key was used for a different message.",
                field="Idempotency-Key",
                status=422,
            )
        return turn

    @extend_schema(
        request=MessageInputSerializer,
        parameters=[
            OpenApiParameter(
                "Idempotency-Key",
                str,
                OpenApiParameter.HEADER,
                description="Up to 64 characters; a retried POST with the same key returns the first result.",
            ),
            OpenApiParameter("format", exclude=True),
            OpenApiParameter(
                "stream",
                str,
                enum=["1"],
                description="1: answer with text/event-stream of the turn's events (accepted, message.created, "
                "reply.delta…, reply.done, turn; or pending at the timeout).",
            ),
        ],
        responses={
            (200, "application/json"): TurnSerializer,
            (200, "text/event-stream"): OpenApiTypes.STR,
            (202, "application/json"): TurnPendingSerializer,
        },
        summary="Send a customer message; the reply comes back when ready",
    )
    def post(self, request: Request, conversation_id: int) -> HttpResponseBase:
        data = self.MessageInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        if conversation_customer_id(conversation_id) is None:
            raise Http404
        # The key travels as the message's client_id: the engine returns the first turn for a seen one,
        # under the conversation's row lock, so concurrent retries make one turn.
        key = request.headers.get("Idempotency-Key", "").strip() or data.validated_data["client_id"]
        if len(key) > 64:
            return error_response("invalid", "Idempotency-Key is at most 64 characters.", field="Idempotency-Key")
        text = data.validated_data["text"]
        streamed = request.query_params.get("stream") in STREAM_ON or isinstance(
            request.accepted_renderer, EventStreamRenderer
        )
        listener = ConversationListener(conversation_id) if streamed else None
        if listener is not None:
            listener.join()  # before the message is handled: not one event of its turn is missed
        outcome: TurnRun | Response | None = None
        try:
            outcome = self._handle(conversation_id, text, key)
        finally:
            if listener is not None and not isinstance(outcome, TurnRun):
                async_to_sync(listener.leave)()
        if isinstance(outcome, Response):
            return outcome
        turn = outcome
        if listener is not None:
            events = turn_events(
                listener,
                turn_id=turn.pk,
                ended=turn.status in TERMINAL,
                timeout=settings.API_STREAM_TIMEOUT_S,
                absolute=lambda payload: sources_absolute(request, payload),
            )
            response = StreamingHttpResponse(events, content_type="text/event-stream")
            response["Cache-Control"] = "no-cache"
            response["X-Accel-Buffering"] = "no"  # nginx: pass each event on as it comes
            return response
        finished = turn_wait(turn=turn, timeout=settings.API_REPLY_TIMEOUT_S)
        if finished is None:
            return Response({"turn_id": turn.pk}, status=202)
        return Response(sources_absolute(request, turn_json(finished)))


class ConversationDetailApi(APIView):
    required_scope = "chat"

    @extend_schema(responses=ConversationSerializer, summary="A conversation: its status, customer and outcome")
    def get(self, request: Request, conversation_id: int) -> Response:
        conversation = get_object_or_404(Conversation.objects.select_related("customer"), pk=conversation_id)
        return Response(conversation_json(conversation))


class ConversationCloseApi(APIView):
    """The store's backend closes a chat (sorted out elsewhere, say), with the customer's rating if it asked
    for one itself; writing again reopens it."""

    required_scope = "chat"

    class ConversationCloseSerializer(serializers.Serializer):
        reason = serializers.ChoiceField(choices=ResolutionReason.choices, required=False, default="other")
        note = serializers.CharField(max_length=500, required=False, allow_blank=True, default="")
        rating = serializers.IntegerField(
            min_value=1, max_value=5, required=False, allow_null=True, default=None, help_text="CSAT, 1-5."
        )
        comment = serializers.CharField(
            max_length=RATING_COMMENT_MAX_CHARS, required=False, allow_blank=True, default=""
        )

    @extend_schema(
        request=ConversationCloseSerializer,
        responses=ConversationSerializer,
        summary="Close a conversation with a resolution reason",
    )
    def post(self, request: Request, conversation_id: int) -> Response:
        data = self.ConversationCloseSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        get_object_or_404(Conversation, pk=conversation_id)
        try:
            conversation = conversation_resolve(conversation_id=conversation_id, **data.validated_data)
        except ConversationStateError as exc:
            return error_response("conflict", str(exc), status=409)
        return Response(conversation_json(conversation))


class TurnDetailApi(APIView):
    required_scope = "chat"

    @extend_schema(
        responses={200: TurnSerializer, 202: TurnPendingSerializer},
        summary="A turn's reply (202 while it is still running)",
    )
    def get(self, request: Request, conversation_id: int, turn_id: int) -> Response:
        turn = get_object_or_404(TurnRun, pk=turn_id, conversation_id=conversation_id)
        if turn.status not in TERMINAL:
            return Response({"turn_id": turn.pk}, status=202)
        return Response(sources_absolute(request, turn_json(turn)))


class TranscriptPagination(CursorPagination):
    """By message id, oldest first: a cursor stays valid and skips nothing while messages arrive
    (a page number would shift). `count` is the total at the time of the call."""

    ordering = ("id",)
    page_size = 50
    max_page_size = 200
    page_size_query_param = "page_size"

    def paginate_queryset(self, queryset: Any, request: Request, view: Any = None) -> Any:
        self.count = queryset.count()
        return super().paginate_queryset(queryset, request, view)

    def get_paginated_response(self, data: Any) -> Response:
        response = super().get_paginated_response(data)
        response.data = {"count": self.count, **response.data}
        return response

    def get_paginated_response_schema(self, schema: dict[str, Any]) -> dict[str, Any]:
        paginated = super().get_paginated_response_schema(schema)
        paginated["properties"] = {"count": {"type": "integer"}, **paginated["properties"]}
        paginated["required"] = ["count", *paginated["required"]]
        return paginated


class MessageListApi(APIView):
    required_scope = "chat"
    pagination_class = TranscriptPagination

    @extend_schema(
        responses=MessageSerializer(many=True),
        summary="The conversation's transcript, oldest first, cursor-paginated",
    )
    def get(self, request: Request, conversation_id: int) -> Response:
        conversation = get_object_or_404(Conversation, pk=conversation_id)
        paginator = self.pagination_class()
        page = paginator.paginate_queryset(
            Message.objects.filter(conversation=conversation, internal=False), request, view=self
        )
        return paginator.get_paginated_response([sources_absolute(request, message_payload(m)) for m in page or []])


class MessagesApi(MessageCreateApi, MessageListApi):
    """/conversations/{id}/messages: GET the transcript, POST a customer message."""

    def get_renderers(self) -> list[Any]:
        # Only the POST streams; the transcript is JSON.
        return [JSONRenderer()] if self.request.method == "GET" else super().get_renderers()
