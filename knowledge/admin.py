"""Knowledge in the admin: bases, documents with their chunks, upload jobs with live progress,
and the knowledge-gaps page where staff turn missed questions into FAQ entries."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect, JsonResponse
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext_lazy as _

from knowledge.embeddings import EmbeddingsUnavailable
from knowledge.gaps import knowledge_gaps, questions_answered_recently
from knowledge.models import Chunk, Document, IngestFile, IngestJob, KnowledgeBase, Language, MissedQuestion
from knowledge.readers import SUPPORTED_TYPES
from knowledge.selectors import ingest_job_json
from knowledge.services import IngestError, gap_answer, ingest_job_cancel, ingest_job_create


class MultipleFileInput(forms.ClearableFileInput):
    allow_multiple_selected = True


class MultipleFileField(forms.FileField):
    def clean(self, data: Any, initial: Any = None) -> list[Any]:
        single = super().clean
        return [single(d, initial) for d in data] if isinstance(data, list | tuple) else [single(data, initial)]


class UploadForm(forms.Form):
    files = MultipleFileField(  # type: ignore[assignment]  # the upload's field; the bound form's .files is request.FILES
        widget=MultipleFileInput(attrs={"accept": ",".join(sorted(SUPPORTED_TYPES))}),
        help_text="Markdown, text, HTML, PDF, DOCX, or FAQ .csv (question,answer) / .json; several at once.",
    )
    language = forms.ChoiceField(choices=[("auto", "Detect"), *Language.choices], initial="auto")


class GapAnswerForm(forms.Form):
    question = forms.CharField(max_length=300)
    answer = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}))
    knowledge_base = forms.ModelChoiceField(KnowledgeBase.objects.all(), empty_label=None)
    language = forms.ChoiceField(choices=Language.choices)
    missed_ids = forms.CharField(widget=forms.HiddenInput)

    def clean_missed_ids(self) -> list[int]:
        try:
            return [int(pk) for pk in self.cleaned_data["missed_ids"].split(",") if pk]
        except ValueError:
            raise forms.ValidationError("Invalid question list.") from None


class DeletesChunks:
    """Chunks go with their document, so deleting one (or a whole knowledge base) needs no
    permission on chunks, which nobody has (ChunkAdmin)."""

    def get_deleted_objects(self, objs: Any, request: HttpRequest) -> tuple[Any, Any, set[str], Any]:
        deleted, counts, perms_needed, protected = super().get_deleted_objects(objs, request)  # type: ignore[misc]
        return deleted, counts, perms_needed - {str(Chunk._meta.verbose_name)}, protected


@admin.register(KnowledgeBase)
class KnowledgeBaseAdmin(DeletesChunks, admin.ModelAdmin):
    list_display = ["name", "title", "audience", "document_count", "upload_link", "updated_at"]
    list_filter = ["audience"]
    search_fields = ["name", "title", "description"]

    @admin.display(description="documents")
    def document_count(self, obj: KnowledgeBase) -> int:
        return obj.documents.count()

    @admin.display(description="")
    def upload_link(self, obj: KnowledgeBase) -> str:
        return format_html('<a href="{}">Upload documents</a>', reverse("admin:knowledge_upload", args=[obj.pk]))

    def get_urls(self) -> list[Any]:
        upload = self.admin_site.admin_view(self.upload_view)
        return [path("<int:kb_id>/upload/", upload, name="knowledge_upload"), *super().get_urls()]

    def upload_view(self, request: HttpRequest, kb_id: int) -> HttpResponse:
        kb = get_object_or_404(KnowledgeBase, pk=kb_id)
        if not self.has_change_permission(request, kb):
            return HttpResponse(status=403)
        form = UploadForm(request.POST or None, request.FILES or None)
        if request.method == "POST" and form.is_valid():
            try:
                job = ingest_job_create(
                    kb_name=kb.name,
                    files=form.cleaned_data["files"],
                    language=form.cleaned_data["language"],
                    requested_by=request.user.get_username(),
                )
            except IngestError as exc:
                form.add_error("files", str(exc))
            else:
                return HttpResponseRedirect(reverse("admin:knowledge_ingestjob_change", args=[job.pk]))
        context = {**self.admin_site.each_context(request), "title": f"Upload documents to {kb}", "kb": kb}
        return TemplateResponse(request, "admin/knowledge/upload.html", {**context, "form": form, "opts": self.opts})


class ReadOnlyInline(admin.TabularInline):
    """Rows written by ingest, shown as they are."""

    extra = 0
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class ChunkInline(ReadOnlyInline):
    """The chunk browser of a document: what was indexed, in order, with its heading path."""

    model = Chunk
    fields = readonly_fields = ("position", "heading", "text")
    show_change_link = True


class WithheldFilter(admin.SimpleListFilter):
    title = _("instructions withheld")
    parameter_name = "withheld"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, Any]]:
        return [("yes", _("Yes")), ("no", _("No"))]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Document]) -> QuerySet[Document]:
        if self.value() == "yes":
            return queryset.exclude(withheld=[])
        if self.value() == "no":
            return queryset.filter(withheld=[])
        return queryset


@admin.register(Document)
class DocumentAdmin(DeletesChunks, admin.ModelAdmin):
    list_display = [
        "title",
        "knowledge_base",
        "language",
        "version",
        "status",
        "chunk_count",
        "instructions_withheld",
        "source",
        "updated_at",
    ]
    list_filter = ["knowledge_base", "language", "status", WithheldFilter]
    search_fields = ["title", "source", "checksum"]
    # What was ingested is changed by ingesting again; only the title, which citations show, is staff's.
    readonly_fields = [
        "knowledge_base",
        "source",
        "language",
        "status",
        "checksum",
        "version",
        "withheld_sentences",
        "created_at",
        "updated_at",
    ]
    exclude = ["withheld"]
    inlines = [ChunkInline]

    @admin.display(description="chunks")
    def chunk_count(self, obj: Document) -> int:
        return obj.chunks.count()

    @admin.display(description=_("instructions withheld"), boolean=True)
    def instructions_withheld(self, obj: Document) -> bool:
        return bool(obj.withheld)

    @admin.display(description=_("withheld from answers"))
    def withheld_sentences(self, obj: Document) -> str:
        """What the document said to the assistant rather than to customers (knowledge.injection)."""
        if not obj.withheld:
            return "—"
        return format_html_join("", "<p>{}</p>", ((sentence,) for sentence in obj.withheld))


@admin.register(Chunk)
class ChunkAdmin(admin.ModelAdmin):
    """Read-only: a chunk's search text and embedding are derived from its text, so an edit here
    would search as the old text; a change is made in the source document and ingested."""

    list_display = ["document", "position", "heading", "short_text"]
    list_filter = ["document__knowledge_base", "document__language"]
    search_fields = ["text", "heading", "document__title"]
    raw_id_fields = ["document"]
    list_select_related = ["document"]
    exclude = ["embedding"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    @admin.display(description="text")
    def short_text(self, obj: Chunk) -> str:
        return obj.text[:100]


class IngestFileInline(ReadOnlyInline):
    model = IngestFile
    fields = readonly_fields = ("name", "size", "outcome", "chunks", "error")


@admin.register(IngestFile)
class IngestFileAdmin(admin.ModelAdmin):
    """Every uploaded file with its outcome, across jobs: where a refused file's reason is found."""

    list_display = ["name", "job", "size", "outcome", "chunks", "error"]
    list_filter = ["outcome"]
    search_fields = ["name", "error"]
    exclude = ["content"]
    readonly_fields = ["job", "name", "size", "outcome", "chunks", "error"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(IngestJob)
class IngestJobAdmin(admin.ModelAdmin):
    list_display = ["created_at", "knowledge_base", "status", "percent", "requested_by", "finished_at"]
    list_filter = ["status", "knowledge_base"]
    search_fields = ["requested_by", "files__name", "error"]
    readonly_fields = [
        "knowledge_base",
        "language",
        "status",
        "progress",
        "current_file",
        "requested_by",
        "error",
        "created_at",
        "started_at",
        "finished_at",
    ]
    inlines = [IngestFileInline]
    change_form_template = "admin/knowledge/ingestjob_change_form.html"
    actions = ["cancel"]

    @admin.display(description="progress")
    def percent(self, obj: IngestJob) -> str:
        return f"{obj.progress:.0%}"

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # jobs start from a knowledge base's "Upload documents"

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_cancel_permission(self, request: HttpRequest) -> bool:
        # Jobs are never edited, so cancelling is what "change" allows (the support group has it).
        return request.user.has_perm("knowledge.change_ingestjob")

    @admin.action(description="Cancel the selected jobs", permissions=["cancel"])
    def cancel(self, request: HttpRequest, queryset: QuerySet[IngestJob]) -> None:
        cancelled = 0
        for job_id in queryset.values_list("pk", flat=True):
            try:
                ingest_job_cancel(job_id)
                cancelled += 1
            except IngestError:
                pass  # it had ended already
        self.message_user(request, f"{cancelled} job(s) cancelled.", messages.SUCCESS)

    def change_view(self, request: HttpRequest, object_id: str, form_url: str = "", extra_context: Any = None) -> Any:
        extra_context = {**(extra_context or {}), "can_cancel": self.has_cancel_permission(request)}
        return super().change_view(request, object_id, form_url, extra_context)

    def get_urls(self) -> list[Any]:
        progress = self.admin_site.admin_view(self.progress_view)
        cancel = self.admin_site.admin_view(self.cancel_view)
        return [
            path("<uuid:job_id>/progress/", progress, name="knowledge_ingestjob_progress"),
            path("<uuid:job_id>/cancel/", cancel, name="knowledge_ingestjob_cancel"),
            *super().get_urls(),
        ]

    def cancel_view(self, request: HttpRequest, job_id: Any) -> HttpResponse:
        if request.method != "POST" or not self.has_cancel_permission(request):
            return HttpResponse(status=405 if request.method != "POST" else 403)
        try:
            ingest_job_cancel(job_id)
            self.message_user(request, "The job was cancelled; files finished before it are kept.", messages.SUCCESS)
        except IngestError as exc:
            self.message_user(request, str(exc), messages.WARNING)
        except IngestJob.DoesNotExist:
            raise Http404("no such job") from None
        return HttpResponseRedirect(reverse("admin:knowledge_ingestjob_change", args=[job_id]))

    def progress_view(self, request: HttpRequest, job_id: Any) -> JsonResponse:
        if not self.has_view_permission(request):
            return JsonResponse({"error": "forbidden"}, status=403)
        job = get_object_or_404(IngestJob.objects.select_related("knowledge_base"), pk=job_id)
        return JsonResponse(ingest_job_json(job))


@admin.register(MissedQuestion)
class MissedQuestionAdmin(admin.ModelAdmin):
    """The changelist is the knowledge-gaps page: missed questions grouped by meaning."""

    list_display = ["question", "language", "created_at", "answered_at"]
    search_fields = ["question"]
    exclude = ["embedding"]
    change_list_template = "admin/knowledge/knowledge_gaps.html"

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def changelist_view(self, request: HttpRequest, extra_context: dict[str, Any] | None = None) -> HttpResponse:
        if request.method == "POST":
            return self._answer(request)
        default_kb = KnowledgeBase.objects.order_by("pk").first()
        gaps = [
            (
                gap,
                GapAnswerForm(
                    initial={
                        "question": gap.question,
                        "language": gap.language,
                        "knowledge_base": default_kb,
                        "missed_ids": ",".join(map(str, gap.missed_ids)),
                    },
                    prefix=f"gap{index}",
                ),
            )
            for index, gap in enumerate(knowledge_gaps())
        ]
        context = {
            **self.admin_site.each_context(request),
            "title": "Knowledge gaps",
            "opts": self.opts,
            "gaps": gaps,
            "answered": questions_answered_recently(),
            "can_answer": self.has_change_permission(request) and default_kb is not None,
        }
        return TemplateResponse(request, self.change_list_template, context)

    def _answer(self, request: HttpRequest) -> HttpResponse:
        if not self.has_change_permission(request):
            return HttpResponse(status=403)
        prefix = request.POST.get("prefix", "")
        form = GapAnswerForm(request.POST, prefix=prefix)
        if not form.is_valid():
            errors = "; ".join(f"{field}: {' '.join(map(str, e))}" for field, e in form.errors.items())
            messages.error(request, f"The FAQ entry was not created ({errors}).")
        else:
            data = form.cleaned_data
            try:
                document = gap_answer(
                    question=data["question"],
                    answer=data["answer"],
                    kb_name=data["knowledge_base"].name,
                    language=data["language"],
                    missed_ids=data["missed_ids"],
                )
            except (IngestError, EmbeddingsUnavailable) as exc:
                messages.error(request, str(exc))
            else:
                messages.success(request, f"FAQ entry “{document.title}” added to {document.knowledge_base}.")
        return HttpResponseRedirect(reverse("admin:knowledge_missedquestion_changelist"))
