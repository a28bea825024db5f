from django.contrib import admin
from django.urls import include, path
from django.views.decorators.cache import cache_control
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from agents.api import (
    ConversationCloseApi,
    ConversationCreateApi,
    ConversationDetailApi,
    MessagesApi,
    NluParseApi,
    TurnDetailApi,
)
from analytics.api import AnalyticsApi
from analytics.dashboard import dashboard_page, dashboard_view, drilldown_page, export_csv
from conversations.views import widget_session
from cs_project.inbox import inbox_list_fragment, inbox_page
from cs_project.views import bad_request, healthz, not_found, server_error
from knowledge.api import IngestJobApi, IngestJobCancelApi, KbDocumentUploadApi, KbSearchApi
from knowledge.views import kb_source
from stores.api import StoreEventsApi
from stores.builtin.views import storefront
from tickets.api import TicketDetailApi, TicketListApi
from tickets.console import console_view
from webhooks.api import WebhookDeliveryListApi, WebhookDetailApi, WebhookListApi

api_v1 = [
    path("nlu/parse", NluParseApi.as_view(), name="nlu-parse"),
    path("kb/search", KbSearchApi.as_view(), name="kb-search"),
    path("kb/documents", KbDocumentUploadApi.as_view(), name="kb-documents"),
    path("kb/jobs/<str:job_id>", IngestJobApi.as_view(), name="kb-job"),
    path("kb/jobs/<str:job_id>/cancel", IngestJobCancelApi.as_view(), name="kb-job-cancel"),
    path("conversations", ConversationCreateApi.as_view(), name="conversation-create"),
    path("tickets", TicketListApi.as_view(), name="ticket-list"),
    path("tickets/<int:ticket_id>", TicketDetailApi.as_view(), name="ticket-detail"),
    path("conversations/<int:conversation_id>", ConversationDetailApi.as_view(), name="conversation-detail"),
    path("conversations/<int:conversation_id>/messages", MessagesApi.as_view(), name="conversation-messages"),
    path("conversations/<int:conversation_id>/turns/<int:turn_id>", TurnDetailApi.as_view(), name="turn-detail"),
    path("conversations/<int:conversation_id>/close", ConversationCloseApi.as_view(), name="conversation-close"),
    path("analytics", AnalyticsApi.as_view(), name="analytics-api"),
    path("store/events", StoreEventsApi.as_view(), name="store-events"),
    path("webhooks", WebhookListApi.as_view(), name="webhook-list"),
    path("webhooks/<int:subscription_id>", WebhookDetailApi.as_view(), name="webhook-detail"),
    path("webhooks/<int:subscription_id>/deliveries", WebhookDeliveryListApi.as_view(), name="webhook-deliveries"),
]

urlpatterns = [
    path("", storefront, name="storefront"),
    path("admin/console/", console_view(inbox_page), name="console"),
    path("admin/console/list", console_view(inbox_list_fragment), name="console-list"),
    path("admin/console/<int:conversation_id>/", console_view(inbox_page), name="console-chat"),
    path("admin/console/", include("tickets.console")),
    path("admin/analytics/", dashboard_view(dashboard_page), name="analytics"),
    path("admin/analytics/conversations/", dashboard_view(drilldown_page), name="analytics-conversations"),
    path("admin/analytics/export.csv", dashboard_view(export_csv), name="analytics-export"),
    path("admin/", admin.site.urls),
    path("healthz", healthz, name="healthz"),
    # Its answer holds the chat's resume token (a bearer credential for WIDGET_TOKEN_MAX_AGE_S) and the shopper's
    # name: no cache, shared or the browser's, may keep it.
    path("widget/session", cache_control(private=True, no_store=True)(widget_session), name="widget-session"),
    path("kb/sources/<int:chunk_id>", kb_source, name="kb-source"),
    path("api/v1/", include(api_v1)),
    path("api/schema/", SpectacularAPIView.as_view(permission_classes=[], authentication_classes=[]), name="schema"),
    path(
        "api/docs/",
        SpectacularSwaggerView.as_view(url_name="schema", permission_classes=[], authentication_classes=[]),
        name="api-docs",
    ),
]

handler400 = bad_request
handler404 = not_found
handler500 = server_error
