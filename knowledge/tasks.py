"""Celery tasks of the knowledge base: thin wrappers, ids in, safe to run twice."""

from __future__ import annotations

from celery import shared_task
from django.conf import settings

from knowledge.services import ingest_job_run


# The job stops itself at KNOWLEDGE_JOB_TIME_LIMIT_S between embedding batches; Celery's limits are
# the backstop for a file stuck in parsing. It records its progress and resumes if retried.
@shared_task(
    acks_late=True,
    soft_time_limit=settings.KNOWLEDGE_JOB_TIME_LIMIT_S + 60,
    time_limit=settings.KNOWLEDGE_JOB_TIME_LIMIT_S + 120,
)
def ingest_job_run_task(job_id: str) -> str:
    return ingest_job_run(job_id)
