from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from conversations.models import Conversation, Customer, Language
from tickets.states import TicketStatus


class TicketKind(models.TextChoices):
    RETURN = "return", _("Return")
    EXCHANGE = "exchange", _("Exchange")
    REPAIR = "repair", _("Repair")
    INVOICE = "invoice", _("Invoice")
    CANCEL = "cancel", _("Cancellation")
    MODIFY = "modify", _("Order change")
    COMPLAINT = "complaint", _("Complaint")
    CALLBACK = "callback", _("Callback request")
    GENERAL = "general", _("General")


class TicketPriority(models.TextChoices):
    LOW = "low", "Low"
    NORMAL = "normal", "Normal"
    HIGH = "high", "High"
    URGENT = "urgent", "Urgent"


class Ticket(models.Model):
    kind = models.CharField(max_length=16, choices=TicketKind.choices)
    # Change only through tickets.services.ticket_transition, which enforces ALLOWED_TRANSITIONS.
    status = models.CharField(max_length=20, choices=TicketStatus.choices, default=TicketStatus.OPEN)
    priority = models.CharField(max_length=8, choices=TicketPriority.choices, default=TicketPriority.NORMAL)
    subject = models.CharField(max_length=200)
    customer = models.ForeignKey(Customer, null=True, blank=True, on_delete=models.SET_NULL, related_name="tickets")
    conversation = models.ForeignKey(
        Conversation, null=True, blank=True, on_delete=models.SET_NULL, related_name="tickets"
    )
    order_ref = models.CharField(max_length=64, blank=True, db_index=True, help_text="Store order id, if any.")
    # What the workflow collected (order, items, reason, tax id, …), for the person who handles it.
    payload = models.JSONField(default=dict, blank=True)
    assignee = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="tickets"
    )
    sla_due_at = models.DateTimeField(null=True, blank=True)
    # Set by automated creators (a subtask, a workflow) so that a retried step finds its ticket
    # instead of opening a second one.
    source_key = models.CharField(max_length=100, null=True, blank=True, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    resolved_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["status", "sla_due_at"])]
        constraints = [
            models.CheckConstraint(condition=Q(kind__in=TicketKind.values), name="ticket_kind_valid"),
            models.CheckConstraint(condition=Q(status__in=TicketStatus.values), name="ticket_status_valid"),
            models.CheckConstraint(condition=Q(priority__in=TicketPriority.values), name="ticket_priority_valid"),
        ]

    def __str__(self) -> str:
        return f"{self.reference} {self.get_kind_display()}: {self.subject}"

    @property
    def reference(self) -> str:
        return f"T-{self.pk:06d}" if self.pk else "T-new"


class TicketEventKind(models.TextChoices):
    CREATED = "created", "Created"
    STATUS_CHANGED = "status_changed", "Status changed"
    ASSIGNED = "assigned", "Assigned"
    NOTE = "note", "Note"


class TicketEvent(models.Model):
    """Audit row: one per change of a ticket."""

    ticket = models.ForeignKey(Ticket, on_delete=models.CASCADE, related_name="events")
    kind = models.CharField(max_length=16, choices=TicketEventKind.choices)
    from_status = models.CharField(max_length=20, blank=True)
    to_status = models.CharField(max_length=20, blank=True)
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    note = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "id"]
        constraints = [
            models.CheckConstraint(condition=Q(kind__in=TicketEventKind.values), name="ticket_event_kind_valid")
        ]

    def __str__(self) -> str:
        if self.kind == TicketEventKind.STATUS_CHANGED:
            return f"{self.from_status} → {self.to_status}"
        return self.get_kind_display()


class EscalationReason(models.TextChoices):
    REQUESTED = "requested", _("Customer asked for a human")
    EMOTION = "emotion", _("Upset customer")
    REPEATED_FAILURE = "repeated_failure", _("Bot failed repeatedly")
    LOW_CONFIDENCE = "low_confidence", _("Bot unsure of the intent")
    POLICY = "policy", _("Outside the bot's policy")
    ERROR = "error", _("System error")


class EscalationCard(models.Model):
    """Everything the human needs to take over without asking the customer to repeat."""

    conversation = models.ForeignKey(Conversation, on_delete=models.CASCADE, related_name="escalation_cards")
    ticket = models.ForeignKey(Ticket, null=True, blank=True, on_delete=models.SET_NULL, related_name="cards")
    reason = models.CharField(max_length=20, choices=EscalationReason.choices)
    summary = models.TextField()
    intents = models.JSONField(default=list, blank=True)
    emotion_trajectory = models.JSONField(default=list, blank=True)
    slots = models.JSONField(default=dict, blank=True)
    order_ids = models.JSONField(default=list, blank=True)
    last_messages = models.JSONField(default=list, blank=True)
    suggested_reply = models.TextField(blank=True)
    accepted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    accepted_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.CheckConstraint(condition=Q(reason__in=EscalationReason.values), name="card_reason_valid"),
        ]

    def __str__(self) -> str:
        return f"Escalation of conversation {self.conversation_id}: {self.get_reason_display()}"


class CannedResponse(models.Model):
    title = models.CharField(max_length=100)
    shortcut = models.SlugField(max_length=50, help_text="Typed as /shortcut in the reply box.")
    language = models.CharField(max_length=8, choices=Language.choices)
    text = models.TextField()
    active = models.BooleanField(default=True)

    class Meta:
        ordering = ["shortcut", "language"]
        constraints = [
            models.UniqueConstraint(fields=["shortcut", "language"], name="canned_response_shortcut_language_unique"),
            models.CheckConstraint(condition=Q(language__in=Language.values), name="canned_response_language_valid"),
        ]

    def __str__(self) -> str:
        return f"/{self.shortcut} ({self.language})"
