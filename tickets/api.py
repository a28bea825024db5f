"""/api/v1/tickets: list with filters, read, and PATCH status (through the transition table) or assignee."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.pagination import PageNumberPagination
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from conversations.api_errors import error_response
from tickets.models import Ticket, TicketKind
from tickets.selectors import ticket_json
from tickets.services import TicketTransitionError, ticket_assign, ticket_transition
from tickets.states import TicketStatus


class TicketSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    reference = serializers.CharField()
    kind = serializers.ChoiceField(choices=TicketKind.choices)
    status = serializers.ChoiceField(choices=TicketStatus.choices)
    priority = serializers.CharField()
    subject = serializers.CharField()
    customer = serializers.CharField(allow_null=True, help_text="The customer's external id.")
    conversation_id = serializers.IntegerField(allow_null=True)
    order_ref = serializers.CharField(allow_null=True)
    payload = serializers.DictField()
    assignee = serializers.CharField(allow_null=True, help_text="A staff username.")
    sla_due_at = serializers.DateTimeField(allow_null=True)
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()
    resolved_at = serializers.DateTimeField(allow_null=True)


class TicketListApi(APIView):
    required_scope = "tickets"

    class TicketFilterSerializer(serializers.Serializer):
        kind = serializers.ChoiceField(choices=TicketKind.choices, required=False)
        status = serializers.ChoiceField(choices=TicketStatus.choices, required=False)
        customer = serializers.CharField(max_length=128, required=False, help_text="The customer's external id.")
        created_after = serializers.DateTimeField(required=False)
        created_before = serializers.DateTimeField(required=False)

    class Pagination(PageNumberPagination):
        page_size = 50
        max_page_size = 200
        page_size_query_param = "page_size"

    pagination_class = Pagination

    @extend_schema(
        parameters=[TicketFilterSerializer],
        responses=TicketSerializer(many=True),
        summary="Tickets, newest first, filtered by kind, status, customer and creation time",
    )
    def get(self, request: Request) -> Response:
        filters = self.TicketFilterSerializer(data=request.query_params)
        filters.is_valid(raise_exception=True)
        given = filters.validated_data
        tickets = Ticket.objects.select_related("customer", "assignee").order_by("-created_at", "-id")
        for field, lookup in (
            ("kind", "kind"),
            ("status", "status"),
            ("customer", "customer__external_id"),
            ("created_after", "created_at__gte"),
            ("created_before", "created_at__lt"),
        ):
            if field in given:
                tickets = tickets.filter(**{lookup: given[field]})
        paginator = self.pagination_class()
        page = paginator.paginate_queryset(tickets, request, view=self)
        return paginator.get_paginated_response([ticket_json(t) for t in page or []])


class TicketDetailApi(APIView):
    required_scope = "tickets"

    class TicketPatchSerializer(serializers.Serializer):
        status = serializers.ChoiceField(choices=TicketStatus.choices, required=False)
        assignee = serializers.CharField(max_length=150, required=False, allow_null=True, help_text="A staff username.")
        note = serializers.CharField(max_length=1000, required=False, allow_blank=True, default="")

        def validate_assignee(self, value: str | None) -> Any:
            if value is None:
                return None
            user = get_user_model().objects.filter(username=value, is_staff=True, is_active=True).first()
            if user is None:
                raise serializers.ValidationError("No active staff member has this username.")
            return user

        def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
            if "status" not in attrs and "assignee" not in attrs:
                raise serializers.ValidationError("Give a status, an assignee, or both.")
            return attrs

    @extend_schema(responses=TicketSerializer, summary="One ticket")
    def get(self, request: Request, ticket_id: int) -> Response:
        ticket = get_object_or_404(Ticket.objects.select_related("customer", "assignee"), pk=ticket_id)
        return Response(ticket_json(ticket))

    @extend_schema(
        request=TicketPatchSerializer,
        responses=TicketSerializer,
        summary="Move a ticket's status (allowed moves only) and/or assign it",
    )
    def patch(self, request: Request, ticket_id: int) -> Response:
        ticket = get_object_or_404(Ticket, pk=ticket_id)
        data = self.TicketPatchSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        change = data.validated_data
        if "status" in change and change["status"] != ticket.status:
            try:
                moved = ticket_transition(
                    ticket_id=ticket.pk, from_=ticket.status, to=change["status"], note=change["note"]
                )
            except TicketTransitionError as exc:
                return error_response("illegal_transition", str(exc), field="status", status=409)
            if not moved:
                return error_response(
                    "conflict", "The ticket changed meanwhile; read it again.", field="status", status=409
                )
        if "assignee" in change:
            ticket_assign(ticket_id=ticket.pk, assignee=change["assignee"], note=change["note"])
        return Response(ticket_json(Ticket.objects.select_related("customer", "assignee").get(pk=ticket.pk)))
