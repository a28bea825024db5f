"""A private question paused until the customer proves their account (CHAT_VERIFICATION), and what
to tell them meanwhile. Below the business specialist and the workflow runner, which both use it."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.utils import timezone

from agents.answers import localized
from agents.verification import CODE_TTL, Proof, ProofStatus
from conversations.models import WorkflowKind, WorkflowStatus
from conversations.services import workflow_open, workflows_end

# A paused request (or a workflow waiting for an answer) is dropped after this long without one.
IDLE_TIMEOUT = timedelta(minutes=10)


def workflow_verify_start(
    *, conversation_id: int, intent: str, text: str, step: str = "email", code_sent_to: str = ""
) -> None:
    """Pause a private question until the customer is verified; it is answered right after. `step` is
    what is awaited: the account's details, or the code just emailed to `code_sent_to`."""
    workflows_end(
        conversation_id=conversation_id,
        status=WorkflowStatus.ACTIVE,
        to=WorkflowStatus.CANCELLED,
        keep_kind=WorkflowKind.CALLBACK,
    )
    workflow_open(
        conversation_id=conversation_id,
        kind=WorkflowKind.VERIFY,
        step=step,
        slots={"intent": intent, "text": text, **({"_code_sent_to": code_sent_to} if code_sent_to else {})},
        expires_at=timezone.now() + IDLE_TIMEOUT,
    )


# What to tell a customer whose last message proved no account yet, by what it did prove: (English,
# Chinese, the slot then awaited). {to} is the masked address a code went to.
_IDENTITY_REPLIES = {
    ProofStatus.CODE_SENT: (
        "I've emailed a 6-digit code to {to}. Please type it here (valid for {minutes} minutes).",
        "验证码已发送至 {to}，请在这里输入 6 位验证码（{minutes} 分钟内有效）。",
        "code",
    ),
    ProofStatus.CODE_EXPIRED: (
        "That code has expired, so I've emailed a new one to {to}. Please type it here.",
        "验证码已过期，新的验证码已发送至 {to}，请在这里输入。",
        "code",
    ),
    ProofStatus.CODE_WRONG: (
        "That code isn't right ({tries} tries left). Please type the 6-digit code from the email.",
        "验证码不正确（还可尝试 {tries} 次），请输入邮件中的 6 位验证码。",
        "code",
    ),
    ProofStatus.CODE_SPENT: ("That code can't be used any more. {ask}", "该验证码已失效。{ask}", "email"),
    ProofStatus.CODE_UNSENDABLE: (
        "I can't send a code to that account right now. A colleague can confirm it's you: just say 'talk to a person'.",
        "暂时无法向该账户发送验证码。人工客服可以帮您核实身份，请说“转人工”。",
        "email",
    ),
    ProofStatus.SIGN_IN: (
        "For your security I can only look at or change orders once you're signed in to the store. "
        "Please sign in and open the chat again, or ask for a colleague.",
        "为保护您的账户安全，需要先登录商城才能查询或办理订单。请登录后重新打开对话，或联系人工客服。",
        "email",
    ),
}


def identity_question(language: str, proof: Proof | None = None, ask: str = "") -> tuple[str, str]:
    """What to tell a customer who has not proven their account yet, and the slot then awaited
    ("email" for the account's details, "code" for the emailed code). `ask` asks for the details in the
    words of the request waiting for them."""
    ask = ask or localized(
        language,
        en="First I need to confirm it's you: the email on your account, or your first and last name with "
        "your zip code, or an order id with the last 4 digits of your phone.",
        zh="办理前需要先核实身份：请提供账户邮箱，或姓名加邮编，或订单号加手机尾号后四位。",
    )
    if settings.CHAT_VERIFICATION == "code":
        ask += localized(language, en=" I'll then email you a 6-digit code.", zh="随后我会发送 6 位验证码到您的邮箱。")
    if proof is None or proof.status not in _IDENTITY_REPLIES:
        return ask, "email"
    en, zh, slot = _IDENTITY_REPLIES[proof.status]
    values = {
        "to": proof.sent_to,
        "tries": proof.tries_left,
        "minutes": int(CODE_TTL.total_seconds() // 60),
        "ask": ask,
    }
    return localized(language, en=en.format(**values), zh=zh.format(**values)), slot
