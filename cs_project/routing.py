"""WebSocket routes of every app, and what they hand work to: the widget's messages go to the engine."""

from typing import Any

from channels.auth import AuthMiddlewareStack
from channels.security.websocket import AllowedHostsOriginValidator
from django.urls import path

from agents.services import customer_message_handle
from conversations.consumers import WidgetConsumer
from tickets.consumers import StaffConsumer

websocket_urlpatterns: list[Any] = [
    # Token-authenticated and embedded on the store's own site: any origin.
    path("ws/widget", WidgetConsumer.as_asgi(message_handle=customer_message_handle)),
    # Session cookie: only from our own pages.
    path("ws/staff", AllowedHostsOriginValidator(AuthMiddlewareStack(StaffConsumer.as_asgi()))),
]
