"""What the customer hears when the chat goes to a person, or when nobody is online."""

from __future__ import annotations

from agents.answers import SpecialistContext, SpecialistResult
from agents.specialists import Specialist, register
from conversations.language import say
from tickets.presence import staff_online_count


def handoff_line(language: str) -> str:
    return say(
        language,
        "I'm bringing in a colleague now. They can see our whole conversation, so you won't need to repeat anything.",
    )


def nobody_online_line(language: str) -> str:
    return say(
        language,
        "None of my colleagues is online right now. Leave me an email address or phone number and we'll "
        "get back to you as soon as someone is in.",
    )


def callback_confirmed_line(language: str, contact: str, reference: str) -> str:
    return say(
        language, "Thank you - we'll contact you at %(contact)s (ticket %(ticket)s).", contact=contact, ticket=reference
    )


@register
class Human(Specialist):
    name = "human"
    answers_in_transaction = True

    def run(self, ctx: SpecialistContext) -> SpecialistResult:
        online = staff_online_count() > 0
        return SpecialistResult(
            text=handoff_line(ctx.language) if online else nobody_online_line(ctx.language),
            data={"staff_online": online},
        )
