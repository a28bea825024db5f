from django.apps import AppConfig


class ProjectConfig(AppConfig):
    """Holds the process commands (serve, worker, beat, services); no models."""

    name = "cs_project"
    verbose_name = "Project"
