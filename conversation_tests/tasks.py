"""Celery tasks of the conversation tests: thin wrappers over its services."""

from __future__ import annotations

from celery import shared_task

from conversation_tests.services import run_claim, run_execute, run_nightly


@shared_task(ignore_result=True)
def conversation_tests_run_task(run_id: int) -> None:
    run = run_claim(run_id)
    if run is not None:
        run_execute(run)


@shared_task(ignore_result=True)
def nightly_conversation_tests_task() -> None:
    run_nightly()
