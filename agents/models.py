from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from pgvector.django import HnswIndex, VectorField

from agents.states import SubtaskStatus, TurnStatus
from agents.taxonomy import Intent, Specialist
from conversations.models import Conversation, Customer, IntentLevel, Language, Message, WorkflowState


class RouteDecision(models.TextChoices):
    AGENT = "agent", "Agent (subtasks)"
    ESCALATE = "escalate", "Escalate"
    CLARIFY = "clarify", "Clarifying question"
    CALLBACK = "callback", "Callback contact collected"


class TurnRun(models.Model):
    """One customer message and everything the engine did to answer it."""

    conversation = models.ForeignKey(Conversation, on_delete=models.CASCADE, related_name="turns")
    message = models.OneToOneField(Message, on_delete=models.CASCADE, related_name="turn")
    # Change only through agents.services.turn_transition (compare-and-set + TurnEvent).
    status = models.CharField(max_length=16, choices=TurnStatus.choices, default=TurnStatus.RECEIVED)
    language = models.CharField(max_length=8, choices=Language.choices, default=Language.EN)
    intents = models.JSONField(default=list, blank=True)  # [{"name", "confidence", "text"}]
    entities = models.JSONField(default=dict, blank=True)
    emotion_score = models.FloatField(null=True, blank=True)
    intent_level = models.CharField(max_length=16, choices=IntentLevel.choices, blank=True)
    intent_cache_hit = models.BooleanField(default=False)
    flags = models.JSONField(default=list, blank=True, help_text="e.g. prompt_injection, intent_switch")
    # The learned decisions' reading of the message and its parts (agents.reading.message.Reading), made once
    # by the intent node for the route node and the workflow runner.
    reading = models.JSONField(default=dict, blank=True)
    # What the knowledge base knew about the message and each of its clauses, searched during
    # recognition: [{"text", "matched", "similarity", "document", "chunk_id"}].
    knowledge = models.JSONField(default=list, blank=True)
    # The retrieval cache's lookups while the message was recognised (the subtasks count their own).
    retrieval_lookups = models.PositiveSmallIntegerField(default=0)
    retrieval_hits = models.PositiveSmallIntegerField(default=0)
    # The safety gate's verdict on the reply (agents.safety): {"decision", "categories", "ms"}.
    safety = models.JSONField(default=dict, blank=True)
    route = models.CharField(max_length=16, choices=RouteDecision.choices, blank=True)
    escalation_reason = models.CharField(max_length=20, blank=True)
    reply_message = models.OneToOneField(
        Message, null=True, blank=True, on_delete=models.SET_NULL, related_name="reply_to_turn"
    )
    reply = models.JSONField(default=dict, blank=True)  # {"text", "sources", "awaiting", "quick_replies"}
    llm_calls = models.PositiveIntegerField(default=0)
    llm_prompt_tokens = models.PositiveIntegerField(default=0)
    llm_completion_tokens = models.PositiveIntegerField(default=0)
    llm_cost = models.DecimalField(max_digits=10, decimal_places=6, default=0)
    history_tokens_full = models.PositiveIntegerField(default=0)
    history_tokens_used = models.PositiveIntegerField(default=0)
    error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    # Not a column: the workflow the recognize step found, kept for the route step while the turn is in hand.
    active_workflow: WorkflowState | None

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["status", "created_at"])]
        constraints = [
            models.CheckConstraint(condition=Q(status__in=TurnStatus.values), name="turn_status_valid"),
            models.CheckConstraint(condition=Q(route="") | Q(route__in=RouteDecision.values), name="turn_route_valid"),
            models.CheckConstraint(condition=Q(llm_cost__gte=0), name="turn_llm_cost_gte_0"),
        ]

    def __str__(self) -> str:
        return f"Turn {self.pk} ({self.status})"

    @property
    def top_intent(self) -> str:
        return self.intents[0]["name"] if self.intents else ""


class TurnEvent(models.Model):
    """Audit row: one per status change of a turn. A step took from the previous row to this one."""

    turn = models.ForeignKey(TurnRun, on_delete=models.CASCADE, related_name="events")
    from_status = models.CharField(max_length=16)
    to_status = models.CharField(max_length=16)
    reason = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "id"]

    def __str__(self) -> str:
        return f"{self.from_status} → {self.to_status}"


