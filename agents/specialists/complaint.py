"""A complaint becomes a high-priority complaint ticket the customer can quote."""

from __future__ import annotations

from agents.answers import SpecialistContext, SpecialistResult
from agents.specialists import Specialist, register
from conversations.language import say
from conversations.models import Conversation
from tickets.models import TicketKind, TicketPriority
from tickets.services import ticket_create


@register
class Complaint(Specialist):
    name = "complaint"
    answers_in_transaction = True

    def run(self, ctx: SpecialistContext) -> SpecialistResult:
        conversation = Conversation.objects.select_related("customer").get(pk=ctx.conversation_id)
        order_ids = list(ctx.entities.get("order_ids") or [])
        ticket = ticket_create(
            kind=TicketKind.COMPLAINT,
            subject=ctx.message_text[:200],
            customer=conversation.customer,
            conversation=conversation,
            order_ref=order_ids[0] if order_ids else "",
            payload={"message": ctx.message_text, "entities": ctx.entities, "emotion_score": ctx.emotion_score},
            priority=TicketPriority.HIGH,
            # One subtask, one ticket, however often the subtask is retried.
            source_key=f"subtask:{ctx.subtask_id}",
        )
        text = say(
            ctx.language,
            "I'm sorry about this. I've filed your complaint as ticket %(ticket)s; our customer care team will get "
            "back to you within 4 hours.",
            ticket=ticket.reference,
        )
        return SpecialistResult(text=text, data={"ticket_id": ticket.pk, "ticket": ticket.reference})
