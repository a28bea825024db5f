"""The Celery app: configured from the Django settings (CELERY_*), tasks found in every app."""

import os

from celery import Celery
from celery.signals import task_prerun, worker_process_init

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cs_project.settings.base")

app = Celery("cs_project")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@worker_process_init.connect
def _database_pool_not_inherited(**_: object) -> None:
    """A prefork child opens a database pool of its own: one the parent opened before forking holds the
    parent's connections, and the threads that fill it did not survive the fork."""
    from django.db.backends.postgresql.base import DatabaseWrapper

    DatabaseWrapper._connection_pools.clear()  # type: ignore[attr-defined]  # Django 5.1+, not in django-stubs


@task_prerun.connect
def _database_connection_kept(**_: object) -> None:
    """Each task goes on with the connection of the task before it, unless that one is unusable: then it
    starts with a checked one from the process's pool (conversations.prepared.connection_kept)."""
    from conversations.prepared import connection_kept

    connection_kept()
