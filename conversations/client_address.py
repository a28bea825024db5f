"""The client's address of a request, the one every address-keyed rule uses: login throttling (django-axes),
per-address limits, the web server's access log and the WebSocket scope's client (cs_project.web_server).

Without HTTPS_PROXY it is the TCP peer, REMOTE_ADDR. With it, X-Forwarded-For is read from the right: each
proxy appends the address it was connected from, so with TRUSTED_PROXY_COUNT proxies in front the entry that
many places from the right is the one the outermost trusted proxy saw. Everything left of it the client
wrote itself (a forged header with a new address on every try would otherwise escape any per-address rule),
so it is never read.
"""

from __future__ import annotations

import ipaddress

from django.conf import settings
from django.http import HttpRequest


def address_normalised(text: str) -> str | None:
    """`text` as one canonical IP address, or None when it is not one.

    Accepts what proxies write: `[2001:db8::1]:443` and `192.0.2.1:5678` (a port), surrounding spaces. An
    IPv4-mapped IPv6 address (`::ffff:192.0.2.1`, from a dual-stack socket) is the IPv4 address, so one client
    is one address however it was reached."""
    text = text.strip()
    if text.startswith("["):
        text = text[1:].partition("]")[0]
    elif text.count(":") == 1:
        text = text.partition(":")[0]
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return str(address.ipv4_mapped)
    return str(address)


def forwarded_client_address(forwarded_for: str, *, peer: str | None, proxy_count: int) -> str | None:
    """The address the outermost of `proxy_count` trusted proxies saw: the `proxy_count`-th entry of
    X-Forwarded-For from the right. When the header is shorter than that, or that entry is not an address
    (a proxy chain other than the one configured), the TCP peer's address: never an entry the client chose."""
    entries = [entry for entry in forwarded_for.split(",") if entry.strip()]
    if 1 <= proxy_count <= len(entries):
        address = address_normalised(entries[-proxy_count])
        if address is not None:
            return address
    return address_normalised(peer) if peer else None


def client_address(request: HttpRequest) -> str | None:
    """The client's IP address for `request` (canonical text), or None when the server gave none (a Unix
    socket). Also django-axes' AXES_CLIENT_IP_CALLABLE."""
    peer = request.META.get("REMOTE_ADDR") or None
    if not settings.HTTPS_PROXY:
        return address_normalised(peer) if peer else None
    return forwarded_client_address(
        request.META.get("HTTP_X_FORWARDED_FOR", ""), peer=peer, proxy_count=settings.TRUSTED_PROXY_COUNT
    )
