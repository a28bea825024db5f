from django.apps import AppConfig


class AgentsConfig(AppConfig):
    name = "agents"
    verbose_name = "Agents"

    def ready(self) -> None:
        from agents.services import customer_message_handle
        from conversations.widget import inbound_handler_register

        # The widget's socket lives in conversations, below the engine: the engine plugs itself in.
        inbound_handler_register(customer_message_handle)
