"""Celery tasks of the knowledge base: thin wrappers, ids in, safe to run twice."""

from __future__ import annotations

from celery import shared_task

from knowledge.services import ingest_job_run


# Large PDFs take a while to embed; the job records its own progress and resumes if retried.
@shared_task(acks_late=True, soft_time_limit=3600, time_limit=3660)
def ingest_job_run_task(job_id: str) -> str:
    return ingest_job_run(job_id)
