from django.db import migrations, models


def progress_out_of_slots(apps, schema_editor):
    """Workflows saved before the progress field kept it in their slots under keys starting with "_"."""
    WorkflowState = apps.get_model("conversations", "WorkflowState")
    for state in WorkflowState.objects.filter(status__in=["active", "queued"]).iterator():
        moved = {key[1:]: value for key, value in state.slots.items() if key.startswith("_")}
        if moved:
            state.progress = moved
            state.slots = {key: value for key, value in state.slots.items() if not key.startswith("_")}
            state.save(update_fields=["progress", "slots"])


class Migration(migrations.Migration):
    dependencies = [
        ("conversations", "0009_verification_per_client"),
    ]

    operations = [
        migrations.AddField(
            model_name="workflowstate",
            name="progress",
            field=models.JSONField(blank=True, default=dict),
        ),
        migrations.RunPython(progress_out_of_slots, migrations.RunPython.noop),
    ]
