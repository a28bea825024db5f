from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from conversations.api_keys import api_keys_revoke
from conversations.models import ApiKey, Conversation, Customer, IntentRecord, Message, OutboxEmail, WorkflowState


@admin.register(Customer)
class CustomerAdmin(admin.ModelAdmin):
    list_display = ["external_id", "display_name", "email", "phone", "locale", "verified", "created_at"]
    list_filter = ["verified", "locale"]
    search_fields = ["external_id", "name", "first_name", "last_name", "email", "phone"]


class MessageInline(admin.TabularInline):
    model = Message
    fields = ["created_at", "sender", "text", "internal"]
    readonly_fields = ["created_at"]
    extra = 0
    show_change_link = True


@admin.register(Conversation)
class ConversationAdmin(admin.ModelAdmin):
    list_display = [
        "id",
        "customer",
        "status",
        "assigned_staff",
        "language",
        "current_intent",
        "failed_attempts",
        "turn_count",
        "updated_at",
    ]
    list_filter = ["status", "language", "channel", "assigned_staff"]
    search_fields = ["id", "customer__external_id", "customer__name", "customer__email", "current_intent"]
    list_select_related = ["customer", "assigned_staff"]
    raw_id_fields = ["customer"]
    date_hierarchy = "created_at"
    inlines = [MessageInline]


@admin.register(Message)
class MessageAdmin(admin.ModelAdmin):
    list_display = ["id", "conversation", "sender", "short_text", "internal", "created_at"]
    list_filter = ["sender", "internal"]
    search_fields = ["text", "conversation__id", "conversation__customer__external_id"]
    raw_id_fields = ["conversation", "author"]
    list_select_related = ["conversation"]

    @admin.display(description="text")
    def short_text(self, obj: Message) -> str:
        return obj.text[:80]


@admin.register(IntentRecord)
class IntentRecordAdmin(admin.ModelAdmin):
    list_display = ["id", "conversation", "name", "confidence", "level", "emotion_score", "created_at"]
    list_filter = ["level", "name"]
    search_fields = ["name", "conversation__id", "message__text"]
    raw_id_fields = ["conversation", "message"]


@admin.register(WorkflowState)
class WorkflowStateAdmin(admin.ModelAdmin):
    list_display = ["id", "conversation", "kind", "step", "status", "expires_at", "updated_at"]
    list_filter = ["kind", "status"]
    search_fields = ["conversation__id", "conversation__customer__external_id", "step"]
    raw_id_fields = ["conversation"]


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
    fields = ["created_at", "sender", "recipients", "subject", "body"]
    readonly_fields = fields

    def has_add_permission(self, request: object) -> bool:
        return False

    def has_change_permission(self, request: object, obj: object = None) -> bool:
        return False
