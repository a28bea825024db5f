from __future__ import annotations

from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _


class Language(models.TextChoices):
    EN = "en", "English"
    ZH = "zh", "中文"


class Customer(models.Model):
    """A shopper, identified by the store's own id (the widget identity or an imported user id)."""

    external_id = models.CharField(max_length=128, unique=True)
    name = models.CharField(max_length=200, blank=True)
    first_name = models.CharField(max_length=100, blank=True)
    last_name = models.CharField(max_length=100, blank=True)
    email = models.EmailField(max_length=254, blank=True, db_index=True)
    phone = models.CharField(max_length=32, blank=True)
    locale = models.CharField(max_length=8, choices=Language.choices, default=Language.EN)
    # Signed identity from the site, or verification in chat (email, name + zip, order + phone).
    verified = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["external_id"]
        constraints = [
            models.CheckConstraint(condition=~Q(external_id=""), name="customer_external_id_not_empty"),
            models.CheckConstraint(condition=Q(locale__in=Language.values), name="customer_locale_valid"),
        ]

    def __str__(self) -> str:
        return f"{self.display_name} ({self.external_id})"

    @property
    def display_name(self) -> str:
        return self.name or " ".join(p for p in (self.first_name, self.last_name) if p) or self.external_id


class ConversationStatus(models.TextChoices):
    BOT = "bot", _("Bot")  # the bot answers
    WAITING_HUMAN = "waiting_human", _("Waiting for a human")  # escalated, nobody took it yet
    HUMAN = "human", _("Human")  # a staff member owns it; the bot stays silent
    CLOSED = "closed", _("Closed")


class ResolutionReason(models.TextChoices):
    ANSWERED = "answered", _("Question answered")
    ORDER_FIXED = "order_fixed", _("Order problem sorted out")
    REFUND = "refund", _("Refund, return or exchange arranged")
    FOLLOW_UP = "follow_up", _("Moved to a ticket for follow-up")
    NO_REPLY = "no_reply", _("Customer stopped replying")
    SPAM = "spam", _("Spam or abuse")
    ENDED = "ended", _("Ended by the customer")
    OTHER = "other", _("Other")


class ClosedBy(models.TextChoices):
    CUSTOMER = "customer", _("Customer")
    ASSISTANT = "assistant", _("Assistant")  # nobody wrote for a day after its reply
    STAFF = "staff", _("Staff")
    STORE = "store", _("Store backend")  # through the API


class Channel(models.TextChoices):
    WIDGET = "widget", "Web widget"
    API = "api", "API"
    TERMINAL = "terminal", "Terminal"


class Conversation(models.Model):
    customer = models.ForeignKey(Customer, on_delete=models.CASCADE, related_name="conversations")
    status = models.CharField(max_length=16, choices=ConversationStatus.choices, default=ConversationStatus.BOT)
    channel = models.CharField(max_length=16, choices=Channel.choices, default=Channel.WIDGET)
    assigned_staff = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="assigned_conversations",
    )
    language = models.CharField(max_length=8, choices=Language.choices, default=Language.EN)
    # The store customer this chat has proven to be (signed identity, or email / name + zip /
    # order + phone in chat). Private data and writes are scoped to this customer only.
    verified_customer = models.ForeignKey(
        Customer, null=True, blank=True, on_delete=models.SET_NULL, related_name="verified_conversations"
    )
    # Who opened it, for limits that must hold across chats ("address:203.0.113.7"; empty: its customer).
    client_key = models.CharField(max_length=80, blank=True)
    current_intent = models.CharField(max_length=64, blank=True)
    failed_attempts = models.PositiveSmallIntegerField(default=0)
    turn_count = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    last_message_at = models.DateTimeField(null=True, blank=True)
    closed_at = models.DateTimeField(null=True, blank=True)
    resolution = models.CharField(max_length=16, choices=ResolutionReason.choices, blank=True)
    resolution_note = models.CharField(max_length=500, blank=True)
    closed_by = models.CharField(max_length=16, choices=ClosedBy.choices, blank=True)
    # Firsts kept for the analytics (docs/analytics.md), so its figures read this table alone.
    escalated_at = models.DateTimeField(null=True, blank=True, help_text="When it first went to the staff queue.")
    human_joined_at = models.DateTimeField(null=True, blank=True, help_text="When a person first took it over.")
    first_human_reply_at = models.DateTimeField(null=True, blank=True, help_text="A person's first reply.")

    class Meta:
        ordering = ["-updated_at"]
        permissions = [("take_over_conversation", "Can take over conversations in the live console")]
        indexes = [models.Index(fields=["status", "-updated_at"]), models.Index(fields=["created_at"])]
        constraints = [
            models.CheckConstraint(condition=Q(status__in=ConversationStatus.values), name="conversation_status_valid"),
            models.CheckConstraint(condition=Q(channel__in=Channel.values), name="conversation_channel_valid"),
            models.CheckConstraint(condition=Q(language__in=Language.values), name="conversation_language_valid"),
            models.CheckConstraint(condition=Q(failed_attempts__gte=0), name="conversation_failed_attempts_gte_0"),
            models.CheckConstraint(condition=Q(turn_count__gte=0), name="conversation_turn_count_gte_0"),
            models.CheckConstraint(
                condition=Q(resolution="") | Q(resolution__in=ResolutionReason.values),
                name="conversation_resolution_valid",
            ),
            # A human-owned chat always names its owner; a closed one records when it closed.
            models.CheckConstraint(
                condition=~Q(status=ConversationStatus.HUMAN) | Q(assigned_staff__isnull=False),
                name="conversation_human_has_staff",
            ),
            models.CheckConstraint(
                condition=~Q(status=ConversationStatus.CLOSED) | Q(closed_at__isnull=False),
                name="conversation_closed_has_closed_at",
            ),
            models.CheckConstraint(
                condition=Q(closed_by="") | Q(closed_by__in=ClosedBy.values), name="conversation_closed_by_valid"
            ),
        ]

    def __str__(self) -> str:
        return f"Conversation {self.pk} ({self.get_status_display()})"


