from django.contrib import admin

from knowledge.models import Chunk, Document, KnowledgeBase


@admin.register(KnowledgeBase)
class KnowledgeBaseAdmin(admin.ModelAdmin):
    list_display = ["name", "title", "updated_at"]
    search_fields = ["name", "title", "description"]


@admin.register(Document)
class DocumentAdmin(admin.ModelAdmin):
    list_display = ["title", "knowledge_base", "language", "version", "status", "source", "updated_at"]
    list_filter = ["knowledge_base", "language", "status"]
    search_fields = ["title", "source", "checksum"]
    readonly_fields = ["checksum", "created_at", "updated_at"]


@admin.register(Chunk)
class ChunkAdmin(admin.ModelAdmin):
    list_display = ["document", "position", "heading", "short_text"]
    list_filter = ["document__knowledge_base", "document__language"]
    search_fields = ["text", "heading", "document__title"]
    raw_id_fields = ["document"]
    list_select_related = ["document"]
    exclude = ["embedding"]
    readonly_fields = ["search_text"]

    @admin.display(description="text")
    def short_text(self, obj: Chunk) -> str:
        return obj.text[:100]
