"""A soothing first line for an upset customer; then the engine hands the chat to a person, or does
what the customer asked for when it can (agents.nodes.route.route_decide)."""

from __future__ import annotations

from agents.answers import SpecialistContext, SpecialistResult
from agents.specialists import Specialist, register
from conversations.language import say


def soothing_line(language: str, emotion_score: float) -> str:
    if emotion_score < 0.15:
        return say(
            language,
            "I'm really sorry - I can hear how frustrating this has been, and I want to get it fixed for you.",
        )
    return say(language, "I'm sorry about the trouble. Let's sort this out together.")


@register
class Emotion(Specialist):
    name = "emotion"
    answers_in_transaction = True

    def run(self, ctx: SpecialistContext) -> SpecialistResult:
        return SpecialistResult(text=soothing_line(ctx.language, ctx.emotion_score))
