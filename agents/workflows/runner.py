"""Drive one workflow by one message: verify, fill slots, confirm, write (seed 001's interrupt/resume).

The state is a WorkflowState row, so a paused workflow survives any restart: its slots (what the customer gave),
its step (the slot awaited, or "confirm"), its progress (agents.workflows.progress.Progress) and its status, which
moves only as conversations.models.WORKFLOW_MOVES allows. Every message:
1. a cancel word ends it; an expired one is closed and the message starts fresh;
2. an unverified customer is verified first (email, name + zip, order + phone last 4; three
   failures hand the chat to a person);
3. every slot the message carries is filled (several at once, and corrections of filled ones);
4. the next missing slot is asked for with `awaiting = {slot, prompt, choices}`;
5. with all slots filled, the summary is confirmed with an explicit yes/no; only "yes" writes,
   once: the row is completed in the same step, so a repeated "yes" finds nothing to do.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_noop

from agents.answers import SpecialistContext, SpecialistResult
from agents.intents.catalogue import catalogue_get
from agents.intents.entities.extract import extract_entities
from agents.models import TurnRun
from agents.reading.correction import typing_slip
from agents.reading.message import TextReading
from agents.tools import ToolContext, ToolError
from agents.verification import (
    MAX_FAILED_ATTEMPTS,
    Proof,
    ProofStatus,
    chat_proof,
    verified_customer,
)
from agents.workflows import slots as read
from agents.workflows.definitions import (
    FREE_TEXT_SLOTS,
    ORDER_ACTIONS,
    PROMPTS,
    WORKFLOW_FOR_INTENT,
    WORKFLOWS,
    Ctx,
    OrderNotEligible,
    OtherWorkflow,
    SlotInvalid,
    SlotPartial,
    Workflow,
)
from agents.workflows.progress import Progress, Said, said_before
from agents.workflows.verify import IDLE_TIMEOUT, identity_question
from conversations.language import say, say_in_context
from conversations.models import Conversation, Customer, WorkflowKind, WorkflowState, WorkflowStatus
from conversations.services import (
    conversation_verified_customer_set,
    workflow_open,
    workflow_save,
    workflows_end,
)
from stores.records import StoreWriteUnconfirmed

# Answers in a row the bot could not use for the slot it asked: after the second, it offers choices
# instead of a third identical prompt; after the third, a person takes over (seed 000's failed
# attempts), so the customer is never stuck in a loop.
OFFER_CHOICES_AFTER = 2
ESCALATE_AFTER = 3
_TITLES: dict[str, str] = {
    WorkflowKind.RETURN: gettext_noop("return"),
    WorkflowKind.EXCHANGE: gettext_noop("exchange"),
    WorkflowKind.MODIFY_ORDER: gettext_noop("order change"),
    WorkflowKind.CANCEL_ORDER: gettext_noop("cancellation"),
    WorkflowKind.REPAIR: gettext_noop("repair"),
    WorkflowKind.INVOICE: gettext_noop("invoice"),
}

# Why the store refused a write, in the customer's words (the tool's own message is for the logs and staff).
_WRITE_REFUSED: dict[str, str] = {
    "insufficient_balance": gettext_noop("the gift card's balance does not cover the amount to pay"),
    "wrong_status": gettext_noop("the order's status no longer allows this change"),
    "variant_unavailable": gettext_noop("the new version is no longer available"),
    "variant_not_found": gettext_noop("the new version is no longer available"),
    "same_payment_method": gettext_noop("the order is already paid with that method"),
    "payment_history": gettext_noop("the order's payment can no longer be changed here"),
    "refund_method": gettext_noop("a refund can only go to the original payment method or a gift card"),
    "payment_method_not_found": gettext_noop("that payment method is not on your account"),
}
_WRITE_REFUSED_OTHERWISE = gettext_noop("the order system did not accept the change")


def workflow_active(conversation_id: int) -> WorkflowState | None:
    """The paused workflow of a conversation (not a callback); an expired one is closed on the way."""
    state = (
        WorkflowState.objects.filter(conversation_id=conversation_id, status=WorkflowStatus.ACTIVE)
        .exclude(kind=WorkflowKind.CALLBACK)
        .first()
    )
    if state is not None and state.expires_at < timezone.now():
        workflow_save(state.pk, only_if=WorkflowStatus.ACTIVE, status=WorkflowStatus.EXPIRED)
        return None
    return state


def workflows_queued_cancel(conversation_id: int) -> None:
    """Drop the requests queued behind the active workflow (it was cancelled or replaced)."""
    workflows_end(conversation_id=conversation_id, status=WorkflowStatus.QUEUED, to=WorkflowStatus.CANCELLED)


def _save(
    state: WorkflowState,
    *,
    step: str,
    slots: dict[str, Any],
    progress: Progress | None = None,
    status: str = WorkflowStatus.ACTIVE,
    kind: str = "",
) -> None:
    workflow_save(
        state.pk,
        step=step,
        slots=slots,
        progress=progress.dump() if progress is not None else state.progress,
        status=status,
        kind=kind or state.kind,
        expires_at=timezone.now() + IDLE_TIMEOUT,
        updated_at=timezone.now(),
    )


def _person(language: str) -> str:
    return say(language, "Talk to a person")


def _stuck(language: str, slot: str, prompt: str, choices: list[str]) -> SpecialistResult:
    """The prompt that replaces a third identical one: what the bot can take, or a person."""
    text = say(
        language,
        "Sorry, I still couldn't use that. %(prompt)s You can also say 'stop' to drop it, or ask for a person.",
        prompt=prompt,
    )
    offered = [*choices[:3], _person(language)]
    return SpecialistResult(
        text=text, awaiting={"slot": slot, "prompt": prompt, "choices": offered}, quick_replies=tuple(offered)
    )


def _give_up(ctx: Ctx, state: WorkflowState, s: dict[str, Any]) -> SpecialistResult:
    _save(state, step="", slots=s, progress=ctx.progress, status=WorkflowStatus.CANCELLED)
    return SpecialistResult(
        text=say(ctx.language, "I'm not getting this right, so I'm passing you to a colleague who can help."),
        resolved=False,
        data={"escalate": "repeated_failure"},
    )


def _ask(
    ctx: Ctx, workflow: Any, slot: str, s: dict[str, Any], prefix: str = "", *, unusable: int = 0
) -> SpecialistResult:
    prompt = say(ctx.language, PROMPTS[slot])
    choices = workflow.choices(slot, ctx, s)
    if slot == "payment_method_id" and choices:
        # Said in the text too, for channels without buttons: "mastercard ending 7287 (credit_card_1)";
        # a label that holds the id ("PayPal paypal_1") is enough alone.
        labels = {m["id"]: m["label"] for m in ctx.payment_methods()}
        shown = [labels.get(c, c) if c in labels.get(c, c) else f"{labels[c]} ({c})" for c in choices]
        prompt = say(ctx.language, "%(prompt)s (%(methods)s)", prompt=prompt, methods="; ".join(shown))
    elif choices and not all(choice in prompt for choice in choices):
        # The choices in the text too: once a later message removes their buttons, the question still reads
        # whole in the history (and on channels without buttons).
        listed = say_in_context("list separator", ctx.language, ", ").join(choices[:6])
        prompt = say(ctx.language, "%(prompt)s (%(methods)s)", prompt=prompt, methods=listed)
    if unusable >= OFFER_CHOICES_AFTER:
        return _stuck(ctx.language, slot, f"{prefix} {prompt}".strip(), choices)
    text = f"{prefix} {prompt}".strip()
    return SpecialistResult(
        text=text, awaiting={"slot": slot, "prompt": prompt, "choices": choices}, quick_replies=tuple(choices[:4])
    )


def _confirm(ctx: Ctx, workflow: Any, s: dict[str, Any], prefix: str = "") -> SpecialistResult:
    question = say(ctx.language, "Shall I go ahead? (yes/no)")
    text = f"{prefix} {workflow.summary(ctx, s)} {question}".strip()
    choices = [say_in_context("customer", ctx.language, "yes"), say_in_context("customer", ctx.language, "no")]
    return SpecialistResult(
        text=text, awaiting={"slot": "confirm", "prompt": question, "choices": choices}, quick_replies=tuple(choices)
    )


def workflow_handle(sctx: SpecialistContext) -> SpecialistResult:
    """One message into the conversation's workflow (started from the intent if none is paused)."""
    with transaction.atomic():
        conversation = (
            Conversation.objects.select_for_update(of=("self",))
            .select_related("customer", "verified_customer")
            .get(pk=sctx.conversation_id)
        )
        state = workflow_active(conversation.pk)
        if state is not None and _gives_up(state, sctx.read(sctx.text or sctx.message_text)):
            _save(state, step="", slots=state.slots, status=WorkflowStatus.CANCELLED)
            workflows_queued_cancel(conversation.pk)
            return SpecialistResult(
                text=say(
                    sctx.language, "OK, I've stopped that request: nothing was changed. Anything else I can help with?"
                )
            )
        if state is None:
            kind = WORKFLOW_FOR_INTENT.get(sctx.intent)
            if kind is None:
                return SpecialistResult(text="", resolved=True)
            state = workflow_open(
                conversation_id=conversation.pk,
                kind=kind,
                progress=_order_just_discussed(sctx).dump(),
                expires_at=timezone.now() + IDLE_TIMEOUT,
            )
        return _advance(sctx, conversation, state)


