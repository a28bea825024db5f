"""/api/docs/ in a real browser: Swagger UI, served by the project itself, lists the API."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import expect


def test_the_api_docs_page_lists_every_group_of_endpoints_without_the_internet(widget_pages: Any) -> None:
    page = widget_pages()
    outside: list[str] = []
    page.on("request", lambda r: None if r.url.startswith(widget_pages.server.url) else outside.append(r.url))

    page.goto("/api/docs/")

    expect(page.get_by_text("Customer service API").first).to_be_visible()
    for path in ("/api/v1/conversations", "/api/v1/tickets", "/api/v1/kb/search", "/api/v1/webhooks"):
        expect(page.locator(".opblock-summary-path", has_text=path).first).to_be_visible()
    assert outside == [] and widget_pages.problems == []
