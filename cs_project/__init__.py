# Import the Celery app with Django so that @shared_task binds to it in every process.
from cs_project.celery import app as celery_app

__all__ = ["celery_app"]