def _gives_up(state: WorkflowState, reading: TextReading) -> bool:
    """The customer drops the request. Why an order is cancelled ("no longer needed* sorry") is no giving up of
    its cancellation, however like "no need any more" it reads."""
    return reading.gives_up and not (state.kind == WorkflowKind.CANCEL_ORDER and reading.reason)


def _order_just_discussed(sctx: SpecialistContext) -> Progress:
    """A request naming no order, right after a message that named one ("订单D1001" then "取消订单"),
    is about that order: it is read as if said now (and checked like any order id)."""
    if sctx.entities.get("order_ids"):
        return Progress()
    before = (
        TurnRun.objects.filter(conversation_id=sctx.conversation_id, pk__lt=sctx.turn_id)
        .order_by("-pk")
        .values_list("entities", flat=True)
        .first()
    )
    named = (before or {}).get("order_ids") or []
    return Progress(pending=[{"text": "", "entities": {"order_ids": named}}] if len(named) == 1 else [])


def _resume_question(sctx: SpecialistContext, state: WorkflowState) -> SpecialistResult:
    """Verified: the question that waited for it is handed back, with its own entities, to be answered."""
    _save(state, step="", slots=state.slots, status=WorkflowStatus.COMPLETED)
    original = state.slots.get("text", "")
    question = SpecialistContext(
        **{
            **sctx.__dict__,
            "intent": state.slots.get("intent", sctx.intent),
            "text": original,
            "message_text": original,
            "reading": None,
            "entities": {
                **extract_entities(original, catalogue_get()),
                **{k: v for k, v in sctx.entities.items() if k == "order_ids"},
            },
        }
    )
    thanks = say(sctx.language, "Thank you, you're verified.")
    return SpecialistResult(text=thanks, resume=question)


