"""Real-browser fixtures: Django's live server, Debian's chromium driven by Playwright, a logged-in staff user,
and the real ASGI server (HTTP + WebSockets) for the chat widget.

Chromium and a CJK font come from Debian (`make test` installs them through scripts/ensure_browser); never
`playwright install`. Missing, the browser tests skip on a developer's machine and fail under CI.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect, sync_playwright

from tests.conftest import BASE_DIR, AsgiServer

CHROMIUM = Path("/usr/bin/chromium")
STAFF_PASSWORD = "browser-pw-1"
SCREENSHOTS = BASE_DIR / "var" / "test-screenshots"

# Two cores shared with Postgres, Redis, the worker and chromium: give assertions more than the 5 s default.
expect.set_options(timeout=10_000)


def _missing() -> str:
    """What the browser tests lack on this machine, or ''."""
    if not CHROMIUM.exists():
        return f"{CHROMIUM} (Debian package chromium)"
    fc_list = shutil.which("fc-list")
    if not fc_list or not subprocess.run([fc_list, ":lang=zh", "family"], capture_output=True, text=True).stdout:
        return "a Chinese font (Debian package fonts-wqy-zenhei)"
    return ""


def _in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


@pytest.fixture(scope="package")
def browser() -> Iterator[Browser]:
    """One chromium for the browser tests.

    Package-scoped, not session-scoped, on purpose: while Playwright's sync API is started, its asyncio loop
    counts as running in the main thread, which would break every later pytest-asyncio test and make Django
    refuse ORM calls ("async context"). So it lives only as long as tests/browser runs, and for that time
    Django's async-safety check is switched off (the ORM calls are plain synchronous ones in this thread).
    """
    missing = _missing()
    if missing:
        message = f"browser tests need {missing}: run scripts/ensure_browser as root (make test does)"
        if _in_ci():
            pytest.fail(message, pytrace=False)
        pytest.skip(message)
    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    try:
        with sync_playwright() as playwright:
            chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox"])
            yield chromium
            chromium.close()
    finally:
        if previous is None:
            os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        else:
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = previous


@pytest.fixture
def page(browser: Browser, live_server: Any) -> Iterator[Page]:
    """A fresh browser context (no cookies) whose relative URLs go to the live server."""
    context = browser.new_context(base_url=live_server.url, locale="en-US", viewport={"width": 1280, "height": 900})
    context.set_default_timeout(10_000)
    yield context.new_page()
    context.close()


@pytest.fixture
def page_problems(page: Page) -> list[str]:
    """JavaScript errors, failed requests and 4xx/5xx responses seen by `page`; a test asserts it stays empty."""
    problems: list[str] = []
    page.on("pageerror", lambda error: problems.append(f"JS error: {error}"))
    page.on(
        "requestfailed",
        # ERR_ABORTED: a navigation (a form submitted, a reload) cancelled loads still under way; not a fault.
        lambda request: None if request.failure == "net::ERR_ABORTED" else problems.append(f"failed: {request.url}"),
    )
    page.on("response", lambda r: problems.append(f"{r.status}: {r.url}") if r.status >= 400 else None)
    return problems


@pytest.fixture
def staff_login(live_server: Any) -> Callable[..., Any]:
    """Log `page` in through the admin login form as a new staff user with the knowledge app's permissions."""

    def login(page: Page, *, username: str = "kb_staff", actions: tuple[str, ...] = ("view", "change", "add")) -> Any:
        from django.contrib.auth.models import Permission, User

        user = User.objects.create_user(username, password=STAFF_PASSWORD, is_staff=True)
        user.user_permissions.set(
            Permission.objects.filter(content_type__app_label="knowledge", codename__regex=rf"^({'|'.join(actions)})_")
        )
        page.goto("/admin/login/?next=/admin/")
        page.fill("#id_username", username)
        page.fill("#id_password", STAFF_PASSWORD)
        page.get_by_role("button", name="Log in").click()
        expect(page.locator("#user-tools")).to_contain_text(username)
        return user

    return login


def console_login(page: Page, username: str, password: str) -> Page:
    """Log `page` in through the admin login form to the live console, and wait until it is connected."""
    page.goto("/admin/login/?next=/admin/console/")
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    page.click("input[type=submit]")
    expect(page.get_by_test_id("console-live")).to_have_attribute("data-state", "live")
    return page


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    """Remember each phase's outcome on the test item, so a fixture can tell a failed test at teardown."""
    report = yield
    setattr(item, f"report_{report.when}", report)
    return report


@pytest.fixture
def widget_pages(browser: Browser, asgi_server: AsgiServer, request: pytest.FixtureRequest) -> Iterator[Any]:
    """Open pages on the ASGI server: `widget_pages(width=…, height=…, locale=…)` → a Page.

    Each call is a fresh browser context (its own localStorage). JavaScript errors, failed requests and
    4xx/5xx responses are collected in `widget_pages.problems`. When the test fails, every open page is
    saved as a screenshot under var/test-screenshots/."""
    contexts: list[BrowserContext] = []
    pages: list[Page] = []
    problems: list[str] = []

    def open_page(*, width: int = 1280, height: int = 900, locale: str = "en-US") -> Page:
        context = browser.new_context(
            base_url=asgi_server.url, locale=locale, viewport={"width": width, "height": height}
        )
        context.set_default_timeout(10_000)
        contexts.append(context)
        page = context.new_page()
        page.on("pageerror", lambda error: problems.append(f"JS error: {error}"))
        page.on(
            "requestfailed",
            lambda r: None if r.failure == "net::ERR_ABORTED" else problems.append(f"failed: {r.url} {r.failure}"),
        )
        page.on("response", lambda r: problems.append(f"{r.status}: {r.url}") if r.status >= 400 else None)
        pages.append(page)
        return page

    open_page.problems = problems  # type: ignore[attr-defined]
    open_page.server = asgi_server  # type: ignore[attr-defined]
    yield open_page
    report = getattr(request.node, "report_call", None)
    if report is not None and report.failed:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        name = re.sub(r"[^\w.-]+", "_", request.node.name)
        for index, page in enumerate(pages):
            try:
                page.screenshot(path=str(SCREENSHOTS / f"{name}-{index}.png"), full_page=True)
            except Exception:  # noqa: BLE001 - a screenshot must never hide the test's own failure
                pass
    for context in contexts:
        context.close()
