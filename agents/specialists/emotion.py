"""A soothing first line for an upset customer; then the engine hands the chat to a person, or does
what the customer asked for when it can (agents.nodes.route.route_decide)."""

from __future__ import annotations

from agents.answers import SpecialistContext, SpecialistResult, localized
from agents.specialists import Specialist, register


def soothing_line(language: str, emotion_score: float) -> str:
    if emotion_score < 0.15:
        return localized(
            language,
            en="I'm really sorry - I can hear how frustrating this has been, and I want to get it fixed for you.",
            zh="非常抱歉给您带来这么糟糕的体验，我完全理解您的心情，我们一定会尽力帮您解决。",
        )
    return localized(
        language,
        en="I'm sorry about the trouble. Let's sort this out together.",
        zh="很抱歉给您添麻烦了，我们一起把问题解决好。",
    )


@register
class Emotion(Specialist):
    name = "emotion"
    answers_in_transaction = True

    def run(self, ctx: SpecialistContext) -> SpecialistResult:
        return SpecialistResult(text=soothing_line(ctx.language, ctx.emotion_score))
