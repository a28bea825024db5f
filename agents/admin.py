from typing import Any

from django import forms
from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.html import format_html, format_html_join

from agents.intents.exemplar_index import exemplar_add, exemplar_change
from agents.models import DecisionExample, IntentExemplar, Subtask, TurnEvent, TurnRun
from agents.reading.catalogue import DECISIONS
from agents.reading.staff import ExampleRefused, decision_example_check, decision_example_save
from conversations.admin import ReadOnlyAdmin, ReadOnlyInline


class TurnEventInline(ReadOnlyInline):
    model = TurnEvent
    fields = readonly_fields = ("created_at", "from_status", "to_status", "reason")


class SubtaskInline(ReadOnlyInline):
    model = Subtask
    fields = readonly_fields = ("position", "specialist", "intent", "status", "latency_ms", "result_text", "error")

    @admin.display(description="result")
    def result_text(self, obj: Subtask) -> str:
        resolved = obj.result.get("resolved")
        mark = "" if resolved is None else ("✓ " if resolved else "✗ unresolved: ")
        return mark + (obj.result.get("text") or "")[:200]


@admin.register(TurnRun)
class TurnRunAdmin(ReadOnlyAdmin):
    """The trace of a turn: node path with timings, intent level, cache hit, subtasks, LLM usage, and the safety
    gate's verdict on the reply."""

    list_display = [
        "id",
        "conversation",
        "status",
        "top_intent",
        "intent_level",
        "intent_cache_hit",
        "route",
        "total_ms",
        "created_at",
    ]
    list_filter = ["status", "intent_level", "route", "intent_cache_hit"]
    search_fields = ["message__text", "conversation__id", "conversation__customer__external_id"]
    list_select_related = ["conversation"]
    date_hierarchy = "created_at"
    inlines = [TurnEventInline, SubtaskInline]
    readonly_fields = [
        "trace",
        "status",
        "language",
        "intents",
        "entities",
        "emotion_score",
        "intent_level",
        "intent_cache_hit",
        "flags",
        "route",
        "escalation_reason",
        "reply",
        "safety",
        "llm_calls",
        "llm_prompt_tokens",
        "llm_completion_tokens",
        "llm_cost",
        "history_tokens_full",
        "history_tokens_used",
        "error",
        "created_at",
        "finished_at",
    ]
    fieldsets = [
        (None, {"fields": ["trace", "conversation", "message", "reply_message", "status", "route", "error"]}),
        (
            "Intent",
            {
                "fields": [
                    "intent_level",
                    "intent_cache_hit",
                    "intents",
                    "entities",
                    "emotion_score",
                    "flags",
                    "language",
                ]
            },
        ),
        ("Reply", {"fields": ["reply", "safety", "escalation_reason"]}),
        (
            "LLM and context",
            {
                "fields": [
                    "llm_calls",
                    "llm_prompt_tokens",
                    "llm_completion_tokens",
                    "llm_cost",
                    "history_tokens_full",
                    "history_tokens_used",
                ]
            },
        ),
        ("Time", {"fields": ["created_at", "finished_at"]}),
    ]

    def get_queryset(self, request: HttpRequest) -> QuerySet[TurnRun]:
        return super().get_queryset(request).prefetch_related("events", "subtasks")

    @admin.display(description="total ms")
    def total_ms(self, obj: TurnRun) -> str:
        if not obj.finished_at:
            return "-"
        return f"{(obj.finished_at - obj.created_at).total_seconds() * 1000:.0f}"

    @admin.display(description="node path")
    def trace(self, obj: TurnRun) -> str:
        rows, previous = [], obj.created_at
        for event in obj.events.all():
            rows.append((event.reason, event.to_status, f"{(event.created_at - previous).total_seconds() * 1000:.0f}"))
            previous = event.created_at
        steps = format_html_join(" → ", "<span title='{}'>{} <small>({} ms)</small></span>", rows)
        subtasks = format_html_join(
            "",
            "<li>{} / {}: {} in {} ms</li>",
            (
                (s.specialist, s.intent, s.status, f"{s.latency_ms:.0f}" if s.latency_ms is not None else "-")
                for s in obj.subtasks.all()
            ),
        )
        cache = "cache hit" if obj.intent_cache_hit else "no cache hit"
        return format_html(
            "<div>received → {}</div><div>intent level: {} ({}); tokens: {} in / {} out</div><ul>{}</ul>",
            steps,
            obj.intent_level or "-",
            cache,
            obj.llm_prompt_tokens,
            obj.llm_completion_tokens,
            subtasks,
        )


@admin.register(Subtask)
class SubtaskAdmin(ReadOnlyAdmin):
    list_display = ["id", "turn", "specialist", "intent", "status", "latency_ms", "created_at"]
    list_filter = ["specialist", "status", "intent"]
    search_fields = ["text", "turn__id", "error"]


@admin.register(IntentExemplar)
class IntentExemplarAdmin(admin.ModelAdmin):
    """Staff teach the offline classifier here; a saved exemplar counts from the next message on."""

    list_display = ["text", "intent", "language", "source", "active", "created_at"]
    list_filter = ["intent", "language", "source", "active"]
    search_fields = ["text"]
    fields = ["intent", "language", "text", "active", "source"]
    readonly_fields = ["source"]

    def save_model(self, request: HttpRequest, obj: IntentExemplar, form: Any, change: bool) -> None:
        if change:
            obj.pk = exemplar_change(
                obj.pk, intent=obj.intent, language=obj.language, text=obj.text, active=obj.active
            ).pk
        else:
            obj.pk = exemplar_add(intent=obj.intent, language=obj.language, text=obj.text).pk


class DecisionExampleForm(forms.ModelForm):
    decision = forms.ChoiceField(choices=[(decision.name, decision.name) for decision in DECISIONS])

    class Meta:
        model = DecisionExample
        fields = ["decision", "label", "text", "why", "language", "active"]

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        example = DecisionExample(**{f: cleaned.get(f) or "" for f in ("decision", "label", "text", "why")})
        try:
            decision_example_check(example)
        except ExampleRefused as refused:
            raise forms.ValidationError(str(refused)) from refused
        return cleaned


@admin.register(DecisionExample)
class DecisionExampleAdmin(admin.ModelAdmin):
    """Staff teach the learned decisions (agents.reading) here: the decision is fitted again with the example
    in the worker and read with it within half a minute."""

    form = DecisionExampleForm
    list_display = ["text", "decision", "label", "language", "active", "created_at"]
    list_filter = ["decision", "label", "language", "active"]
    search_fields = ["text", "why"]

    def save_model(self, request: HttpRequest, obj: DecisionExample, form: Any, change: bool) -> None:
        decision_example_save(obj)
