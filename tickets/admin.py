from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from conversations.admin import ReadOnlyAdmin, ReadOnlyInline
from tickets.models import CannedResponse, EscalationCard, Ticket, TicketEvent
from tickets.services import ticket_transition
from tickets.states import TicketStatus, transition_allowed


class TicketEventInline(ReadOnlyInline):
    model = TicketEvent
    fields = readonly_fields = ("created_at", "kind", "from_status", "to_status", "actor", "note")


def _transition_action(to: TicketStatus):  # type: ignore[no-untyped-def]
    def action(modeladmin: admin.ModelAdmin, request: HttpRequest, queryset: QuerySet[Ticket]) -> None:
        moved, refused = 0, []
        for ticket in queryset:
            if transition_allowed(ticket.status, to) and ticket_transition(
                ticket_id=ticket.pk,
                from_=ticket.status,
                to=to,
                actor=request.user,  # type: ignore[arg-type]
            ):
                moved += 1
            else:
                refused.append(f"{ticket.reference} ({ticket.get_status_display()})")
        if moved:
            modeladmin.message_user(request, f"{moved} ticket(s) marked {to.label.lower()}.", messages.SUCCESS)
        if refused:
            modeladmin.message_user(
                request, f"Not allowed to mark {to.label.lower()}: {', '.join(refused)}.", messages.WARNING
            )

    action.__name__ = f"mark_{to.value}"
    return admin.action(description=f"Mark selected tickets {to.label.lower()}")(action)


@admin.register(Ticket)
class TicketAdmin(admin.ModelAdmin):
    list_display = [
        "reference",
        "kind",
        "subject",
        "status",
        "priority",
        "customer",
        "order_ref",
        "sla_due_at",
        "created_at",
    ]
    list_filter = ["status", "kind", "priority", "assignee"]
    search_fields = ["id", "subject", "order_ref", "customer__external_id", "customer__email"]
    list_select_related = ["customer"]
    raw_id_fields = ["customer", "conversation"]
    # Status changes go through the transition table (the actions below), never a free edit.
    readonly_fields = ["status", "created_at", "updated_at", "resolved_at"]
    date_hierarchy = "created_at"
    inlines = [TicketEventInline]
    actions = [_transition_action(status) for status in TicketStatus]


@admin.register(TicketEvent)
class TicketEventAdmin(ReadOnlyAdmin):
    list_display = ["ticket", "kind", "from_status", "to_status", "actor", "created_at"]
    list_filter = ["kind", "to_status"]
    search_fields = ["ticket__id", "note"]


@admin.register(EscalationCard)
class EscalationCardAdmin(ReadOnlyAdmin):
    list_display = ["id", "conversation", "reason", "short_summary", "accepted_by", "created_at"]
    list_filter = ["reason"]
    search_fields = ["summary", "conversation__id", "conversation__customer__external_id"]

    @admin.display(description="summary")
    def short_summary(self, obj: EscalationCard) -> str:
        return obj.summary[:100]


@admin.register(CannedResponse)
class CannedResponseAdmin(admin.ModelAdmin):
    list_display = ["shortcut", "language", "title", "active"]
    list_filter = ["language", "active"]
    search_fields = ["shortcut", "title", "text"]
