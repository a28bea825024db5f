"""/api/v1/webhooks (scope `admin`): subscribe, list, read, change, delete, and each one's delivery log."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError as ModelValidationError
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.exceptions import ValidationError
from rest_framework.pagination import CursorPagination
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from webhooks.models import WebhookDelivery, WebhookEventType, WebhookSubscription
from webhooks.services import webhook_subscribe, webhook_unsubscribe, webhook_update


def subscription_json(subscription: WebhookSubscription) -> dict[str, Any]:
    return {
        "id": subscription.pk,
        "url": subscription.url,
        "events": subscription.events,
        "description": subscription.description,
        "is_active": subscription.is_active,
        "consecutive_failures": subscription.consecutive_failures,
        "disabled_reason": subscription.disabled_reason or None,
        "created_at": subscription.created_at.isoformat(),
    }


def delivery_json(delivery: WebhookDelivery) -> dict[str, Any]:
    return {
        "id": delivery.pk,
        "event_id": str(delivery.event_id),
        "event_type": delivery.event_type,
        "status": delivery.status,
        "attempts": delivery.attempts,
        "last_status_code": delivery.last_status_code,
        "last_latency_ms": delivery.last_latency_ms,
        "last_error": delivery.last_error or None,
        "created_at": delivery.created_at.isoformat(),
        "next_attempt_at": delivery.next_attempt_at.isoformat() if delivery.status == "pending" else None,
    }


class SubscriptionSerializer(serializers.Serializer):
    id = serializers.IntegerField(read_only=True)
    url = serializers.URLField(max_length=500)
    events = serializers.ListField(
        child=serializers.ChoiceField(choices=WebhookEventType.choices), min_length=1, max_length=10
    )
    description = serializers.CharField(max_length=200, required=False, allow_blank=True, default="")
    is_active = serializers.BooleanField(read_only=True)
    consecutive_failures = serializers.IntegerField(read_only=True)
    disabled_reason = serializers.CharField(read_only=True, allow_null=True)
    created_at = serializers.DateTimeField(read_only=True)


class CreatedSubscriptionSerializer(SubscriptionSerializer):
    secret = serializers.CharField(read_only=True, help_text="Signs every delivery. Shown only in this response.")


class SubscriptionListSerializer(serializers.Serializer):
    results = SubscriptionSerializer(many=True)


class DeliverySerializer(serializers.Serializer):
    id = serializers.IntegerField()
    event_id = serializers.UUIDField()
    event_type = serializers.CharField()
    status = serializers.CharField(help_text="pending, sending, succeeded or failed")
    attempts = serializers.IntegerField()
    last_status_code = serializers.IntegerField(allow_null=True)
    last_latency_ms = serializers.IntegerField(allow_null=True)
    last_error = serializers.CharField(allow_null=True)
    created_at = serializers.DateTimeField()
    next_attempt_at = serializers.DateTimeField(allow_null=True)


def _model_errors(field: str, call: Any) -> Any:
    """A service's ValidationError as the API's 400, on the field it concerns."""
    try:
        return call()
    except ModelValidationError as exc:
        raise ValidationError({field: exc.messages}) from None


class WebhookListApi(APIView):
    required_scope = "admin"

    @extend_schema(
        operation_id="v1_webhooks_list",
        responses=SubscriptionListSerializer,
        summary="Webhook subscriptions, newest first",
    )
    def get(self, request: Request) -> Response:
        return Response({"results": [subscription_json(s) for s in WebhookSubscription.objects.all()]})

    @extend_schema(
        request=SubscriptionSerializer,
        responses={201: CreatedSubscriptionSerializer},
        summary="Subscribe a URL to event types; the signing secret is in this response only",
    )
    def post(self, request: Request) -> Response:
        data = SubscriptionSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        given = data.validated_data
        subscription = _model_errors(
            "url",
            lambda: webhook_subscribe(
                url=given["url"],
                events=given["events"],
                description=given["description"],
                created_by=f"api key {request.auth.name}" if request.auth else "",
            ),
        )
        return Response({**subscription_json(subscription), "secret": subscription.secret}, status=201)


class WebhookDetailApi(APIView):
    required_scope = "admin"

    class WebhookUpdateSerializer(serializers.Serializer):
        url = serializers.URLField(max_length=500, required=False)
        events = serializers.ListField(
            child=serializers.ChoiceField(choices=WebhookEventType.choices), min_length=1, max_length=10, required=False
        )
        description = serializers.CharField(max_length=200, required=False, allow_blank=True)
        is_active = serializers.BooleanField(required=False, help_text="true re-enables and clears the failure count.")

    @extend_schema(responses=SubscriptionSerializer, summary="One webhook subscription")
    def get(self, request: Request, subscription_id: int) -> Response:
        return Response(subscription_json(get_object_or_404(WebhookSubscription, pk=subscription_id)))

    @extend_schema(
        request=WebhookUpdateSerializer, responses=SubscriptionSerializer, summary="Change URL, events or state"
    )
    def patch(self, request: Request, subscription_id: int) -> Response:
        get_object_or_404(WebhookSubscription, pk=subscription_id)
        data = self.WebhookUpdateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        given = data.validated_data
        subscription = _model_errors("url", lambda: webhook_update(subscription_id=subscription_id, **given))
        return Response(subscription_json(subscription))

    @extend_schema(responses={204: None}, summary="Unsubscribe (its delivery log goes with it)")
    def delete(self, request: Request, subscription_id: int) -> Response:
        webhook_unsubscribe(subscription_id=get_object_or_404(WebhookSubscription, pk=subscription_id).pk)
        return Response(status=204)


class DeliveryPagination(CursorPagination):
    ordering = ("-id",)
    page_size = 50
    max_page_size = 200
    page_size_query_param = "page_size"


class WebhookDeliveryListApi(APIView):
    required_scope = "admin"
    pagination_class = DeliveryPagination

    @extend_schema(
        responses=DeliverySerializer(many=True),
        summary="A subscription's deliveries, newest first: status, attempts, last answer and latency",
    )
    def get(self, request: Request, subscription_id: int) -> Response:
        subscription = get_object_or_404(WebhookSubscription, pk=subscription_id)
        paginator = self.pagination_class()
        page = paginator.paginate_queryset(WebhookDelivery.objects.filter(subscription=subscription), request, self)
        return paginator.get_paginated_response([delivery_json(d) for d in page or []])
