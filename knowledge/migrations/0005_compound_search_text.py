"""The keyword index also holds a verb and its particle as one word now ("set up" → "setup",
knowledge.chunking): chunks ingested before are re-segmented the way 0003 did, so "setup" finds the
"set up" of an article ingested earlier too."""

from importlib import import_module

from django.db import migrations

resegment = import_module("knowledge.migrations.0003_stemmed_search_text").restem


class Migration(migrations.Migration):
    dependencies = [("knowledge", "0004_english_embedding")]

    operations = [migrations.RunPython(resegment, migrations.RunPython.noop)]
