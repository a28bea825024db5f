"""The product names and options entity extraction matches against, built from the store's catalogue snapshot
(stores.catalogue) and built again when that snapshot changes."""

from __future__ import annotations

import logging
import threading

from agents.intents.entities.catalogue import EMPTY_CATALOGUE, Catalogue, CatalogueProduct
from stores.catalogue import store_catalogue, store_catalogue_forget
from stores.records import StoreCatalogue, StoreUnavailable

log = logging.getLogger(__name__)

_lock = threading.Lock()
_built: tuple[StoreCatalogue, Catalogue] | None = None


def _entities(store: StoreCatalogue) -> Catalogue:
    products = []
    for product in store.products:
        values = {str(v) for variant in product.variants for v in variant.options.values()}
        products.append(
            CatalogueProduct(
                name=product.name,
                aliases=product.aliases,
                name_zh=product.name_zh,
                option_values=tuple(sorted(values)),
                category=product.category,
            )
        )
    return Catalogue(products=tuple(products))


def catalogue_get() -> Catalogue:
    """What to match against; with a store that has never answered, nothing (a message is still understood,
    only no product in it is recognised)."""
    global _built
    try:
        store = store_catalogue()
    except StoreUnavailable:
        log.warning("The store's catalogue could not be read: products are not recognised in messages for now.")
        return EMPTY_CATALOGUE
    with _lock:
        if _built is not None and _built[0] is store:
            return _built[1]
    catalogue = _entities(store)
    with _lock:
        _built = (store, catalogue)
    return catalogue


def catalogue_forget() -> None:
    global _built
    with _lock:
        _built = None
    store_catalogue_forget()
