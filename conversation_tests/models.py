"""The store's conversation tests, their runs and each test's result in a run."""

from __future__ import annotations

from django.contrib.postgres.fields import ArrayField
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _


class ConversationTest(models.Model):
    """One test, as the YAML mapping of docs/testing.md (its `name` is the row's; the suite groups tests)."""

    suite = models.CharField(_("suite"), max_length=100, default="default")
    name = models.CharField(_("name"), max_length=200)
    spec = models.TextField(_("test"), help_text=_("The test in YAML: shopper, orders and turns (docs/testing.md)."))
    source = models.CharField(
        _("made from"), max_length=200, blank=True, help_text=_("The conversation or question it was made from.")
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = _("conversation test")
        verbose_name_plural = _("conversation tests")
        ordering = ["suite", "name"]
        constraints = [models.UniqueConstraint(fields=["suite", "name"], name="conversation_test_unique_name")]

    def __str__(self) -> str:
        return f"{self.suite} › {self.name}"


class RunTrigger(models.TextChoices):
    ADMIN = "admin", _("Run from the admin")
    NIGHTLY = "nightly", _("Nightly run")
    COMMAND = "command", _("Command line")


class RunStatus(models.TextChoices):
    QUEUED = "queued", _("Queued")
    RUNNING = "running", _("Running")
    PASSED = "passed", _("Passed")
    FAILED = "failed", _("Failed")


class ConversationTestRun(models.Model):
    trigger = models.CharField(_("trigger"), max_length=16, choices=RunTrigger.choices)
    status = models.CharField(_("status"), max_length=16, choices=RunStatus.choices, default=RunStatus.QUEUED)
    only = ArrayField(models.BigIntegerField(), default=list, blank=True)  # these stored tests; empty: every one
    total = models.PositiveIntegerField(_("tests"), default=0)
    passed = models.PositiveIntegerField(_("passed"), default=0)
    failed = models.PositiveIntegerField(_("failed"), default=0)
    # {"intents"|"workflows"|"tools"|"articles": {"exercised": [...], "untouched": [...]}}
    coverage = models.JSONField(_("coverage"), default=dict, blank=True)
    error = models.TextField(blank=True, help_text=_("Why the run stopped before its end."))
    started_by = models.CharField(max_length=150, blank=True)
    created_at = models.DateTimeField(_("queued at"), auto_now_add=True)
    finished_at = models.DateTimeField(_("finished at"), null=True, blank=True)

    class Meta:
        verbose_name = _("test run")
        verbose_name_plural = _("test runs")
        ordering = ["-created_at"]
        constraints = [
            models.CheckConstraint(condition=Q(status__in=RunStatus.values), name="test_run_status_valid"),
            models.CheckConstraint(condition=Q(passed__lte=models.F("total")), name="test_run_passed_within_total"),
        ]

    def __str__(self) -> str:
        passed = _("%(passed)s of %(total)s passed") % {"passed": self.passed, "total": self.total}
        return f"#{self.pk} · {self.get_trigger_display()} · {passed}"

    @property
    def done(self) -> int:
        return self.passed + self.failed


class ConversationTestResult(models.Model):
    run = models.ForeignKey(ConversationTestRun, on_delete=models.CASCADE, related_name="results")
    test = models.ForeignKey(
        ConversationTest, null=True, blank=True, on_delete=models.SET_NULL, related_name="results"
    )  # none for a test read from a file
    suite = models.CharField(max_length=100)
    name = models.CharField(max_length=200)
    passed = models.BooleanField()  # every attempt passed
    attempts = models.PositiveSmallIntegerField(default=1)  # manage.py test_conversations --repeat K
    attempts_passed = models.PositiveSmallIntegerField(default=0)
    failures = models.JSONField(default=list, blank=True)  # [conversation_tests.failures.Failure.as_json()]
    transcript = models.JSONField(default=list, blank=True)  # [conversation_tests.runner.TurnSeen as JSON]
    duration_ms = models.FloatField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["run", "suite", "name"]
        indexes = [models.Index(fields=["test", "-created_at"], name="test_result_latest")]

    def __str__(self) -> str:
        return f"{self.suite} › {self.name}: {'passed' if self.passed else 'failed'}"
