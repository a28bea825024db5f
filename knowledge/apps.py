import weakref
from typing import Any

from django.apps import AppConfig
from django.db import DatabaseError
from django.db.backends.signals import connection_created
from django.db.models.signals import post_delete, post_save

_set_on: weakref.WeakSet[Any] = weakref.WeakSet()  # the pooled connections that have it


def _hnsw_iterative_scans(sender: Any, connection: Any, **kwargs: Any) -> None:
    """An HNSW scan yields its ef_search nearest entries and the filters (this knowledge base, this
    language, rows still visible) apply after, so a selective filter could leave nothing. Iterative
    scans (pgvector 0.8) keep walking the graph until enough rows pass. Set once per connection
    rather than per search (it costs no round trip on the search path), and once per pooled
    connection rather than each time it is taken from the pool."""
    if connection.vendor != "postgresql" or connection.connection in _set_on:
        return
    try:
        with connection.cursor() as cursor:
            cursor.execute("SET hnsw.iterative_scan = strict_order")
        _set_on.add(connection.connection)
    except DatabaseError:  # pgvector before 0.8: plain scans, as the README warns
        pass


class KnowledgeConfig(AppConfig):
    name = "knowledge"
    verbose_name = "Knowledge base"

    def ready(self) -> None:
        from knowledge.models import Document, KnowledgeBase
        from knowledge.services import knowledge_changed

        connection_created.connect(_hnsw_iterative_scans, dispatch_uid="knowledge_hnsw_iterative_scans")
        # Not on Chunk: chunks change only with their document (the admin shows them read-only), and
        # a receiver there would make deleting a document load every chunk it had.
        for model in (KnowledgeBase, Document):
            for signal in (post_save, post_delete):
                signal.connect(knowledge_changed, sender=model, dispatch_uid=f"knowledge_changed_{model.__name__}")
