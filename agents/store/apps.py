from django.apps import AppConfig


class StoreConfig(AppConfig):
    name = "agents.store"
    label = "store"
    verbose_name = "Store"

    def ready(self) -> None:
        from agents.store import signals

        signals.connect()
