"""The `ticket` specialist: workflows that end in a store write and a ticket (see agents.workflows)."""

from __future__ import annotations

from agents.answers import SpecialistContext, SpecialistResult
from agents.specialists import Specialist, register
from agents.specialists.business import Business, store_unreachable
from agents.workflows.runner import workflow_handle
from stores.records import StoreUnavailable, StoreWriteUnconfirmed


@register
class WorkflowSpecialist(Specialist):
    name = "ticket"

    def run(self, ctx: SpecialistContext) -> SpecialistResult:
        try:
            result = workflow_handle(ctx)
        except StoreUnavailable as exc:
            # The request stays where it was (a yes at the confirmation tries the write again, under the same
            # idempotency key, so a write whose answer was lost is not done twice).
            return store_unreachable(ctx.language, write_unconfirmed=isinstance(exc, StoreWriteUnconfirmed))
        if result.resume is None:
            return result
        answer = Business().run(result.resume)
        return SpecialistResult(text=f"{result.text} {answer.text}", sources=answer.sources, data=answer.data)
