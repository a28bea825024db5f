"""Every database constraint of the project has a test that makes the database reject a row."""

from pathlib import Path

from django.apps import apps

PROJECT_APPS = ["conversations", "store", "tickets", "knowledge", "webhooks", "analytics"]


def test_every_named_constraint_is_exercised_by_a_test() -> None:
    names = {
        constraint.name
        for label in PROJECT_APPS
        for model in apps.get_app_config(label).get_models()
        for constraint in model._meta.constraints
    }
    tests_text = "\n".join(
        path.read_text() for path in Path(__file__).parent.rglob("test_*.py") if path.name != Path(__file__).name
    )

    assert sorted(name for name in names if name not in tests_text) == []