class Rating(models.Model):
    """The customer's 1–5 rating of one closing of a chat (CSAT), credited to whoever handled it."""

    conversation = models.ForeignKey(Conversation, on_delete=models.CASCADE, related_name="ratings")
    closed_at = models.DateTimeField(help_text="The closing it rates: a chat reopened and closed again is rated again.")
    score = models.PositiveSmallIntegerField()
    comment = models.TextField(blank=True)
    staff = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="ratings",
        help_text="The person who last replied in the chat; empty when the assistant handled it alone.",
    )
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(fields=["conversation", "closed_at"], name="rating_once_per_closing"),
            models.CheckConstraint(condition=Q(score__gte=1, score__lte=5), name="rating_score_1_to_5"),
        ]

    def __str__(self) -> str:
        return f"{self.score}/5 for conversation {self.conversation_id}"


class Sender(models.TextChoices):
    CUSTOMER = "customer", _("Customer")
    BOT = "bot", _("Bot")
    AGENT = "agent", _("Agent")  # a human staff member
    SYSTEM = "system", _("System")


class Message(models.Model):
    conversation = models.ForeignKey(Conversation, on_delete=models.CASCADE, related_name="messages")
    sender = models.CharField(max_length=16, choices=Sender.choices)
    text = models.TextField()
    # Citations of a bot answer: [{"title", "url", "chunk_id"}].
    sources = models.JSONField(default=list, blank=True)
    metadata = models.JSONField(default=dict, blank=True)
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    # Set by the widget so that a resent message is stored once.
    client_id = models.CharField(max_length=64, blank=True)
    internal = models.BooleanField(default=False, help_text="A staff note the customer never sees.")
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["created_at", "id"]
        constraints = [
            models.CheckConstraint(condition=Q(sender__in=Sender.values), name="message_sender_valid"),
            models.CheckConstraint(
                condition=~Q(sender=Sender.AGENT) | Q(author__isnull=False), name="message_agent_has_author"
            ),
            models.UniqueConstraint(
                fields=["conversation", "client_id"],
                condition=~Q(client_id=""),
                name="message_client_id_unique_per_conversation",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.sender}: {self.text[:60]}"


class IntentLevel(models.TextChoices):
    RULE = "rule", _("Rule fast path")
    CACHE = "cache", _("Intent cache")
    LLM = "llm", "LLM"
    CLASSIFIER = "classifier", _("Offline classifier")


class IntentRecord(models.Model):
    """One recognised intent of one customer message, with the level that decided it."""

    conversation = models.ForeignKey(Conversation, on_delete=models.CASCADE, related_name="intent_records")
    message = models.ForeignKey(Message, null=True, blank=True, on_delete=models.CASCADE, related_name="intent_records")
    name = models.CharField(max_length=64)
    confidence = models.FloatField()
    level = models.CharField(max_length=16, choices=IntentLevel.choices)
    entities = models.JSONField(default=dict, blank=True)
    emotion_score = models.FloatField(default=0.0)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.CheckConstraint(
                condition=Q(confidence__gte=0) & Q(confidence__lte=1), name="intent_confidence_in_0_1"
            ),
            models.CheckConstraint(
                condition=Q(emotion_score__gte=0) & Q(emotion_score__lte=1), name="intent_emotion_in_0_1"
            ),
            models.CheckConstraint(condition=Q(level__in=IntentLevel.values), name="intent_level_valid"),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.confidence:.2f}, {self.level})"


