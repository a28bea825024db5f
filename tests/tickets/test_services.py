import itertools
from datetime import timedelta

import pytest
from django.utils import timezone

from tickets.models import TicketEvent
from tickets.services import TicketTransitionError, ticket_create, ticket_transition
from tickets.states import ALLOWED_TRANSITIONS, TicketStatus, transition_allowed

pytestmark = pytest.mark.django_db


def test_transition_table_covers_every_status_and_final_states_are_final() -> None:
    assert set(ALLOWED_TRANSITIONS) == set(TicketStatus)
    assert ALLOWED_TRANSITIONS[TicketStatus.CLOSED] == frozenset()
    assert ALLOWED_TRANSITIONS[TicketStatus.CANCELLED] == frozenset()
    assert not any(status in targets for status, targets in ALLOWED_TRANSITIONS.items())


def test_ticket_create_sets_sla_by_priority_and_writes_a_created_event() -> None:
    before = timezone.now()

    ticket = ticket_create(kind="complaint", subject="Rude courier", priority="high")

    assert ticket.status == TicketStatus.OPEN
    assert ticket.sla_due_at and before + timedelta(hours=4) <= ticket.sla_due_at <= timezone.now() + timedelta(hours=4)
    assert list(ticket.events.values_list("kind", "to_status")) == [("created", "open")]


@pytest.mark.parametrize(("from_", "to"), list(itertools.product(TicketStatus, TicketStatus)))
def test_ticket_transition_follows_the_table(from_: TicketStatus, to: TicketStatus) -> None:
    # given: a ticket sitting in `from_`
    ticket = ticket_create(kind="return", subject="Return #W1")
    ticket.__class__.objects.filter(pk=ticket.pk).update(status=from_)

    # when / then
    if transition_allowed(from_, to):
        assert ticket_transition(ticket_id=ticket.pk, from_=from_, to=to) is True
        ticket.refresh_from_db()
        assert ticket.status == to
        assert ticket.events.filter(kind="status_changed", from_status=from_, to_status=to).count() == 1
    else:
        with pytest.raises(TicketTransitionError):
            ticket_transition(ticket_id=ticket.pk, from_=from_, to=to)
        ticket.refresh_from_db()
        assert ticket.status == from_
        assert not ticket.events.filter(kind="status_changed").exists()


def test_ticket_transition_is_compare_and_set() -> None:
    ticket = ticket_create(kind="invoice", subject="Invoice for #W2")

    first = ticket_transition(ticket_id=ticket.pk, from_="open", to="in_progress")
    second = ticket_transition(ticket_id=ticket.pk, from_="open", to="in_progress")

    assert (first, second) == (True, False)
    assert TicketEvent.objects.filter(ticket=ticket, kind="status_changed").count() == 1


def test_resolving_stamps_resolved_at_and_reopening_clears_it() -> None:
    ticket = ticket_create(kind="repair", subject="Screen")

    ticket_transition(ticket_id=ticket.pk, from_="open", to="resolved")
    ticket.refresh_from_db()
    assert ticket.resolved_at is not None

    ticket_transition(ticket_id=ticket.pk, from_="resolved", to="in_progress", note="customer says it broke again")
    ticket.refresh_from_db()
    assert ticket.resolved_at is None
    assert ticket.events.last().note == "customer says it broke again"