def _own_words(sctx: SpecialistContext) -> tuple[str, dict[str, Any]]:
    """What this workflow reads: the whole message, or its part of a message holding several requests."""
    text = sctx.text or sctx.message_text
    if text == sctx.message_text:
        return text, sctx.entities
    return text, extract_entities(text, catalogue_get())


def _then_next(sctx: SpecialistContext, conversation: Conversation, ended: SpecialistResult) -> SpecialistResult:
    """A workflow ended: start the next request the customer queued in the same message, if any."""
    queued = (
        WorkflowState.objects.filter(conversation=conversation, status=WorkflowStatus.QUEUED)
        .order_by("created_at", "id")
        .first()
    )
    if queued is None:
        return ended
    workflow_save(queued.pk, status=WorkflowStatus.ACTIVE, expires_at=timezone.now() + IDLE_TIMEOUT)
    queued.status = WorkflowStatus.ACTIVE
    quiet = SpecialistContext(
        **{**sctx.__dict__, "text": "", "message_text": "", "entities": {}, "digression": False, "reading": None}
    )
    follow = _advance(quiet, conversation, queued)
    now = WorkflowState.objects.get(pk=queued.pk)
    request = say(sctx.language, _TITLES.get(now.kind, now.kind))
    order_id = now.slots.get("order_id", "")
    if order_id:
        lead = say(
            sctx.language,
            "Now your other request (%(request)s, order %(order_id)s):",
            request=request,
            order_id=order_id,
        )
    else:
        lead = say(sctx.language, "Now your other request (%(request)s):", request=request)
    return SpecialistResult(
        text=f"{ended.text}\n\n{lead} {follow.text}",
        resolved=ended.resolved and follow.resolved,
        awaiting=follow.awaiting,
        quick_replies=follow.quick_replies,
        data={**ended.data, **follow.data},
    )


