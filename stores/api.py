"""/api/v1/store/events: the store says that an order, an account or the catalogue changed.

A store on `STORE_BACKEND=http` (or any store whose data changes outside the chat) posts here, signed as our own
webhooks are (`X-Store-Signature: t=<unix time>,v1=<HMAC-SHA256 of "<t>.<raw body>">` with STORE_WEBHOOK_SECRET),
and every read cached of that customer, or of everyone for the catalogue, is read afresh from then on.
"""

from __future__ import annotations

from django.conf import settings
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from stores.versions import store_changed
from webhooks.services import webhook_signature_verify

STORE_EVENTS = ("order.updated", "customer.updated", "catalogue.updated")


class StoreEventSerializer(serializers.Serializer):
    type = serializers.ChoiceField(choices=STORE_EVENTS)
    customer_id = serializers.CharField(max_length=128, required=False, help_text="The store's customer id.")
    order_id = serializers.CharField(max_length=64, required=False)


class StoreEventsApi(APIView):
    authentication_classes: list[type] = []  # the signature is the credential
    permission_classes: list[type] = []

    @extend_schema(
        request=StoreEventSerializer,
        responses={202: inline_serializer("StoreEventAccepted", {"accepted": serializers.BooleanField()})},
        summary="The store's data changed: cached reads of it are dropped",
    )
    def post(self, request: Request) -> Response:
        body = request.body  # the raw bytes the signature is over, read before the parsed data
        secret = settings.STORE_WEBHOOK_SECRET
        if not secret or not webhook_signature_verify(secret, request.headers.get("X-Store-Signature", ""), body):
            return Response({"error": {"code": "bad_signature", "message": "The signature does not match."}}, 401)
        event = StoreEventSerializer(data=request.data)
        event.is_valid(raise_exception=True)
        store_changed(
            None if event.validated_data["type"] == "catalogue.updated" else event.validated_data.get("customer_id")
        )
        return Response({"accepted": True}, status=202)
