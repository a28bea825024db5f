"""What the customer hears when the chat goes to a person, or when nobody is online."""

from __future__ import annotations

from agents.answers import SpecialistContext, SpecialistResult, localized
from agents.specialists import Specialist, register
from tickets.presence import staff_online_count


def handoff_line(language: str) -> str:
    return localized(
        language,
        en="I'm bringing in a colleague now. They can see our whole conversation, so you won't need to repeat "
        "anything.",
        zh="正在为您转接人工客服，同事能看到我们之前的全部对话，您无需重复描述。",
    )


def nobody_online_line(language: str) -> str:
    return localized(
        language,
        en="None of my colleagues is online right now. Leave me an email address or phone number and we'll "
        "get back to you as soon as someone is in.",
        zh="目前暂无人工客服在线。请留下您的邮箱或手机号，同事上线后会第一时间联系您。",
    )


def callback_confirmed_line(language: str, contact: str, reference: str) -> str:
    return localized(
        language,
        en=f"Thank you - we'll contact you at {contact} (ticket {reference}).",
        zh=f"好的，我们会通过 {contact} 联系您（工单 {reference}）。",
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