def _advance(sctx: SpecialistContext, conversation: Conversation, state: WorkflowState) -> SpecialistResult:
    s, progress = dict(state.slots), Progress.load(state.progress)
    text, entities, fix = _words_read(sctx, conversation, state, s, progress)
    customer = verified_customer(conversation)
    if customer is None:
        said = Said(text=text, entities=entities)
        if fix is not None:
            said["fix"] = [*fix]  # read now, with what the request was given so far
        proven = _identity_proven(sctx, conversation, state, s, progress, said, fix)
        if isinstance(proven, SpecialistResult):
            return proven
        customer = proven
    if state.kind == WorkflowKind.VERIFY:
        return _resume_question(sctx, state)
    workflow = WORKFLOWS[state.kind]
    pending, progress.pending = _corrected(progress.pending, fix), []
    if fix is not None and fix[1]:  # a mistaken order id the earlier words hold only in their entities
        pending = [_said_corrected(said, fix) for said in pending]
    ctx = Ctx(
        tools=ToolContext(conversation_id=conversation.pk, customer=customer, language=sctx.language),
        language=sctx.language,
        progress=progress,
        reading=sctx.message_reading,
        awaiting=state.step,
    )

    if state.step == "confirm" and (meant_zip := read.zip_put_right(s.get("address"), text)):
        s["address"] = {**s["address"], "zip": meant_zip}  # "oops, I meant 76155": the address, put right
        _save(state, step="confirm", slots=s, progress=progress)
        return _confirm(ctx, workflow, s)
    # "wait, that was wrong: X rather than Y" at the confirmation puts a value right: read it, then confirm again
    if state.step == "confirm" and fix is None and (answer := sctx.read(text).yes_no) is not None:
        return _confirmation_answered(sctx, conversation, state, ctx, workflow, s, answer=answer)
    if fix is not None:
        text = _put_right(state, workflow, ctx, s, fix, text)
    return _slots_filled(sctx, conversation, state, ctx, s, pending, Said(text=text, entities=entities))


def _words_read(
    sctx: SpecialistContext, conversation: Conversation, state: WorkflowState, s: dict[str, Any], progress: Progress
) -> tuple[str, dict[str, Any], tuple[str, str] | None]:
    """The words this request reads in the message, their entities, and what they put right (meant, slip)."""
    text, entities = _own_words(sctx)
    # An order id one slip from one said for this request or a queued one is surely that one, put right
    fix = (order_typo_fix(state, entities) or read.correction(text, said_before(s, progress))) if text else None
    if fix is None:
        return text, entities, None
    if len(entities.get("order_ids") or []) > 1 and any(_is(o, fix[1]) for o in entities["order_ids"]):
        # it names the mistaken order id beside the meant one, and puts nothing else: only the meant one is read
        text, entities = f"#{fix[0]}", {**entities, "order_ids": [f"#{fix[0]}"]}
    if _queued_corrected(conversation.pk, fix) and not _says(s, progress, fix[1]):
        entities = {}  # it put right what a queued request said: nothing in it for this one
    return text, entities, fix


def _identity_proven(
    sctx: SpecialistContext,
    conversation: Conversation,
    state: WorkflowState,
    s: dict[str, Any],
    progress: Progress,
    said: Said,
    fix: tuple[str, str] | None,
) -> Customer | SpecialistResult:
    """The customer the message proves the chat is with, or what to ask for the proof."""
    # "typo: the zip code is 92133, not 29133" puts right what this request said: no proof of identity
    if fix is not None and fix[1] and _says(s, progress, fix[1]):
        return _verification_needed(sctx, state, s, progress, Proof(ProofStatus.NOTHING), said=said, put_right=fix)
    proof = chat_proof(conversation, said["entities"], said["text"], awaiting=state.step)
    if proof.status != ProofStatus.VERIFIED or proof.customer is None:
        return _verification_needed(sctx, state, s, progress, proof, said=said)
    conversation_verified_customer_set(conversation_id=conversation.pk, customer=proof.customer)
    progress.unusable = 0
    return proof.customer


