"""Staff teach a learned decision in the admin (agents.reading.staff): the example is checked, the decision is
fitted again by the real worker, and every process reads it from its next check on."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.cache import cache
from django.db import IntegrityError, transaction
from django.test import Client
from django.urls import reverse

from agents.models import DecisionExample
from agents.reading import decisions
from agents.reading.cancel_reason import CANCEL_REASON, cancel_reason
from agents.reading.decisions import taught_cache_key

# A store that counts a pre-order found out after paying as "no longer needed"; shipped, the decision reads it
# as a mistake.
PRE_ORDER = "拍下后才发现是预售"


@pytest.fixture
def staff(client: Client) -> Client:
    client.force_login(User.objects.create_superuser("teacher", "teacher@example.com", "pw"))
    return client


@pytest.fixture
def untaught() -> Iterator[None]:
    """What a test teaches is forgotten after it: by the cache, and by this process's held model."""
    yield
    cache.delete(taught_cache_key(CANCEL_REASON))
    decisions._fitted.pop(CANCEL_REASON.name, None)


def _taught(staff: Client, **fields: str) -> Any:
    form = {"decision": "cancel_reason", "label": "", "text": "", "why": "", "language": "", "active": "on"}
    return staff.post(reverse("admin:agents_decisionexample_add"), {**form, **fields})


@pytest.mark.django_db(transaction=True)
def test_an_example_taught_in_the_admin_is_read_by_every_process_after_the_worker_refits(
    staff: Client, celery_worker: Any, untaught: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert cancel_reason(PRE_ORDER) == "ordered by mistake"  # else the example proves nothing

    response = _taught(staff, label="no longer needed", text=PRE_ORDER, why="a pre-order found out after paying")

    assert response.status_code == 302, response.content.decode()[:2000]
    assert DecisionExample.objects.get(text=PRE_ORDER).language == "zh"  # read from the text
    deadline = time.monotonic() + 120
    while cache.get(taught_cache_key(CANCEL_REASON)) is None:  # the worker fits it on its own
        assert time.monotonic() < deadline, "the worker did not fit the taught decision"
        time.sleep(0.5)
    monkeypatch.setattr(decisions, "TAUGHT_CHECK_S", 0.0)  # this process looks at once, not within 30 s
    assert cancel_reason(PRE_ORDER) == "no longer needed"
    assert cancel_reason("I ordered it by mistake") == "ordered by mistake"  # the rest is read as before


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("fields", "said"),
    [
        ({"label": "maybe", "text": "oops", "why": "a slip"}, "cancel_reason reads ordered by mistake"),
        ({"label": "ordered by mistake", "text": "oops", "why": "  "}, "say why the example is there"),
        ({"label": "ordered by mistake", "text": "   ", "why": "a slip"}, "This field is required"),
    ],
)
def test_an_example_its_decision_cannot_learn_from_is_refused_in_the_admin(
    staff: Client, fields: dict[str, str], said: str
) -> None:
    response = _taught(staff, **fields)

    assert response.status_code == 200 and said in response.content.decode()
    assert not DecisionExample.objects.exists()


@pytest.mark.django_db
def test_the_database_keeps_one_example_per_text_and_no_empty_one() -> None:
    DecisionExample.objects.create(decision="change", language="en", text="the jacket", label="items", why="x")

    with pytest.raises(IntegrityError, match="decision_example_unique_text"), transaction.atomic():
        DecisionExample.objects.create(decision="change", language="en", text="the jacket", label="none", why="x")
    with pytest.raises(IntegrityError, match="decision_example_text_not_empty"), transaction.atomic():
        DecisionExample.objects.create(decision="change", language="en", text="", label="none", why="x")
