"""Whether any staff member is online: a console request in the last STAFF_ONLINE_WINDOW_S."""

from __future__ import annotations

import time

from django.conf import settings
from django.core.cache import cache

_KEY = "staff:presence"


def staff_seen(*, user_id: int) -> None:
    presence = cache.get(_KEY) or {}
    now = time.time()
    presence = {uid: seen for uid, seen in presence.items() if now - seen < settings.STAFF_ONLINE_WINDOW_S}
    presence[user_id] = now
    cache.set(_KEY, presence, timeout=settings.STAFF_ONLINE_WINDOW_S)


def staff_online_ids() -> set[int]:
    presence = cache.get(_KEY) or {}
    now = time.time()
    return {uid for uid, seen in presence.items() if now - seen < settings.STAFF_ONLINE_WINDOW_S}


def staff_online_count() -> int:
    return len(staff_online_ids())
