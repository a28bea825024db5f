from typing import Any

from django import template

from conversation_tests.selectors import latest_full_run

register = template.Library()


@register.inclusion_tag("admin/conversation_tests/_last_run.html")
def test_run_banner() -> dict[str, Any]:
    """The last full run, shown where staff look first (the admin's home, the dashboard) when it failed."""
    return {"run": latest_full_run()}
