"""The keyword index stems English words now (knowledge.chunking.search_text): chunks ingested
before are re-segmented, so questions find them the same way as new ones."""

from django.db import migrations

BATCH = 500


def restem(apps, schema_editor):
    from knowledge.chunking import search_text

    Chunk = apps.get_model("knowledge", "Chunk")
    pending = []
    for chunk in Chunk.objects.only("pk", "heading", "text", "search_text").iterator(chunk_size=BATCH):
        stemmed = search_text(f"{chunk.heading} {chunk.text}")
        if stemmed != chunk.search_text:
            chunk.search_text = stemmed
            pending.append(chunk)
        if len(pending) >= BATCH:
            Chunk.objects.bulk_update(pending, ["search_text"])
            pending = []
    Chunk.objects.bulk_update(pending, ["search_text"])


class Migration(migrations.Migration):
    dependencies = [("knowledge", "0002_ingest_jobs_and_missed_questions")]

    operations = [migrations.RunPython(restem, migrations.RunPython.noop)]
