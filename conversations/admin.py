"""The conversations' admin pages: customers, conversations and their transcripts, the engine state kept with
them. State is shown read-only and changed only through actions that call conversations.services, the
same ones the staff console and the API use, so every change is checked, recorded and announced."""

from collections.abc import Callable
from typing import Any

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from conversations.api_keys import api_keys_revoke
from conversations.models import (
    ApiKey,
    Conversation,
    Customer,
    IntentRecord,
    Message,
    OutboxEmail,
    Rating,
    ResolutionReason,
    WorkflowState,
    WorkflowStatus,
)
from conversations.services import (
    ConversationStateError,
    conversation_hand_back,
    conversation_resolve,
    conversation_take_over,
    customer_details_change,
    workflow_save,
)


class ReadOnlyAdmin(admin.ModelAdmin):
    """Rows shown, never added, edited or deleted here: a record of what happened (messages, audit rows) or
    state with its own rules of change (the actions of each page)."""

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class ReadOnlyInline(admin.TabularInline):
    extra = 0
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


def each_through_service(
    modeladmin: admin.ModelAdmin,
    request: HttpRequest,
    queryset: QuerySet[Any],
    change: Callable[[Any], object],
    done: str,
) -> None:
    """Run one service call per selected row; a refusal (the row's state does not allow it) is reported."""
    changed, refused = 0, []
    for row in queryset:
        try:
            change(row)
            changed += 1
        except ConversationStateError as error:
            refused.append(f"#{row.pk}: {error}")
    if changed:
        modeladmin.message_user(request, f"{changed} {done}.", messages.SUCCESS)
    if refused:
        modeladmin.message_user(request, "; ".join(refused), messages.WARNING)