def _slots_filled(
    sctx: SpecialistContext,
    conversation: Conversation,
    state: WorkflowState,
    ctx: Ctx,
    s: dict[str, Any],
    pending: list[Said],
    said: Said,
) -> SpecialistResult:
    """Read the slots the words fill (and what was said before the order was known), then ask for the next
    one, or confirm when none is missing."""
    text, entities, progress = said["text"], said["entities"], ctx.progress
    refused_before, progress.refused = progress.refused, ""
    order_known = "order_id" in s
    kind, filled_before, filled, error = _fill_said(state.kind, ctx, state, s, pending, text, entities)
    if pending and not order_known and "order_id" in s:  # what was said before the order id, read again
        kind, *_ = _fill_said(kind, ctx, state, s, pending, text, entities)
    workflow = WORKFLOWS[kind]
    if "order_id" in workflow.needed(s) and text and not sctx.digression:
        # Until the order is known its items cannot be read: what the customer said about them
        # ("the thermostat, in white") is read again once the order id arrives.
        progress.pending = [*pending, said][-3:]
    if refused_before and progress.refused == refused_before:
        # The same order (or card) refused twice: the customer means it, and it cannot be done.
        return _then_next(sctx, conversation, _not_for_this_value(ctx, state, s, error))
    filled = filled or filled_before
    unusable = _unusable(state, progress, filled=filled, digression=sctx.digression)
    if unusable >= ESCALATE_AFTER:
        return _give_up(ctx, state, s)
    missing = workflow.needed(s)
    if missing:
        slot = missing[0]
        if slot != state.step:
            progress.unusable = unusable = 0
        prefix = error or ("" if filled or not state.step else say(ctx.language, "To continue:"))
        _save(state, step=slot, slots=s, progress=progress, kind=kind)
        return _ask(ctx, workflow, slot, s, prefix, unusable=unusable)
    prefix = "" if filled or state.step != "confirm" else say(ctx.language, "Please answer yes or no.")
    _save(state, step="confirm", slots=s, progress=progress, kind=kind)
    return _confirm(ctx, workflow, s, prefix or error)


def _confirmation_answered(
    sctx: SpecialistContext,
    conversation: Conversation,
    state: WorkflowState,
    ctx: Ctx,
    workflow: Workflow,
    s: dict[str, Any],
    *,
    answer: bool,
) -> SpecialistResult:
    """A yes writes (once: the row is completed in the same step); a no ends the request with nothing changed."""
    if not answer:
        _save(state, step="", slots=s, progress=ctx.progress, status=WorkflowStatus.CANCELLED)
        declined = SpecialistResult(text=say(ctx.language, "OK, I haven't changed anything."))
        return _then_next(sctx, conversation, declined)
    try:
        result = workflow.perform(ctx, s)
    except ToolError as exc:
        if exc.code == "store_unavailable":  # not refused: maybe not done, and the request is kept to try again
            raise StoreWriteUnconfirmed(exc.message) from None
        _save(state, step="", slots=s, progress=ctx.progress, status=WorkflowStatus.CANCELLED)
        failed = SpecialistResult(
            text=say(
                ctx.language,
                "I couldn't do that: %(reason)s",
                reason=say(ctx.language, _WRITE_REFUSED.get(exc.code, _WRITE_REFUSED_OTHERWISE)),
            ),
            resolved=True,
            data={"tool_error": exc.code},
        )
        return _then_next(sctx, conversation, failed)
    ctx.progress.result = result
    _save(state, step="", slots=s, progress=ctx.progress, status=WorkflowStatus.COMPLETED)
    done = SpecialistResult(text=workflow.done(ctx, s, result), data={"written": state.kind, **result})
    return _then_next(sctx, conversation, done)


def _put_right(
    state: WorkflowState, workflow: Workflow, ctx: Ctx, s: dict[str, Any], fix: tuple[str, str], text: str
) -> str:
    """Put right what the request holds with a correction (meant, mistaken); the words of this message to read."""
    meant, mistaken = fix
    if _mistake_forget(workflow, ctx, s, fix) and meant:
        text = meant  # "是买错了，不是不再需要": only the value meant is read, the slip would be read too
    elif state.step == "confirm" and workflow.new_items_put_right(ctx, s, meant):
        text = meant  # "sorry, I meant induction"
    if state.step == "new_item_ids" and ctx.progress.asked and meant:
        # "Sorry, the color is blue. I typed green by accident." after "green is not available": the options
        # asked for are put right, and only the value meant is read (the slip, named or not, would read as
        # wanted too: "颜色是星野黑，浮光白是我打错了")
        ctx.progress.asked = {
            item: {option: meant.lower() if _is(value, mistaken) else value for option, value in options.items()}
            for item, options in ctx.progress.asked.items()
        }
        text = meant
    return text


