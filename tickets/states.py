"""Ticket statuses and the moves allowed between them (pure: no ORM)."""

from django.db import models
from django.utils.translation import gettext_lazy as _


class TicketStatus(models.TextChoices):
    OPEN = "open", _("Open")  # created, nobody works on it yet
    IN_PROGRESS = "in_progress", _("In progress")  # a staff member works on it
    WAITING_CUSTOMER = "waiting_customer", _("Waiting for customer")  # needs an answer from the shopper
    RESOLVED = "resolved", _("Resolved")  # done; the customer may still reopen it
    CLOSED = "closed", _("Closed")  # final
    CANCELLED = "cancelled", _("Cancelled")  # withdrawn before it was worked on to the end; final


ALLOWED_TRANSITIONS: dict[TicketStatus, frozenset[TicketStatus]] = {
    TicketStatus.OPEN: frozenset(
        {TicketStatus.IN_PROGRESS, TicketStatus.WAITING_CUSTOMER, TicketStatus.RESOLVED, TicketStatus.CANCELLED}
    ),
    TicketStatus.IN_PROGRESS: frozenset(
        {TicketStatus.WAITING_CUSTOMER, TicketStatus.RESOLVED, TicketStatus.CANCELLED, TicketStatus.OPEN}
    ),
    TicketStatus.WAITING_CUSTOMER: frozenset({TicketStatus.IN_PROGRESS, TicketStatus.RESOLVED, TicketStatus.CANCELLED}),
    TicketStatus.RESOLVED: frozenset({TicketStatus.CLOSED, TicketStatus.IN_PROGRESS}),
    TicketStatus.CLOSED: frozenset(),
    TicketStatus.CANCELLED: frozenset(),
}


def transition_allowed(from_: str, to: str) -> bool:
    return TicketStatus(to) in ALLOWED_TRANSITIONS[TicketStatus(from_)]
