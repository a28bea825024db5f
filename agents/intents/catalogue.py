"""The product names and options entity extraction matches against, refreshed every minute."""

from __future__ import annotations

import threading
import time

from agents.intents.entities.catalogue import Catalogue, CatalogueProduct
from stores.builtin.models import Product

_TTL_S = 60
_lock = threading.Lock()
_cached: tuple[float, Catalogue] | None = None


def catalogue_get() -> Catalogue:
    global _cached
    with _lock:
        if _cached is not None and time.monotonic() - _cached[0] < _TTL_S:
            return _cached[1]
    products = []
    for product in Product.objects.prefetch_related("variants").only("name", "name_zh", "aliases", "category"):
        values = {str(v) for variant in product.variants.all() for v in variant.options.values()}
        products.append(
            CatalogueProduct(
                name=product.name,
                aliases=tuple(product.aliases),
                name_zh=product.name_zh,
                option_values=tuple(sorted(values)),
                category=product.category,
            )
        )
    catalogue = Catalogue(products=tuple(products))
    with _lock:
        _cached = (time.monotonic(), catalogue)
    return catalogue


def catalogue_forget() -> None:
    global _cached
    with _lock:
        _cached = None
