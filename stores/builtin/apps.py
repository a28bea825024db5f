from django.apps import AppConfig


class StoreConfig(AppConfig):
    name = "stores.builtin"
    label = "store"
    verbose_name = "Store"

    def ready(self) -> None:
        from stores.builtin import signals

        signals.connect()
