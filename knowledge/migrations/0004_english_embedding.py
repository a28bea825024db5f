"""English passages get a second vector from the English companion model (knowledge.embeddings):
chunks ingested before are given theirs here, so they are found the same way as new ones."""

import pgvector.django.indexes
import pgvector.django.vector
from django.db import migrations

BATCH = 200


def embed_english(apps, schema_editor):
    from knowledge.embeddings import english_passage_vectors

    Chunk = apps.get_model("knowledge", "Chunk")
    chunks = Chunk.objects.filter(english_embedding__isnull=True).only("pk", "heading", "text").order_by("pk")
    last = 0
    while batch := list(chunks.filter(pk__gt=last)[:BATCH]):
        last = batch[-1].pk
        vectors = english_passage_vectors([f"{c.heading}: {c.text}" for c in batch])
        for chunk, vector in zip(batch, vectors, strict=True):
            chunk.english_embedding = vector
        Chunk.objects.bulk_update([c for c in batch if c.english_embedding is not None], ["english_embedding"])


class Migration(migrations.Migration):
    dependencies = [("knowledge", "0003_stemmed_search_text")]

    operations = [
        migrations.AddField(
            model_name="chunk",
            name="english_embedding",
            field=pgvector.django.vector.VectorField(blank=True, dimensions=384, null=True),
        ),
        migrations.AddIndex(
            model_name="chunk",
            index=pgvector.django.indexes.HnswIndex(
                ef_construction=64,
                fields=["english_embedding"],
                m=16,
                name="chunk_english_embedding_hnsw",
                opclasses=["vector_cosine_ops"],
            ),
        ),
        migrations.RunPython(embed_english, migrations.RunPython.noop),
    ]