def _not_for_this_value(ctx: Ctx, state: WorkflowState, s: dict[str, Any], refusal: str) -> SpecialistResult:
    """End a request that cannot be done with the order (or card) the customer keeps naming, saying
    what can be done with the order."""
    _save(state, step="", slots=s, progress=ctx.progress, status=WorkflowStatus.CANCELLED)
    actions = ORDER_ACTIONS.get(ctx.progress.refused_status)
    if actions:
        text = say(
            ctx.language,
            "%(refusal)s I've stopped this request; %(actions)s. What would you like to do?",
            refusal=refusal,
            actions=say(ctx.language, actions),
        )
    else:
        text = say(ctx.language, "%(refusal)s I've stopped this request. What would you like to do?", refusal=refusal)
    return SpecialistResult(text=text, data={"refused": ctx.progress.refused})


def _unusable(state: WorkflowState, progress: Progress, *, filled: bool, digression: bool) -> int:
    """Count answers in a row that filled nothing for the awaited slot.

    A question answered beside the workflow (a digression) is not an answer, so it does not count.
    """
    if filled or not state.step:
        progress.unusable = 0
    elif not digression:
        progress.unusable += 1
    return progress.unusable


def _verification_needed(
    sctx: SpecialistContext,
    state: WorkflowState,
    s: dict[str, Any],
    progress: Progress,
    proof: Proof,
    *,
    said: Said,
    put_right: tuple[str, str] | None = None,
) -> SpecialistResult:
    """Ask for a proof of identity (or the code emailed for one); wrong proofs and unusable answers
    count, questions, codes sent and values put right do not.

    `said` is this workflow's words ({text, entities}), kept when they prove nothing yet (or only named
    the account a code went to); `put_right` is (meant, mistaken) when they correct a value said before,
    which is read once the account is known."""
    if not proof.failed and not sctx.digression and said["text"]:
        # Keep what the customer already said (order, items, reason…): it is read once the
        # account is known, so nothing has to be asked twice.
        progress.pending.append(said)
    unusable = proof.status == ProofStatus.NOTHING and state.step in ("email", "code")
    counts = proof.failed or (unusable and not sctx.digression and not put_right)
    progress.verify_failures += 1 if counts else 0
    if progress.verify_failures >= MAX_FAILED_ATTEMPTS:
        _save(state, step="", slots=s, progress=progress, status=WorkflowStatus.CANCELLED)
        return SpecialistResult(
            text=say(
                sctx.language, "I couldn't confirm your identity, so I'm passing you to a colleague who can help."
            ),
            resolved=False,
            data={"escalate": "policy"},
        )
    if proof.status == ProofStatus.NOTHING and state.step == "code":
        proof = Proof(ProofStatus.CODE_SENT)  # still waiting for that code
    prompt, slot = identity_question(sctx.language, proof)
    _save(state, step=slot, slots=s, progress=progress)
    awaiting = {"slot": slot, "prompt": prompt, "choices": []}
    if sctx.digression:  # the question was answered beside this; then the workflow's prompt again
        text = say(sctx.language, "To continue: %(prompt)s", prompt=prompt)
        return SpecialistResult(text=text, awaiting=awaiting)
    if put_right:
        meant, mistaken = put_right
        noted = say(sctx.language, "Noted: %(meant)s, not %(mistaken)s.", meant=meant, mistaken=mistaken)
        return SpecialistResult(text=f"{noted} {prompt}", awaiting=awaiting)
    if slot == "email" and progress.verify_failures >= OFFER_CHOICES_AFTER:
        if proof.failed:
            prompt = say(sctx.language, "That doesn't match an account. %(prompt)s", prompt=prompt)
        return _stuck(sctx.language, "email", prompt.strip(), [])
    if proof.status == ProofStatus.NO_MATCH:
        prompt = say(sctx.language, "That doesn't match an account. %(prompt)s", prompt=prompt)
    return SpecialistResult(text=prompt, awaiting=awaiting)


def _corrected(saids: list[Said], fix_now: tuple[str, str] | None) -> list[Said]:
    """What was said before, with the values a later message put right ("sorry typo, linear not tactile")
    replaced there; `fix_now` is what this message puts right. A correction whose mistaken value those words do
    not hold (they said it otherwise: "不需要了", then "是买错了，不是不再需要"), or that does not name it, is kept to
    be read in its turn, when it forgets what it puts right (_fill_said); the others are read again only for
    the slots whose latest word counts (Workflow.restated), and this message is read on its own."""
    kept: list[Said] = []
    for said, now in [*((said, False) for said in saids), (None, True)]:
        fix = fix_now if now else _fix_of(said)
        if fix is not None and (not fix[1] or any(read.value_said(e["text"], fix[1]) for e in kept)):
            kept = [_said_corrected(earlier, fix) for earlier in kept]
            if said is not None:
                # read in its turn too: the value meant replaces its slot's ("I meant X"); a value put right in the
                # words before is read there, and the value meant again only where the latest word counts
                kept.append(said if not fix[1] else {"text": fix[0], "entities": {}, "restated_only": True})
        elif said is not None:
            kept.append(said)
    return kept


