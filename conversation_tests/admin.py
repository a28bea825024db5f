"""Conversation tests in the admin: the tests with their last result, "Run all" and "Run this test" (in the worker,
with progress), a test drafted from a conversation or an answered question, and each run's results with their
transcripts and what failed."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import ObjectDoesNotExist, PermissionDenied
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from conversation_tests.failures import Failure
from conversation_tests.models import ConversationTest, ConversationTestRun, RunStatus
from conversation_tests.selectors import latest_full_run, latest_result, result_shown, with_latest_result
from conversation_tests.services import (
    draft_from_conversation,
    draft_from_question,
    run_queue,
    stored_test_read,
)
from conversation_tests.spec import SpecError

# ?from_conversation=<id> and ?from_question=<id> on the add page: the draft, the suite it goes in, its source
DRAFTS = {
    "from_conversation": (draft_from_conversation, _("Saved conversations"), "conversation"),
    "from_question": (draft_from_question, _("Knowledge gaps"), "question"),
}


class ConversationTestForm(forms.ModelForm):
    class Meta:
        model = ConversationTest
        fields = ["suite", "name", "spec", "source"]
        widgets = {
            "spec": forms.Textarea(attrs={"rows": 24, "cols": 100, "class": "yaml", "spellcheck": "false"}),
            "source": forms.HiddenInput,  # set by the draft it was made from (DRAFTS)
        }

    def clean_spec(self) -> str:
        return str(self.cleaned_data["spec"]).replace("\r\n", "\n")  # as the owner saw it: a browser sends CRLF

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if data.get("spec") and data.get("name"):
            try:
                stored_test_read(data["spec"], suite=data.get("suite") or "default", name=data["name"])
            except SpecError as exc:
                self.add_error("spec", str(exc))
        return data


@admin.register(ConversationTest)
class ConversationTestAdmin(admin.ModelAdmin):
    form = ConversationTestForm
    list_display = ["name", "suite", "last_result", "source", "updated_at"]
    list_filter = ["suite"]
    search_fields = ["name", "suite", "spec"]
    change_list_template = "admin/conversation_tests/conversationtest/change_list.html"
    change_form_template = "admin/conversation_tests/conversationtest/change_form.html"

    def get_urls(self) -> list[Any]:
        return [
            path("run/", self.admin_site.admin_view(self.run_view), name="conversation_tests_run"),
            *super().get_urls(),
        ]

    def get_queryset(self, request: HttpRequest) -> QuerySet[ConversationTest]:
        return with_latest_result(super().get_queryset(request))

    def changelist_view(self, request: HttpRequest, extra_context: dict[str, Any] | None = None) -> HttpResponse:
        return super().changelist_view(request, {**(extra_context or {}), "last_run": latest_full_run()})

    @admin.display(description=_("last result"))
    def last_result(self, test: ConversationTest) -> str:
        passed = getattr(test, "latest_passed", None)
        if passed is None:
            return gettext("not run yet")
        if passed:
            return format_html('<span class="test-passed" data-testid="test-passed">✓ {}</span>', gettext("passed"))
        failures = getattr(test, "latest_failures", None) or []
        return format_html(
            '<span class="test-failed" data-testid="test-failed">✗ {}</span> {}',
            gettext("failed"),
            str(Failure.from_json(failures[0])) if failures else "",
        )

    def get_changeform_initial_data(self, request: HttpRequest) -> dict[str, Any]:
        initial = super().get_changeform_initial_data(request)
        for key, (draft, suite, origin) in DRAFTS.items():
            if not request.GET.get(key, "").isdigit():
                continue
            try:
                name, spec = draft(int(request.GET[key]))
            except ObjectDoesNotExist:
                messages.error(request, gettext("There is nothing to draft a test from there."))
            except SpecError as exc:
                messages.error(request, str(exc))
            else:
                initial.update(name=name, spec=spec, suite=str(suite), source=f"{origin} #{request.GET[key]}")
        return initial

    def changeform_view(
        self, request: HttpRequest, object_id: str | None = None, form_url: str = "", extra_context: Any = None
    ) -> HttpResponse:
        context = dict(extra_context or {})
        if object_id and object_id.isdigit():
            result = latest_result(int(object_id))
            context["last"] = result_shown(result) if result is not None else None
        return super().changeform_view(request, object_id, form_url, context)

    def run_view(self, request: HttpRequest) -> HttpResponse:
        """POST: queue a run of every test, or of `test` only, in the worker; then follow it on the run's page."""
        if request.method != "POST":
            return HttpResponseRedirect(reverse("admin:conversation_tests_conversationtest_changelist"))
        may_run = request.user.has_perm("conversation_tests.add_conversationtestrun")
        if not self.has_view_permission(request) or not may_run:
            raise PermissionDenied
        only = [int(request.POST["test"])] if request.POST.get("test", "").isdigit() else []
        if only and not ConversationTest.objects.filter(pk=only[0]).exists():
            messages.error(request, gettext("That test no longer exists."))
            return HttpResponseRedirect(reverse("admin:conversation_tests_conversationtest_changelist"))
        run = run_queue(started_by=request.user.get_username(), only=only)
        return HttpResponseRedirect(reverse("admin:conversation_tests_conversationtestrun_change", args=[run.pk]))


@admin.register(ConversationTestRun)
class TestRunAdmin(admin.ModelAdmin):
    list_display = ["__str__", "trigger", "status", "progress", "passed", "failed", "started_by", "created_at"]
    list_filter = ["status", "trigger"]
    change_form_template = "admin/conversation_tests/conversationtestrun/run.html"

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    @admin.display(description=_("progress"))
    def progress(self, run: ConversationTestRun) -> str:
        return f"{run.done}/{run.total}"

    def change_view(
        self, request: HttpRequest, object_id: str, form_url: str = "", extra_context: Any = None
    ) -> HttpResponse:
        if not self.has_view_permission(request):
            raise PermissionDenied
        run = get_object_or_404(ConversationTestRun, pk=object_id)
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": str(run),
            "run": run,
            "running": run.status in (RunStatus.QUEUED, RunStatus.RUNNING),
            "results": [result_shown(result) for result in run.results.order_by("passed", "suite", "name")],
            "coverage": [
                {"kind": kind, **covered, "total": len(covered["exercised"]) + len(covered["untouched"])}
                for kind, covered in run.coverage.items()
            ],
        }
        return TemplateResponse(request, self.change_form_template, context)
