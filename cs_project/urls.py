from django.contrib import admin
from django.urls import path

from agents.store.views import storefront
from cs_project.views import healthz

urlpatterns = [
    path("", storefront, name="storefront"),
    path("admin/", admin.site.urls),
    path("healthz", healthz, name="healthz"),
]
