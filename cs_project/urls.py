from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from agents.api import NluParseApi
from agents.store.views import storefront
from cs_project.views import healthz

api_v1 = [
    path("nlu/parse", NluParseApi.as_view(), name="nlu-parse"),
]

urlpatterns = [
    path("", storefront, name="storefront"),
    path("admin/", admin.site.urls),
    path("healthz", healthz, name="healthz"),
    path("api/v1/", include(api_v1)),
    path("api/schema/", SpectacularAPIView.as_view(permission_classes=[], authentication_classes=[]), name="schema"),
    path(
        "api/docs/",
        SpectacularSwaggerView.as_view(url_name="schema", permission_classes=[], authentication_classes=[]),
        name="api-docs",
    ),
]