class WorkflowKind(models.TextChoices):
    RETURN = "return", "Return"
    EXCHANGE = "exchange", "Exchange"
    REPAIR = "repair", "Repair"
    INVOICE = "invoice", "Invoice"
    CANCEL_ORDER = "cancel_order", "Cancel order"
    MODIFY_ORDER = "modify_order", "Modify order"
    VERIFY = "verify", "Verify identity"
    CALLBACK = "callback", "Callback contact"  # no staff online: collecting an email or phone


class WorkflowStatus(models.TextChoices):
    ACTIVE = "active", "Active"  # waiting for the customer's next slot
    COMPLETED = "completed", "Completed"
    CANCELLED = "cancelled", "Cancelled"  # the customer said 取消 / cancel
    EXPIRED = "expired", "Expired"  # no answer within the timeout
    QUEUED = "queued", "Queued"  # asked for in the same message as the active one; starts when that one ends


# The statuses a workflow moves between (conversations.services.workflow_save holds it to them): completed,
# cancelled and expired are final, so nothing can write twice or revive a request the customer ended.
WORKFLOW_MOVES: dict[str, frozenset[str]] = {
    WorkflowStatus.QUEUED: frozenset(
        {WorkflowStatus.QUEUED, WorkflowStatus.ACTIVE, WorkflowStatus.CANCELLED, WorkflowStatus.EXPIRED}
    ),
    WorkflowStatus.ACTIVE: frozenset(
        {WorkflowStatus.ACTIVE, WorkflowStatus.COMPLETED, WorkflowStatus.CANCELLED, WorkflowStatus.EXPIRED}
    ),
    WorkflowStatus.COMPLETED: frozenset(),
    WorkflowStatus.CANCELLED: frozenset(),
    WorkflowStatus.EXPIRED: frozenset(),
}


class WorkflowState(models.Model):
    """A multi-step workflow: the slots it collected (values the customer gave: order, items, reason…) and its
    progress (how it got there: words kept for later, questions asked, versions offered; agents.workflows.progress);
    a paused workflow resumes from here."""

    conversation = models.ForeignKey(Conversation, on_delete=models.CASCADE, related_name="workflows")
    kind = models.CharField(max_length=16, choices=WorkflowKind.choices)
    step = models.CharField(max_length=32, blank=True, help_text="The slot being asked for.")
    slots = models.JSONField(default=dict, blank=True)
    progress = models.JSONField(default=dict, blank=True)
    status = models.CharField(max_length=16, choices=WorkflowStatus.choices, default=WorkflowStatus.ACTIVE)
    expires_at = models.DateTimeField()
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-updated_at"]
        indexes = [models.Index(fields=["status", "expires_at"])]
        constraints = [
            models.CheckConstraint(condition=Q(kind__in=WorkflowKind.values), name="workflow_kind_valid"),
            models.CheckConstraint(condition=Q(status__in=WorkflowStatus.values), name="workflow_status_valid"),
            # One paused workflow at a time: a new topic replaces the old one, it never stacks.
            models.UniqueConstraint(
                fields=["conversation"],
                condition=Q(status=WorkflowStatus.ACTIVE),
                name="workflow_one_active_per_conversation",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} ({self.status}, step {self.step or '-'})"


class ApiScope(models.TextChoices):
    CHAT = "chat", "Conversations, messages, NLU"
    KB = "kb", "Knowledge search and uploads"
    TICKETS = "tickets", "Tickets and escalations"
    ADMIN = "admin", "Webhooks and settings"


def _default_scopes() -> list[str]:
    return [ApiScope.CHAT, ApiScope.KB, ApiScope.TICKETS]


class ApiKey(models.Model):
    """An integrator's key for the REST API; only a hash of the secret is stored."""

    name = models.CharField(max_length=100)
    prefix = models.CharField(max_length=12, unique=True, help_text="Shown in lists to tell keys apart.")
    key_hash = models.CharField(max_length=64, unique=True)
    scopes = ArrayField(
        models.CharField(max_length=16, choices=ApiScope.choices),
        default=_default_scopes,
        help_text="What the key may call: chat, kb, tickets, admin.",
    )
    rate_per_minute = models.PositiveIntegerField(
        null=True, blank=True, help_text="Requests per minute for this key; empty: API_REQUESTS_PER_MINUTE."
    )
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["name"]
        verbose_name = "API key"
        constraints = [
            models.CheckConstraint(condition=Q(scopes__contained_by=ApiScope.values), name="api_key_scopes_known"),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"


class OutboxEmail(models.Model):
    """Mail the store sent while no mail server is configured (conversations.mail.OutboxBackend)."""

    sender = models.CharField(max_length=254, blank=True)
    recipients = models.TextField()
    subject = models.CharField(max_length=998)
    body = models.TextField()
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.subject} → {self.recipients}"