@admin.register(Customer)
class CustomerAdmin(admin.ModelAdmin):
    """Contact details can be put right; who the customer is (their external id) and whether it was proven
    (a signed identity, the API) are not staff's to change."""

    list_display = ["external_id", "display_name", "email", "phone", "locale", "verified", "created_at"]
    list_filter = ["verified", "locale"]
    search_fields = ["external_id", "name", "first_name", "last_name", "email", "phone"]
    fields = ["external_id", "name", "first_name", "last_name", "email", "phone", "locale", "verified", "created_at"]
    readonly_fields = ["external_id", "verified", "created_at"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # customers come from chats, the API and store imports

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def save_model(self, request: HttpRequest, obj: Customer, form: Any, change: bool) -> None:
        customer_details_change(customer_id=obj.pk, **{name: form.cleaned_data[name] for name in form.changed_data})


class MessageInline(ReadOnlyInline):
    model = Message
    fields = readonly_fields = ("created_at", "sender", "text", "internal")
    show_change_link = True


@admin.register(Conversation)
class ConversationAdmin(ReadOnlyAdmin):
    list_display = [
        "id",
        "customer",
        "status",
        "assigned_staff",
        "language",
        "current_intent",
        "failed_attempts",
        "turn_count",
        "closed_by",
        "updated_at",
    ]
    list_filter = ["status", "closed_by", "language", "channel", "assigned_staff"]
    search_fields = ["id", "customer__external_id", "customer__name", "customer__email", "current_intent"]
    list_select_related = ["customer", "assigned_staff"]
    date_hierarchy = "created_at"
    inlines = [MessageInline]
    actions = ["take_over", "hand_back", "close"]

    def has_act_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("conversations.change_conversation")

    @admin.action(description="Take over the selected chats (the bot stops answering)", permissions=["act"])
    def take_over(self, request: HttpRequest, queryset: QuerySet[Conversation]) -> None:
        def change(c: Conversation) -> object:
            return conversation_take_over(conversation_id=c.pk, staff=request.user)  # type: ignore[arg-type]

        each_through_service(self, request, queryset, change, "chat(s) taken over")

    @admin.action(description="Hand the selected chats back to the bot", permissions=["act"])
    def hand_back(self, request: HttpRequest, queryset: QuerySet[Conversation]) -> None:
        def change(c: Conversation) -> object:
            return conversation_hand_back(conversation_id=c.pk, staff=request.user)  # type: ignore[arg-type]

        each_through_service(self, request, queryset, change, "chat(s) handed back")

    @admin.action(description="Close the selected chats (other reason)", permissions=["act"])
    def close(self, request: HttpRequest, queryset: QuerySet[Conversation]) -> None:
        def change(c: Conversation) -> object:
            return conversation_resolve(
                conversation_id=c.pk,
                reason=ResolutionReason.OTHER,
                note="closed in the admin",
                staff=request.user,  # type: ignore[arg-type]
            )

        each_through_service(self, request, queryset, change, "chat(s) closed")


@admin.register(Message)
class MessageAdmin(ReadOnlyAdmin):
    list_display = ["id", "conversation", "sender", "short_text", "internal", "created_at"]
    list_filter = ["sender", "internal"]
    search_fields = ["text", "conversation__id", "conversation__customer__external_id"]
    list_select_related = ["conversation"]

    @admin.display(description="text")
    def short_text(self, obj: Message) -> str:
        return obj.text[:80]


@admin.register(Rating)
class RatingAdmin(ReadOnlyAdmin):
    """What customers said of their chats (CSAT): read here, counted in the analytics."""

    list_display = ["id", "conversation", "score", "comment", "staff", "created_at"]
    list_filter = ["score", "staff"]
    search_fields = ["comment", "conversation__id", "conversation__customer__external_id"]
    list_select_related = ["conversation", "staff"]
    date_hierarchy = "created_at"


@admin.register(IntentRecord)
class IntentRecordAdmin(ReadOnlyAdmin):
    list_display = ["id", "conversation", "name", "confidence", "level", "emotion_score", "created_at"]
    list_filter = ["level", "name"]
    search_fields = ["name", "conversation__id", "message__text"]


@admin.register(WorkflowState)
class WorkflowStateAdmin(ReadOnlyAdmin):
    list_display = ["id", "conversation", "kind", "step", "status", "expires_at", "updated_at"]
    list_filter = ["kind", "status"]
    search_fields = ["conversation__id", "conversation__customer__external_id", "step"]
    actions = ["cancel"]

    def has_act_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("conversations.change_workflowstate")

    @admin.action(description="Cancel the selected workflows (the customer starts over)", permissions=["act"])
    def cancel(self, request: HttpRequest, queryset: QuerySet[WorkflowState]) -> None:
        # an ended workflow cannot move to cancelled (WORKFLOW_MOVES): workflow_save leaves it as it is
        cancelled = sum(
            workflow_save(state.pk, only_if=state.status, status=WorkflowStatus.CANCELLED, step="")
            for state in queryset
        )
        self.message_user(request, f"{cancelled} workflow(s) cancelled.", messages.SUCCESS)


@admin.register(ApiKey)
class ApiKeyAdmin(admin.ModelAdmin):
    """Keys are created with `manage.py create_api_key NAME` (the secret is shown once).

    A key's scopes decide what an integration may do, up to `admin`, so only superusers see or
    change keys, whatever permissions a staff login was given."""

    list_display = ["name", "prefix", "scopes", "created_at", "last_used_at", "revoked_at"]
    list_filter = ["revoked_at"]
    search_fields = ["name", "prefix"]
    readonly_fields = ["prefix", "key_hash", "created_at", "last_used_at"]

    actions = ["revoke"]

    def has_add_permission(self, request: object) -> bool:
        return False

    def has_view_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return request.user.is_active and request.user.is_superuser

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return request.user.is_active and request.user.is_superuser

    def has_delete_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return request.user.is_active and request.user.is_superuser

    def has_module_permission(self, request: HttpRequest) -> bool:
        return True  # the conversations app's other models are for staff

    @admin.action(description="Revoke the selected keys", permissions=["change"])
    def revoke(self, request: HttpRequest, queryset: QuerySet[ApiKey]) -> None:
        revoked = api_keys_revoke(key_ids=list(queryset.values_list("pk", flat=True)))
        self.message_user(request, f"{revoked} key(s) revoked.", messages.SUCCESS)


@admin.register(OutboxEmail)
class OutboxEmailAdmin(admin.ModelAdmin):
    """Mail sent while no mail server is configured (EMAIL_HOST): the verification codes of the demo."""

    list_display = ["created_at", "recipients", "subject"]
    search_fields = ["recipients", "subject"]
    fields = readonly_fields = ("created_at", "sender", "recipients", "subject", "body")

    def has_add_permission(self, request: object) -> bool:
        return False

    def has_change_permission(self, request: object, obj: object = None) -> bool:
        return False
