import pytest

from tests.constraints import assert_rejected
from tests.factories import ConversationFactory
from tickets.models import CannedResponse, EscalationCard, Ticket, TicketEvent

pytestmark = pytest.mark.django_db


def test_ticket_rejects_unknown_kind_status_and_priority() -> None:
    assert_rejected(lambda: Ticket.objects.create(kind="refund-ish", subject="x"), "ticket_kind_valid")
    assert_rejected(lambda: Ticket.objects.create(kind="return", subject="x", status="done"), "ticket_status_valid")
    assert_rejected(lambda: Ticket.objects.create(kind="return", subject="x", priority="asap"), "ticket_priority_valid")


def test_ticket_event_kind_and_card_reason_must_be_known() -> None:
    ticket = Ticket.objects.create(kind="general", subject="x")

    assert_rejected(lambda: TicketEvent.objects.create(ticket=ticket, kind="poked"), "ticket_event_kind_valid")
    assert_rejected(
        lambda: EscalationCard.objects.create(conversation=ConversationFactory.create(), reason="bored", summary="s"),
        "card_reason_valid",
    )


def test_canned_response_shortcut_is_unique_per_language() -> None:
    CannedResponse.objects.create(title="Hi", shortcut="hi", language="en", text="Hello")
    CannedResponse.objects.create(title="你好", shortcut="hi", language="zh", text="您好")

    assert_rejected(
        lambda: CannedResponse.objects.create(title="Hi", shortcut="hi", language="en", text="Hey"),
        "canned_response_shortcut_language_unique",
    )
    assert_rejected(
        lambda: CannedResponse.objects.create(title="Salut", shortcut="salut", language="fr", text="Salut"),
        "canned_response_language_valid",
    )


def test_ticket_reference_is_zero_padded() -> None:
    ticket = Ticket.objects.create(kind="general", subject="x")

    assert ticket.reference == f"T-{ticket.pk:06d}"
