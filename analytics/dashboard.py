"""The owner's dashboard in the admin (/admin/analytics/): the figures as cards and charts over a period,
each card drilling down to the conversations behind it, and both as CSV. Staff who may view
conversations may view it."""

from __future__ import annotations

import csv
from collections.abc import Callable, Iterable
from datetime import timedelta
from typing import Any

from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.http.response import HttpResponseBase
from django.shortcuts import render
from django.urls import reverse
from django.utils.http import urlencode
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop, pgettext

from agents.dialog import INTENT_LABELS
from agents.taxonomy import Intent
from analytics.charts import Line, bar_chart, line_chart
from analytics.report import FIGURES, Period, PeriodError, analytics_report, conversations_behind, period_parse
from conversations.models import ClosedBy, IntentLevel, ResolutionReason
from tickets.models import EscalationReason

DRILLDOWN_PAGE_SIZE = 50


def dashboard_view(view: Callable[..., HttpResponseBase]) -> Callable[..., HttpResponseBase]:
    """The admin's login and staff check, then the permission to view conversations."""

    def guarded(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
        if not request.user.has_perm("conversations.view_conversation"):
            raise PermissionDenied
        return view(request, *args, **kwargs)

    return admin.site.admin_view(guarded)


def _period(request: HttpRequest) -> tuple[Period, str]:
    """The asked period, or the last 30 days and why the asked one was refused."""
    try:
        return period_parse(request.GET.get("from"), request.GET.get("to")), ""
    except PeriodError as error:
        return period_parse(None, None), str(error)


def _query(period: Period, **more: str) -> str:
    return urlencode({"from": period.first.isoformat(), "to": period.last.isoformat(), **more})


def _percent(rate: float | None) -> str:
    return "–" if rate is None else f"{rate * 100:.0f}%"


def _seconds(value: float | None) -> str:
    if value is None:
        return "–"
    if value < 120:
        return _("%(n)s s") % {"n": f"{value:.0f}"}
    return _("%(n)s min") % {"n": f"{value / 60:.0f}"}


# Intents a customer is never offered as a choice, so agents.dialog has no label for them.
_OTHER_INTENTS: dict[str, str] = {
    Intent.CHITCHAT: gettext_noop("Small talk"),
    Intent.EMOTION_SENSITIVE: gettext_noop("Upset customer"),
    Intent.OUT_OF_SCOPE: gettext_noop("Outside what the store does"),
}
_CACHES = {
    "intent": gettext_noop("Intent"),
    "retrieval": gettext_noop("Knowledge search"),
    "tools": gettext_noop("Store tools"),
}


def _intent_label(name: str) -> str:
    label = INTENT_LABELS[name].message if name in INTENT_LABELS else _OTHER_INTENTS.get(name)
    return _(label) if label else name.replace("_", " ").capitalize()


def dashboard_page(request: HttpRequest) -> HttpResponse:
    period, refused = _period(request)
    report = analytics_report(period)
    drill = reverse("analytics-conversations")
    cards = [
        (pgettext("a count", "Conversations"), str(report["conversations"]), "conversations"),
        (_("Resolution rate"), _percent(report["resolution_rate"]), "resolved"),
        (_("Containment rate"), _percent(report["containment_rate"]), "contained"),
        (_("Escalation rate"), _percent(report["escalation_rate"]), "escalated"),
        (_("CSAT"), "–" if report["csat"]["mean"] is None else f"{report['csat']['mean']:.2f} / 5", ""),
        (_("Satisfied (4–5)"), _percent(report["csat"]["satisfied_rate"]), ""),
        (_("Staff first response (median)"), _seconds(report["staff"]["first_response_s"]["p50"]), "human"),
        (_("Turns per conversation"), str(report["turns_per_conversation"] or "–"), ""),
    ]
    days = [row["date"][5:] for row in report["series"]]
    series = report["series"]
    reasons, levels = dict(EscalationReason.choices), dict(IntentLevel.choices)
    context = {
        **admin.site.each_context(request),
        "title": _("Analytics"),
        "period": period,
        "refused": refused,
        "presets": [
            (label, _query(Period(period.last - timedelta(days=n - 1), period.last)))
            for label, n in ((_("7 days"), 7), (_("30 days"), 30), (_("90 days"), 90))
        ],
        "cards": [
            {"label": label, "value": value, "url": f"{drill}?{_query(period, figure=figure)}" if figure else ""}
            for label, value, figure in cards
        ],
        "report": report,
        "export_url": f"{reverse('analytics-export')}?{_query(period)}",
        "charts": [
            line_chart(
                _("Conversations per day"),
                days,
                [
                    Line(_("Conversations"), [row["conversations"] for row in series]),
                    Line(_("Resolved"), [row["resolved"] for row in series]),
                    Line(_("Escalated"), [row["escalated"] for row in series]),
                ],
            ),
            line_chart(
                _("Resolution and containment"),
                days,
                [
                    Line(_("Resolution rate"), [row["resolution_rate"] for row in series]),
                    Line(_("Containment rate"), [row["containment_rate"] for row in series]),
                ],
                percent=True,
            ),
            line_chart(_("CSAT per day (1–5)"), days, [Line(_("CSAT"), [row["csat"] for row in series])], top=5),
            bar_chart(
                _("Escalations by reason"),
                [(str(reasons.get(reason, reason)), n) for reason, n in report["escalations_by_reason"].items()],
            ),
            bar_chart(_("Intents"), [(_intent_label(name), n) for name, n in report["intents"].items()]),
        ],
        "latency": [
            {**figures, "level": levels.get(level, _("all"))} for level, figures in report["latency_ms"].items()
        ],
        "caches": [
            {**figures, "name": _(_CACHES[name]), "rate": _percent(figures["rate"])}
            for name, figures in report["cache_hit_rates"].items()
        ],
    }
    return render(request, "admin/analytics/dashboard.html", context)


def drilldown_page(request: HttpRequest) -> HttpResponseBase:
    """The conversations behind one figure; `format=csv` gives all of them as CSV."""
    period, refused = _period(request)
    figure = request.GET.get("figure", "conversations")
    if figure not in FIGURES:
        figure, refused = "conversations", _("There is no figure called %(name)s.") % {"name": figure}
    conversations = conversations_behind(figure, period).select_related("customer")
    if request.GET.get("format") == "csv":
        return _csv(
            f"conversations-{figure}-{period.first}-{period.last}.csv",
            ["id", "customer", "created_at", "status", "closed_by", "resolution", "escalated_at", "turns"],
            (
                [
                    c.pk,
                    c.customer.external_id,
                    c.created_at.isoformat(),
                    c.status,
                    c.closed_by,
                    c.resolution,
                    c.escalated_at.isoformat() if c.escalated_at else "",
                    c.turn_count,
                ]
                for c in conversations.iterator(chunk_size=2000)
            ),
        )
    page = Paginator(conversations, DRILLDOWN_PAGE_SIZE).get_page(request.GET.get("page"))
    closed_by, reasons = dict(ClosedBy.choices), dict(ResolutionReason.choices)
    return render(
        request,
        "admin/analytics/conversations.html",
        {
            **admin.site.each_context(request),
            "title": _("Conversations behind a figure"),
            "figure": figure,
            "figures": [(name, _figure_label(name)) for name in FIGURES],
            "period": period,
            "refused": refused,
            "page": page,
            "rows": [
                {
                    "conversation": c,
                    "closed_by": closed_by.get(c.closed_by, ""),
                    "resolution": reasons.get(c.resolution, ""),
                }
                for c in page.object_list
            ],
            "dashboard_url": f"{reverse('analytics')}?{_query(period)}",
            "csv_url": f"{reverse('analytics-conversations')}?{_query(period, figure=figure, format='csv')}",
            "page_query": _query(period, figure=figure),
        },
    )


def _figure_label(name: str) -> str:
    return {
        "conversations": _("All conversations"),
        "resolved": _("Resolved"),
        "contained": _("Contained (no person)"),
        "escalated": _("Escalated"),
        "human": _("A person took part"),
    }[name]


def export_csv(request: HttpRequest) -> HttpResponseBase:
    """The period's figures per day, one row a day."""
    period, _refused = _period(request)
    series = analytics_report(period)["series"]
    columns = [
        "date",
        "conversations",
        "resolved",
        "escalated",
        "resolution_rate",
        "containment_rate",
        "ratings",
        "csat",
    ]
    return _csv(
        f"analytics-{period.first}-{period.last}.csv",
        columns,
        ([row[c] if row[c] is not None else "" for c in columns] for row in series),
    )


class _Echo:
    def write(self, value: str) -> str:
        return value


def _csv(filename: str, header: list[str], rows: Iterable[list[Any]]) -> StreamingHttpResponse:
    response = StreamingHttpResponse(_lines(csv.writer(_Echo()), header, rows), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def _lines(writer: Any, header: list[str], rows: Iterable[list[Any]]) -> Iterable[str]:
    yield "\ufeff"  # a byte-order mark, so that spreadsheet programs read the Chinese as UTF-8
    yield writer.writerow(header)
    for row in rows:
        yield writer.writerow([_cell(value) for value in row])


def _cell(value: Any) -> Any:
    """A text a spreadsheet would run as a formula (=, +, -, @) is written as text (CSV injection)."""
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + value
    return value
