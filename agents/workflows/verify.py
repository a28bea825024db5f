"""A private question paused until the customer proves their account (CHAT_VERIFICATION), and what
to tell them meanwhile. Below the business specialist and the workflow runner, which both use it."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.utils import timezone
from django.utils.translation import gettext_noop

from agents.verification import CODE_TTL, Proof, ProofStatus
from conversations.language import say
from conversations.models import WorkflowKind, WorkflowStatus
from conversations.services import workflow_open, workflows_end

# A paused request (or a workflow waiting for an answer) is dropped after this long without one.
IDLE_TIMEOUT = timedelta(minutes=10)


def workflow_verify_start(*, conversation_id: int, intent: str, text: str, step: str = "email") -> None:
    """Pause a private question until the customer is verified; it is answered right after. `step` is
    what is awaited: the account's details, or the code just emailed."""
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
        slots={"intent": intent, "text": text},
        expires_at=timezone.now() + IDLE_TIMEOUT,
    )


# What to tell a customer whose last message proved no account yet, by what it did prove, and the slot
# then awaited. Details that name an account and details that do not are answered alike (agents.verification).
_IDENTITY_REPLIES = {
    ProofStatus.CODE_SENT: (
        gettext_noop(
            "If that matches an account, a 6-digit code is on its way to the account's email. Please type it "
            "here (valid for %(minutes)s minutes)."
        ),
        "code",
    ),
    ProofStatus.CODE_EXPIRED: (
        gettext_noop(
            "That code has expired. If the details matched an account, a new code is on its way to its email: "
            "please type it here."
        ),
        "code",
    ),
    ProofStatus.CODE_WRONG: (
        gettext_noop("That code isn't right (%(tries)s tries left). Please type the 6-digit code from the email."),
        "code",
    ),
    ProofStatus.CODE_SPENT: (gettext_noop("That code can't be used any more. %(ask)s"), "email"),
    ProofStatus.LOCKED_OUT: (
        gettext_noop(
            "There have been too many attempts to confirm an account from here. Please try again in %(minutes)s "
            "minutes, or say 'talk to a person' and a colleague will help."
        ),
        "email",
    ),
    ProofStatus.SIGN_IN: (
        gettext_noop(
            "For your security I can only look at or change orders once you're signed in to the store. "
            "Please sign in and open the chat again, or ask for a colleague."
        ),
        "email",
    ),
}


def identity_question(language: str, proof: Proof | None = None, ask: str = "") -> tuple[str, str]:
    """What to tell a customer who has not proven their account yet, and the slot then awaited
    ("email" for the account's details, "code" for the emailed code). `ask` asks for the details in the
    words of the request waiting for them."""
    ask = ask or say(
        language,
        "First I need to confirm it's you: the email on your account, or your first and last name with "
        "your zip code, or an order id with the last 4 digits of your phone.",
    )
    if settings.CHAT_VERIFICATION == "code":
        ask = say(language, "%(ask)s I'll then email you a 6-digit code.", ask=ask)
    if proof is None or proof.status not in _IDENTITY_REPLIES:
        return ask, "email"
    message, slot = _IDENTITY_REPLIES[proof.status]
    minutes = proof.retry_after_s if proof.status == ProofStatus.LOCKED_OUT else CODE_TTL.total_seconds()
    values = {"tries": proof.tries_left, "minutes": max(1, -(-int(minutes) // 60)), "ask": ask}
    return say(language, message, **values), slot
