"""ASGI entry point: HTTP through Django, WebSockets through Channels."""

import os
import sys

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cs_project.settings.base")

from cs_project.config import ConfigError  # noqa: E402

try:
    import django
    from asgiref.sync import sync_to_async
    from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler
    from django.core.handlers.asgi import ASGIHandler
    from django.http import HttpRequest, HttpResponseBase

    class SyncChainHandler(ASGIHandler):
        """Django's ASGI handler with the middleware chain and the view run as under WSGI, in one hop to the
        request's thread. Every middleware here is sync (LockoutMiddleware is made so), and so is every view.
        Django's async path went to the thread for the middleware, back to the event loop for the chain's inner
        handler, and to the thread again for the view: three hops a request, a third of an API request's CPU
        spent outside it."""

        def __init__(self) -> None:  # not ASGIHandler's: it loads the async chain, unused here
            self.load_middleware(is_async=False)

        async def get_response_async(self, request: HttpRequest) -> HttpResponseBase:
            return await sync_to_async(self.get_response, thread_sensitive=True)(request)

    class StaticFilesHandler(ASGIStaticFilesHandler):
        """Static files (the admin's CSS and JS, the widget script) are served by the app itself,
        so a self-hosted install needs no separate web server; a CDN or proxy in front may cache
        them. They skip the middleware, so they get `nosniff` here: a browser must run widget.js
        only as the JavaScript it is."""

        async def get_response_async(self, request: HttpRequest) -> HttpResponseBase:
            response = await super().get_response_async(request)
            response.headers.setdefault("X-Content-Type-Options", "nosniff")
            return response

    django.setup(set_prefix=False)  # as get_asgi_application()
    django_asgi_app = StaticFilesHandler(SyncChainHandler())
    from cs_project.preflight import services_check

    services_check()
except ConfigError as exc:
    sys.exit(f"error: {exc}")

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402

from cs_project.routing import websocket_urlpatterns  # noqa: E402

application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        # Each route picks its own origin check: the widget runs on the store's domain, staff on ours.
        "websocket": URLRouter(websocket_urlpatterns),
    }
)
