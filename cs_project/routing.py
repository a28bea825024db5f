"""WebSocket routes of every app."""

from typing import Any

from django.urls import path

from conversations.consumers import WidgetConsumer

websocket_urlpatterns: list[Any] = [
    path("ws/widget", WidgetConsumer.as_asgi()),
]
