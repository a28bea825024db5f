"""A workflow's statuses move only as WORKFLOW_MOVES allows, and its progress is kept apart from its slots."""

from __future__ import annotations

import importlib
from datetime import timedelta

import pytest
from django.apps import apps
from django.utils import timezone

from agents.workflows.progress import Progress
from conversations.models import WorkflowKind, WorkflowState, WorkflowStatus
from conversations.services import workflow_open, workflow_save, workflows_end
from tests.factories import ConversationFactory

pytestmark = pytest.mark.django_db


def _open(status: str = WorkflowStatus.ACTIVE) -> WorkflowState:
    return workflow_open(
        conversation_id=ConversationFactory.create().pk,
        kind=WorkflowKind.RETURN,
        status=status,
        expires_at=timezone.now() + timedelta(minutes=10),
    )


@pytest.mark.parametrize("final", [WorkflowStatus.COMPLETED, WorkflowStatus.CANCELLED, WorkflowStatus.EXPIRED])
def test_an_ended_workflow_is_never_revived_or_ended_again(final: str) -> None:
    state = _open()
    assert workflow_save(state.pk, status=final)

    assert not workflow_save(state.pk, status=WorkflowStatus.ACTIVE, step="confirm")
    assert not workflow_save(state.pk, status=WorkflowStatus.COMPLETED)
    state.refresh_from_db()
    assert state.status == final and state.step == ""


def test_a_queued_request_starts_and_an_active_one_moves_on() -> None:
    state = _open(WorkflowStatus.QUEUED)

    assert workflow_save(state.pk, status=WorkflowStatus.ACTIVE)
    assert workflow_save(state.pk, status=WorkflowStatus.ACTIVE, step="item_ids")  # saved while it goes on
    assert workflow_save(state.pk, status=WorkflowStatus.COMPLETED)


def test_ending_workflows_from_a_final_status_is_a_mistake_in_the_code() -> None:
    with pytest.raises(ValueError, match="cannot move"):
        workflows_end(conversation_id=1, status=WorkflowStatus.COMPLETED, to=WorkflowStatus.ACTIVE)


def test_progress_is_stored_without_its_defaults_and_an_empty_record_reads_as_a_fresh_one() -> None:
    progress = Progress(unusable=2, offered={"1": "2"})

    assert progress.dump() == {"unusable": 2, "offered": {"1": "2"}}
    assert Progress.load({}) == Progress()
    assert Progress.load({"unusable": 2, "retired_field": 1}).unusable == 2


def test_the_migration_moves_progress_out_of_the_slots_of_open_workflows() -> None:
    moved, ended = _open(), _open()
    pending = [{"text": "the earbuds", "entities": {}}]
    WorkflowState.objects.filter(pk=moved.pk).update(slots={"order_id": "#D1", "_pending": pending, "_unusable": 1})
    WorkflowState.objects.filter(pk=ended.pk).update(status=WorkflowStatus.COMPLETED, slots={"_result": {"a": 1}})
    migration = importlib.import_module("conversations.migrations.0010_workflow_progress")

    migration.progress_out_of_slots(apps, None)

    moved.refresh_from_db()
    assert moved.slots == {"order_id": "#D1"} and moved.progress == {"pending": pending, "unusable": 1}
    assert WorkflowState.objects.get(pk=ended.pk).slots == {"_result": {"a": 1}}  # closed rows stay as they were
