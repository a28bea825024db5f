from django.apps import AppConfig


class ConversationTestsConfig(AppConfig):
    name = "conversation_tests"
    verbose_name = "Conversation tests"
    default_auto_field = "django.db.models.BigAutoField"
