from django.apps import AppConfig
from django.db.models.signals import post_delete, post_save


class WebhooksConfig(AppConfig):
    name = "webhooks"
    verbose_name = "Webhooks"

    def ready(self) -> None:
        from webhooks.models import WebhookSubscription
        from webhooks.services import webhook_subscribers_changed

        post_save.connect(webhook_subscribers_changed, sender=WebhookSubscription)
        post_delete.connect(webhook_subscribers_changed, sender=WebhookSubscription)