def _fix_of(said: Said | None) -> tuple[str, str] | None:
    """What words kept for a request put right, as read when they were said."""
    fix = said.get("fix") if said else None
    return (fix[0], fix[1]) if fix else None


def _said_corrected(said: Said, fix: tuple[str, str]) -> Said:
    """One thing said, with a value put right in its words and in what was read from them (an order
    id is "#W1" in the entities, "W1" or "#W1" in the words)."""
    right, wrong = fix

    def put_right(value: Any) -> Any:
        if not _is(value, wrong):
            return value
        return f"#{right}" if value.startswith("#") else right

    entities = said.get("entities")
    if entities is not None:
        entities = {
            key: [put_right(v) for v in value] if isinstance(value, list) else put_right(value)
            for key, value in entities.items()
        }
    return {**said, "text": read.corrected(said["text"], fix), "entities": entities}


def _is(value: Any, said: str) -> bool:
    """Whether a slot's value is the one said ("W1" is the order "#W1")."""
    return isinstance(value, str) and bool(said) and value.lstrip("#").lower() == said.lower()


def _says(s: dict[str, Any], progress: Progress, value: str) -> bool:
    """Whether a workflow's slots or the words kept for it say `value`."""
    return any(read.value_said(said["text"], value) for said in progress.pending) or any(
        _is(v, value) for v in s.values()
    )


def _mistake_forget(workflow: Workflow, ctx: Ctx, s: dict[str, Any], fix: tuple[str, str]) -> bool:
    """Empty the slots holding a value the customer says was a mistake ("no longer needed" read as
    the reason, "不需要了" too), or, when only the meant value is said ("sorry I meant ordered by
    mistake"), the slot it is another value of, so the message that puts it right fills them again.
    An order id replaces itself, with what depends on it (_fill); items are put right in the words
    said before (_corrected). Whether any slot was emptied."""
    right, wrong = fix
    forgot = False
    for slot, value in list(s.items()):
        # the kind of change is put right only by name ("the address, not the payment"): a value meant alone
        # ("oops, PayPal") reads as a payment change but puts right the method, not the request
        if slot in ("order_id", "item_ids", "new_item_ids") or (slot == "change" and not wrong):
            continue
        try:
            if wrong:
                mistaken = _is(value, wrong) or workflow.read(slot, ctx, wrong, {}, s) == value
            else:
                mistaken = workflow.read(slot, ctx, right, {}, s) not in (None, "", value)
        except (SlotInvalid, SlotPartial, OtherWorkflow):
            mistaken = False
        if mistaken:
            s.pop(slot)
            forgot = True
    return forgot


def _restated(workflow: Workflow, ctx: Ctx, s: dict[str, Any], text: str, entities: dict[str, Any]) -> bool:
    """Put in the value of a slot whose latest word counts (Workflow.restated) when the message says another one.
    Whether it did."""
    changed = False
    for slot in workflow.restated:
        if slot in s and text and (value := workflow.read_again(slot, ctx, text, entities, s)) and value != s[slot]:
            s[slot], changed = value, True
    return changed


def order_typo_fix(state: WorkflowState, entities: dict[str, Any]) -> tuple[str, str] | None:
    """An order id one slip away (two digits swapped, or one changed, added or dropped) from one said
    for this request or one queued behind it puts that one right, mistake named or not ("#W7209932*
    sorry", "the correct order number is #W4398027"): as (meant, mistaken), like a correction. Two
    swapped digits are the surer sign: sequential order numbers differ by one digit anyway."""
    named = entities.get("order_ids") or []
    if len(named) not in (1, 2):
        return None
    said = _order_ids_said(state)
    if len(named) == 2:
        # "#W6559408 was a mistake, I meant #W6554908": of two ids one slip apart, the one said before is the mistake
        before = [order for order in named if order in said]
        if len(before) != 1 or not typing_slip(named[0], named[1]):
            return None
        meant = next(order for order in named if order != before[0])
        return meant.lstrip("#"), before[0].lstrip("#")
    slips = {order: typing_slip(order, named[0]) for order in said if order and order != named[0]}
    swapped = [order for order, slip in slips.items() if slip == "swap"]
    near = swapped or [order for order, slip in slips.items() if slip]
    return (named[0].lstrip("#"), near[0].lstrip("#")) if len(near) == 1 else None


