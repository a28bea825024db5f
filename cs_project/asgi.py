"""ASGI entry point: HTTP through Django, WebSockets through Channels."""

import os
import sys
from typing import Any

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cs_project.settings.base")

from cs_project.config import ConfigError  # noqa: E402

try:
    from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler
    from django.core.asgi import get_asgi_application

    # Static files (the admin's CSS and JS, the widget script) are served by the app itself, so a
    # self-hosted install needs no separate web server; a CDN or proxy in front may cache them.
    django_asgi_app = ASGIStaticFilesHandler(get_asgi_application())
    from cs_project.preflight import services_check

    services_check()
except ConfigError as exc:
    sys.exit(f"error: {exc}")

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from daphne.http_protocol import WebRequest  # noqa: E402

from cs_project.routing import websocket_urlpatterns  # noqa: E402


def _leave_form_bodies_to_django(init: Any) -> Any:
    """Twisted parses every POSTed form body for daphne, which never uses the result, and answers a
    malformed multipart body with a bare 400 before the application sees it. Off, the API answers
    such a request itself, in its error shape."""

    def __init__(self: WebRequest, *args: Any, **kwargs: Any) -> None:
        init(self, *args, **kwargs)
        self._parsePOSTFormSubmission = False

    return __init__


WebRequest.__init__ = _leave_form_bodies_to_django(WebRequest.__init__)

application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        # Each route picks its own origin check: the widget runs on the store's domain, staff on ours.
        "websocket": URLRouter(websocket_urlpatterns),
    }
)
