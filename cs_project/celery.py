"""The Celery app: configured from the Django settings (CELERY_*), tasks found in every app."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cs_project.settings.base")

app = Celery("cs_project")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
