"""REST endpoints of the knowledge base: upload documents (a background job) and follow the job."""

from __future__ import annotations

import uuid

from django.http import QueryDict
from django.shortcuts import get_object_or_404
from django.urls import reverse
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.exceptions import APIException, NotFound, ValidationError
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from knowledge.models import Audience, IngestJob
from knowledge.selectors import chunk_search_hybrid, ingest_job_json
from knowledge.services import IngestError, ingest_job_cancel, ingest_job_create


class UploadAcceptedSerializer(serializers.Serializer):
    job_id = serializers.UUIDField()
    status = serializers.CharField()
    url = serializers.CharField(help_text="GET it for progress.")


class IngestJobSerializer(serializers.Serializer):
    class FileSerializer(serializers.Serializer):
        name = serializers.CharField()
        size = serializers.IntegerField()
        outcome = serializers.CharField(allow_null=True, help_text="added, changed, unchanged, failed or skipped")
        chunks = serializers.IntegerField()
        error = serializers.CharField(allow_null=True)

    job_id = serializers.UUIDField()
    knowledge_base = serializers.CharField()
    status = serializers.CharField(help_text="queued, running, succeeded, partial, failed or cancelled")
    progress = serializers.FloatField(min_value=0, max_value=1)
    current_file = serializers.CharField(allow_blank=True)
    error = serializers.CharField(allow_blank=True)
    files = FileSerializer(many=True)
    created_at = serializers.DateTimeField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)


class KbDocumentUploadApi(APIView):
    """Files are checked for type, size and emptiness at once (400); the worker reads, chunks and
    embeds them and reports per-file outcomes on the job."""

    required_scope = "kb"

    parser_classes = [MultiPartParser, FormParser]

    class KbUploadSerializer(serializers.Serializer):
        file = serializers.ListField(child=serializers.FileField(allow_empty_file=True), allow_empty=False)
        kb = serializers.SlugField(max_length=64, required=False, default="default")
        lang = serializers.ChoiceField(choices=["zh", "en", "auto"], required=False, default="auto")
        audience = serializers.ChoiceField(
            choices=Audience.values,
            required=False,
            help_text="Sets the knowledge base's audience: public (the chat quotes it) or internal (staff only)."
            " Left out: a new base is public, an existing one keeps its audience.",
        )

    @extend_schema(
        request={"multipart/form-data": KbUploadSerializer},
        responses={202: UploadAcceptedSerializer},
        summary="Upload knowledge documents (md, txt, html, pdf, docx, FAQ csv/json) for background ingest",
    )
    def post(self, request: Request) -> Response:
        _body_length_required(request)
        # An empty body, or one with no form content type, parses to a plain {} rather than a QueryDict.
        fields = request.data.dict() if isinstance(request.data, QueryDict) else {}
        data = self.KbUploadSerializer(data={**fields, "file": request.FILES.getlist("file")})
        data.is_valid(raise_exception=True)
        params = data.validated_data
        try:
            job = ingest_job_create(
                kb_name=params["kb"],
                files=params["file"],
                language=params["lang"],
                requested_by=str(request.user or ""),
                audience=params.get("audience"),
            )
        except IngestError as exc:
            raise ValidationError({"file": [str(exc)]}) from None
        url = reverse("kb-job", kwargs={"job_id": job.pk})
        body = {"job_id": str(job.pk), "status": job.status, "url": url}
        return Response(body, status=202, headers={"Location": url})


def _body_length_required(request: Request) -> None:
    """A chunked body without Content-Length is never read by Django's multipart parser (nor is its
    size checked by cs_project.middleware): say so, rather than that no file came."""
    meta = request.META
    if not meta.get("CONTENT_LENGTH") and "chunked" in meta.get("HTTP_TRANSFER_ENCODING", "").lower():
        raise ValidationError({"file": ["An upload needs a Content-Length header; a chunked body is not read."]})


class IngestJobApi(APIView):
    required_scope = "kb"

    @extend_schema(responses=IngestJobSerializer, summary="Progress, per-file outcomes and errors of an upload job")
    def get(self, request: Request, job_id: str) -> Response:
        job = get_object_or_404(IngestJob.objects.select_related("knowledge_base"), pk=_job_pk(job_id))
        return Response(ingest_job_json(job))


def _job_pk(job_id: str) -> uuid.UUID:
    try:
        return uuid.UUID(job_id)
    except ValueError:
        raise NotFound("no such job") from None


class JobEnded(APIException):
    status_code = 409
    default_code = "conflict"


class IngestJobCancelApi(APIView):
    """Stop a queued or running upload job; files finished before stay in the knowledge base."""

    required_scope = "kb"

    @extend_schema(request=None, responses=IngestJobSerializer, summary="Cancel an upload job")
    def post(self, request: Request, job_id: str) -> Response:
        try:
            job = ingest_job_cancel(_job_pk(job_id))
        except IngestJob.DoesNotExist:
            raise NotFound("no such job") from None
        except IngestError as exc:
            raise JobEnded(str(exc)) from None
        return Response(ingest_job_json(job))


class KbSearchResultSerializer(serializers.Serializer):
    class ResultSerializer(serializers.Serializer):
        chunk_id = serializers.IntegerField()
        document = serializers.CharField()
        title = serializers.CharField(allow_blank=True)
        heading = serializers.CharField(allow_blank=True)
        text = serializers.CharField()
        score = serializers.FloatField()
        audience = serializers.ChoiceField(choices=Audience.values, help_text="internal: staff only, never quoted")

    results = ResultSerializer(many=True)
    miss = serializers.BooleanField(help_text="True when the knowledge base does not know.")


class KbSearchApi(APIView):
    required_scope = "kb"

    class KbSearchQuerySerializer(serializers.Serializer):
        q = serializers.CharField(max_length=500)
        k = serializers.IntegerField(min_value=1, max_value=50, required=False, default=5)
        kb = serializers.SlugField(max_length=64, required=False)
        lang = serializers.ChoiceField(choices=["zh", "en"], required=False)
        audience = serializers.ChoiceField(
            choices=Audience.values, required=False, help_text="Only knowledge bases of this audience; left out: all."
        )

    @extend_schema(
        parameters=[KbSearchQuerySerializer],
        responses=KbSearchResultSerializer,
        summary="Hybrid search of the knowledge base",
    )
    def get(self, request: Request) -> Response:
        data = self.KbSearchQuerySerializer(data=request.query_params)
        data.is_valid(raise_exception=True)
        params = data.validated_data
        results, miss = chunk_search_hybrid(
            query=params["q"],
            k=params["k"],
            kb=params.get("kb"),
            lang=params.get("lang"),
            audience=params.get("audience"),
        )
        return Response(
            {
                "results": [
                    {
                        "chunk_id": r.chunk_id,
                        "document": r.document,
                        "title": r.title,
                        "heading": r.heading,
                        "text": r.text,
                        "score": r.score,
                        "audience": r.audience,
                    }
                    for r in results
                ],
                "miss": miss,
            }
        )
