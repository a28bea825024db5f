"""Webhooks in the admin: subscriptions (the secret shown once, on creation; enable/disable) and the
delivery log with every attempt's status code and latency."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from webhooks.models import WebhookAttempt, WebhookDelivery, WebhookEventType, WebhookSubscription
from webhooks.services import webhook_subscribe, webhook_update, webhook_url_check


class SubscriptionForm(forms.ModelForm):
    url = forms.URLField(max_length=500, assume_scheme="https")
    events = forms.MultipleChoiceField(choices=WebhookEventType.choices, widget=forms.CheckboxSelectMultiple)

    class Meta:
        model = WebhookSubscription
        fields = ["url", "events", "description"]

    def clean_url(self) -> str:
        url = self.cleaned_data["url"]
        webhook_url_check(url)
        return url


@admin.register(WebhookSubscription)
class WebhookSubscriptionAdmin(admin.ModelAdmin):
    form = SubscriptionForm
    list_display = ["url", "event_list", "is_active", "consecutive_failures", "disabled_reason", "created_at"]
    list_filter = ["is_active"]
    search_fields = ["url", "description"]
    readonly_fields = ["is_active", "consecutive_failures", "disabled_reason", "created_by", "created_at"]
    actions = ["enable", "disable"]

    @admin.display(description="events")
    def event_list(self, obj: WebhookSubscription) -> str:
        return ", ".join(obj.events)

    def save_model(self, request: HttpRequest, obj: WebhookSubscription, form: Any, change: bool) -> None:
        if change:
            webhook_update(subscription_id=obj.pk, url=obj.url, events=obj.events, description=obj.description)
            return
        created = webhook_subscribe(
            url=obj.url, events=obj.events, description=obj.description, created_by=request.user.get_username()
        )
        obj.pk = created.pk
        messages.warning(request, f"Signing secret (shown only now; keep it with the receiver): {created.secret}")

    @admin.action(description="Enable (and clear the failure count)")
    def enable(self, request: HttpRequest, queryset: QuerySet[WebhookSubscription]) -> None:
        for pk in queryset.values_list("pk", flat=True):
            webhook_update(subscription_id=pk, is_active=True)

    @admin.action(description="Disable")
    def disable(self, request: HttpRequest, queryset: QuerySet[WebhookSubscription]) -> None:
        for pk in queryset.values_list("pk", flat=True):
            webhook_update(subscription_id=pk, is_active=False)


class AttemptInline(admin.TabularInline):
    model = WebhookAttempt
    fields = readonly_fields = ("number", "status_code", "latency_ms", "error", "at")
    extra = 0
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(WebhookDelivery)
class WebhookDeliveryAdmin(admin.ModelAdmin):
    """The log: written by the worker, read here."""

    list_display = [
        "event_type",
        "subscription",
        "status",
        "attempts",
        "last_status_code",
        "last_latency_ms",
        "created_at",
    ]
    list_filter = ["status", "event_type"]
    search_fields = ["event_id", "subscription__url"]
    list_select_related = ["subscription"]
    inlines = [AttemptInline]
    readonly_fields = [
        "subscription",
        "event_id",
        "event_type",
        "status",
        "attempts",
        "next_attempt_at",
        "last_status_code",
        "last_latency_ms",
        "last_error",
        "created_at",
        "finished_at",
        "body",
    ]
    exclude = ["claimed_until"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
