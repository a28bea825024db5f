"""The `ticket` specialist: workflows that end in a store write and a ticket (see agents.workflows)."""

from __future__ import annotations

from agents.specialists import register
from agents.specialists.base import Specialist, SpecialistContext, SpecialistResult
from agents.workflows.runner import workflow_handle


@register
class WorkflowSpecialist(Specialist):
    name = "ticket"

    def run(self, ctx: SpecialistContext) -> SpecialistResult:
        return workflow_handle(ctx)
