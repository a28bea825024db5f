"""The `ticket` specialist: workflows that end in a store write and a ticket (see agents.workflows)."""

from __future__ import annotations

from agents.answers import SpecialistContext, SpecialistResult
from agents.specialists import Specialist, register
from agents.specialists.business import Business
from agents.workflows.runner import workflow_handle


@register
class WorkflowSpecialist(Specialist):
    name = "ticket"

    def run(self, ctx: SpecialistContext) -> SpecialistResult:
        result = workflow_handle(ctx)
        if result.resume is None:
            return result
        answer = Business().run(result.resume)
        return SpecialistResult(text=f"{result.text} {answer.text}", sources=answer.sources, data=answer.data)
