from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

from tickets.presence import staff_seen


class StaffPresenceMiddleware:
    """Marks a staff member online on every request they make to the console (the admin)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated and user.is_staff and request.path.startswith("/admin/"):
            staff_seen(user_id=user.pk)
        return self.get_response(request)
