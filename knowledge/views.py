"""The page a citation links to: the cited passage with its document and heading, public like
the help articles it comes from. Passages of internal knowledge bases are not found here."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from knowledge.models import Audience, Chunk, DocumentStatus


@require_GET
def kb_source(request: HttpRequest, chunk_id: int) -> HttpResponse:
    chunk = (
        Chunk.objects.select_related("document")
        .filter(pk=chunk_id, document__status=DocumentStatus.READY, document__knowledge_base__audience=Audience.PUBLIC)
        .only("heading", "text", "document__title", "document__language")
        .first()
    )
    if chunk is None:
        raise Http404("no such passage")
    return render(request, "knowledge/source.html", {"chunk": chunk, "zh": chunk.document.language == "zh"})
