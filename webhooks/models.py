"""Webhook subscriptions and the deliveries made to them (an outbox: written with the change that
caused the event, sent by the worker after the commit)."""

from __future__ import annotations

import uuid

from django.contrib.postgres.fields import ArrayField
from django.db import models
from django.db.models import Q


class WebhookEventType(models.TextChoices):
    CONVERSATION_ESCALATED = "conversation.escalated"
    CONVERSATION_CLOSED = "conversation.closed"
    TICKET_CREATED = "ticket.created"
    TICKET_UPDATED = "ticket.updated"
    MESSAGE_CREATED = "message.created"
    TESTS_FAILED = "tests.failed"  # a run of the store's conversation tests ended with failures


class WebhookSubscription(models.Model):
    url = models.URLField(max_length=500)
    events = ArrayField(models.CharField(max_length=32, choices=WebhookEventType.choices))
    description = models.CharField(max_length=200, blank=True)
    # Kept to sign deliveries; shown once, when the subscription is made.
    secret = models.CharField(max_length=80, editable=False)
    is_active = models.BooleanField(default=True)
    consecutive_failures = models.PositiveIntegerField(default=0, help_text="Deliveries failed in a row.")
    disabled_reason = models.CharField(max_length=200, blank=True)
    created_by = models.CharField(max_length=100, blank=True, help_text="The API key or staff member.")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.CheckConstraint(
                condition=Q(events__contained_by=WebhookEventType.values) & ~Q(events=[]), name="webhook_events_known"
            ),
        ]

    def __str__(self) -> str:
        return self.url


class DeliveryStatus(models.TextChoices):
    PENDING = "pending"  # waiting for its (next) attempt
    SENDING = "sending"  # claimed by a worker until `claimed_until`
    SUCCEEDED = "succeeded"
    FAILED = "failed"  # every attempt failed, or the subscription was disabled meanwhile


class WebhookDelivery(models.Model):
    subscription = models.ForeignKey(WebhookSubscription, on_delete=models.CASCADE, related_name="deliveries")
    event_id = models.UUIDField(default=uuid.uuid4, help_text="The same for every subscription to one event.")
    event_type = models.CharField(max_length=32, choices=WebhookEventType.choices)
    body = models.TextField(help_text="The JSON sent, byte for byte what was signed.")
    status = models.CharField(max_length=16, choices=DeliveryStatus.choices, default=DeliveryStatus.PENDING)
    attempts = models.PositiveSmallIntegerField(default=0)
    next_attempt_at = models.DateTimeField()
    claimed_until = models.DateTimeField(null=True, blank=True)
    last_status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    last_latency_ms = models.PositiveIntegerField(null=True, blank=True)
    last_error = models.CharField(max_length=300, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-id"]
        verbose_name_plural = "webhook deliveries"
        indexes = [
            models.Index(fields=["next_attempt_at"], condition=Q(status="pending"), name="webhook_delivery_due"),
        ]
        constraints = [
            models.CheckConstraint(condition=Q(status__in=DeliveryStatus.values), name="webhook_delivery_status_valid"),
            models.CheckConstraint(
                condition=~Q(status="sending") | Q(claimed_until__isnull=False), name="webhook_delivery_sending_claimed"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.event_type} → {self.subscription_id} ({self.status})"


class WebhookAttempt(models.Model):
    """One HTTP request of a delivery, for the admin's log."""

    delivery = models.ForeignKey(WebhookDelivery, on_delete=models.CASCADE, related_name="attempt_log")
    number = models.PositiveSmallIntegerField()
    status_code = models.PositiveSmallIntegerField(null=True, blank=True, help_text="None: no HTTP answer.")
    latency_ms = models.PositiveIntegerField()
    error = models.CharField(max_length=300, blank=True)
    at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["delivery", "number"]
        constraints = [models.UniqueConstraint(fields=["delivery", "number"], name="webhook_attempt_once")]
