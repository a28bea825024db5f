"""The group staff logins join: what a support agent may do in the admin and the console."""

from __future__ import annotations

from django.contrib.auth.models import Group, Permission
from django.db import transaction

SUPPORT_GROUP = "Support staff"
# Staff work conversations and tickets and read the store and the knowledge base.
SUPPORT_PERMISSIONS = {
    "conversations": ("view", "change", "add", "take"),  # take: take_over_conversation, the live console
    "tickets": ("view", "change", "add"),
    "store": ("view",),
    "knowledge": ("view", "change", "add"),
}
# Staff teach the intent classifier (README: Agents › Intent exemplars); the rest of the engine's tables are
# not theirs.
SUPPORT_MODEL_PERMISSIONS = {("agents", "intentexemplar"): ("view", "change", "add")}
# API keys decide what an integration may call (up to `admin`): superusers only.
SUPERUSER_MODELS = {("conversations", "apikey")}


def support_group_ensure() -> Group:
    """The support group with exactly its permissions (created or brought up to date; idempotent)."""
    with transaction.atomic():
        group, _ = Group.objects.get_or_create(name=SUPPORT_GROUP)
        by_app = [
            permission
            for app_label, actions in SUPPORT_PERMISSIONS.items()
            for permission in Permission.objects.filter(content_type__app_label=app_label).select_related(
                "content_type"
            )
            if permission.codename.split("_", 1)[0] in actions
            and (app_label, permission.content_type.model) not in SUPERUSER_MODELS
        ]
        by_model = [
            permission
            for (app_label, model), actions in SUPPORT_MODEL_PERMISSIONS.items()
            for permission in Permission.objects.filter(content_type__app_label=app_label, content_type__model=model)
            if permission.codename.split("_", 1)[0] in actions
        ]
        group.permissions.set(by_app + by_model)
    return group