def _order_ids_said(state: WorkflowState) -> set[str | None]:
    """The order ids said for this request, or for one queued behind it."""
    queued = WorkflowState.objects.filter(conversation_id=state.conversation_id, status=WorkflowStatus.QUEUED)
    pendings = [Progress.load(s.progress).pending for s in (state, *queued)]
    return {state.slots.get("order_id")} | {
        order for pending in pendings for x in pending for order in (x.get("entities") or {}).get("order_ids", [])
    }


def _queued_corrected(conversation_id: int, fix: tuple[str, str]) -> bool:
    """Put a value right in the requests queued behind the active one ("#W2, not #W3" about the second
    request of a message); whether any of them had said it."""
    found = False
    queued = WorkflowState.objects.filter(conversation_id=conversation_id, status=WorkflowStatus.QUEUED)
    for state in queued.order_by("pk"):
        progress = Progress.load(state.progress)
        if not any(read.value_said(said["text"], fix[1]) for said in progress.pending):
            continue
        found = True
        progress.pending = [_said_corrected(said, fix) for said in progress.pending]
        workflow_save(state.pk, progress=progress.dump(), updated_at=timezone.now())
    return found


def _fill_said(
    kind: str,
    ctx: Ctx,
    state: WorkflowState,
    s: dict[str, Any],
    earlier: list[Said],
    text: str,
    entities: dict[str, Any],
) -> tuple[str, bool, bool, str]:
    """Fill the slots from what was said earlier, then from this message: the workflow kind, whether
    the earlier words filled anything, whether this message did, and why a value was refused."""
    filled_before = False
    for said in earlier:
        if said.get("restated_only"):
            filled_before = _restated(WORKFLOWS[kind], ctx, s, said["text"], said["entities"]) or filled_before
            continue
        fix = _fix_of(said)
        if fix is not None and fix[0] and _mistake_forget(WORKFLOWS[kind], ctx, s, fix):
            said = Said(text=fix[0], entities=said["entities"])  # only the value meant is read
        kind, filled, _ = _fill(kind, ctx, state, s, said["text"], said["entities"])
        filled_before = filled_before or filled
    kind, filled, error = _fill(kind, ctx, state, s, text, entities)
    return kind, filled_before, filled, error


def _fill(
    kind: str,
    ctx: Ctx,
    state: WorkflowState,
    s: dict[str, Any],
    text: str,
    entities: dict[str, Any],
) -> tuple[str, bool, str]:
    """Fill every slot this message carries; a new order id replaces the old one (a correction).

    Returns the workflow kind (an order's status can turn an exchange into an item change of a
    pending order, and back), whether anything was filled, and why a value was refused.
    """
    error = ""
    if "order_id" in s and entities.get("order_ids") and entities["order_ids"][0] != s["order_id"]:
        for dependent in ("order_id", "item_ids", "new_item_ids", "payment_method_id", "change"):
            s.pop(dependent, None)
        ctx.progress.item_choice_done()
    filled = _restated(WORKFLOWS[kind], ctx, s, text, entities)
    for _ in range(6):  # slots unlock others (order → its items); a few passes settle it
        progressed = False
        workflow = WORKFLOWS[kind]
        for slot in workflow.needed(s):
            if slot in FREE_TEXT_SLOTS and slot != state.step:
                continue
            try:
                value = workflow.read(slot, ctx, text, entities, s)
            except OtherWorkflow as other:
                kind = other.kind
                s.update(other.slots)
                filled = progressed = True
                break
            except SlotPartial as exc:
                ctx.progress.draft = exc.draft
                error = str(exc)
                filled = True  # part of an answer is progress, not an unusable one
                continue
            except SlotInvalid as exc:
                if exc.refused:
                    ctx.progress.refused = exc.refused
                if isinstance(exc, OrderNotEligible):
                    ctx.progress.refused_status = exc.status
                error = str(exc)
                continue
            if value:
                s[slot] = value
                filled = progressed = True
        if not progressed:
            break
    return kind, filled, error
