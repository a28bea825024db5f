"""WebSocket routes of every app."""

from typing import Any

websocket_urlpatterns: list[Any] = []