class Subtask(models.Model):
    """One specialist's share of a turn; its result is stored on this row."""

    turn = models.ForeignKey(TurnRun, on_delete=models.CASCADE, related_name="subtasks")
    position = models.PositiveSmallIntegerField()
    specialist = models.CharField(max_length=32, choices=[(s.value, s.value) for s in Specialist])
    intent = models.CharField(max_length=32, choices=[(i.value, i.value) for i in Intent])
    text = models.TextField(help_text="The clause of the message this subtask serves.")
    digression = models.BooleanField(
        default=False, help_text="A paused workflow's subtask whose message was a question answered beside it."
    )
    status = models.CharField(max_length=16, choices=SubtaskStatus.choices, default=SubtaskStatus.PENDING)
    # {"text", "resolved", "sources", "awaiting", "quick_replies", "data"}
    result = models.JSONField(default=dict, blank=True)
    error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    latency_ms = models.FloatField(null=True, blank=True)
    # What the specialist asked of the retrieval and tool caches, and how often they had it.
    retrieval_lookups = models.PositiveSmallIntegerField(default=0)
    retrieval_hits = models.PositiveSmallIntegerField(default=0)
    tool_lookups = models.PositiveSmallIntegerField(default=0)
    tool_hits = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["turn", "position"]
        constraints = [
            models.UniqueConstraint(fields=["turn", "position"], name="subtask_position_unique_per_turn"),
            models.CheckConstraint(condition=Q(status__in=SubtaskStatus.values), name="subtask_status_valid"),
        ]

    def __str__(self) -> str:
        return f"{self.specialist}/{self.intent} ({self.status})"


class ExemplarSource(models.TextChoices):
    SHIPPED = "shipped", "Shipped with the product"
    STAFF = "staff", "Added by staff"


class IntentExemplar(models.Model):
    """A labelled example message; the offline classifier votes over the nearest ones."""

    intent = models.CharField(max_length=32, choices=[(i.value, i.value) for i in Intent])
    language = models.CharField(max_length=8, choices=Language.choices)
    text = models.CharField(max_length=500)
    embedding = VectorField(dimensions=settings.EMBEDDING_DIMENSIONS)
    source = models.CharField(max_length=16, choices=ExemplarSource.choices, default=ExemplarSource.STAFF)
    active = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["intent", "language", "text"]
        constraints = [
            models.UniqueConstraint(fields=["intent", "language", "text"], name="exemplar_unique_text_per_intent"),
            models.CheckConstraint(condition=~Q(text=""), name="exemplar_text_not_empty"),
        ]
        indexes = [
            HnswIndex(
                name="exemplar_embedding_hnsw",
                fields=["embedding"],
                m=16,
                ef_construction=64,
                opclasses=["vector_cosine_ops"],
            )
        ]

    def __str__(self) -> str:
        return f"{self.intent} ({self.language}): {self.text}"


class VerificationCode(models.Model):
    """A one-time code emailed to an account's address, which proves the chat's customer owns it
    (agents.verification; CHAT_VERIFICATION=code). Only its keyed hash is stored."""

    conversation = models.ForeignKey(Conversation, on_delete=models.CASCADE, related_name="verification_codes")
    # None: the details named no account; the row stands in for a code all the same, so the chat goes on
    # exactly as if one had been sent (nothing tells who has an account), and no code opens it.
    customer = models.ForeignKey(Customer, null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    client_key = models.CharField(max_length=80, blank=True)  # who asked for it (agents.verification.client_key)
    code_hash = models.CharField(max_length=64)
    sent_to = models.EmailField(max_length=254, blank=True)  # empty when no mail went out
    attempts = models.PositiveSmallIntegerField(default=0)  # wrong codes typed
    expires_at = models.DateTimeField()
    used_at = models.DateTimeField(null=True, blank=True)  # proven, replaced, or out of tries
    proven_at = models.DateTimeField(null=True, blank=True)  # typed right: its client has proven the account
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [
            models.Index(fields=["conversation", "created_at"], name="verification_code_recent"),
            models.Index(fields=["client_key", "created_at"], name="verification_code_client"),
            models.Index(fields=["customer", "created_at"], name="verification_code_account"),
        ]

    def __str__(self) -> str:
        return f"code for {self.customer_id} in conversation {self.conversation_id}"


class DecisionExample(models.Model):
    """An example staff teach a learned decision (agents.reading) in the admin, beside the example files
    shipped with the product; the decision is fitted again with it (agents.reading.staff)."""

    decision = models.CharField(max_length=32)  # a name of agents.reading.catalogue.DECISIONS
    language = models.CharField(max_length=8, choices=Language.choices, blank=True)  # read from the text if blank
    text = models.CharField(max_length=500)
    label = models.CharField(max_length=32)
    why = models.CharField(max_length=200, help_text="What the example teaches, so the next person knows if it may go.")
    active = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["decision", "label", "text"]
        constraints = [
            models.UniqueConstraint(fields=["decision", "text"], name="decision_example_unique_text"),
            models.CheckConstraint(condition=~Q(text=""), name="decision_example_text_not_empty"),
        ]

    def __str__(self) -> str:
        return f"{self.decision}: {self.text} → {self.label}"
