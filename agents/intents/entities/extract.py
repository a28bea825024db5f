"""`extract_entities`: every extractor over one message, in the order that lets each claim its text.

Never raises: a failing extractor is logged and its entity left out, and a catalogue whose matchers
cannot be built is matched as an empty one.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import date, datetime

from agents.intents.entities.amounts import extract_amounts
from agents.intents.entities.catalogue import EMPTY_CATALOGUE, NO_MATCHERS, Catalogue, matchers_cached
from agents.intents.entities.dates import extract_dates
from agents.intents.entities.identifiers import (
    extract_bare_imei,
    extract_email,
    extract_imei_with_context,
    extract_last4,
    extract_order_ids,
    extract_phone,
    extract_prefixed_tracking,
    extract_tracking_with_context,
    extract_zip,
)
from agents.intents.entities.names import extract_names
from agents.intents.entities.products import extract_options, extract_products
from agents.intents.entities.scan import Scan
from agents.intents.entities.text import normalise

logger = logging.getLogger(__name__)


_STEPS: tuple[Callable[[Scan], None], ...] = (
    extract_email,
    extract_prefixed_tracking,
    extract_imei_with_context,
    extract_tracking_with_context,
    extract_order_ids,
    extract_bare_imei,
    extract_phone,
    extract_last4,
    extract_zip,
    extract_dates,
    # Before products and options: "my name is Chen Brown" names a person, not a brown variant.
    extract_names,
    extract_products,
    extract_options,
    extract_amounts,
)


def _local_today() -> date:
    return datetime.now().astimezone().date()


def extract_entities(
    text: str, catalogue: Catalogue = EMPTY_CATALOGUE, *, today: date | None = None
) -> dict[str, object]:
    """The entities in a customer message; only the keys found, every value JSON-serialisable.

    - order_ids: ["#W1234567", "#D1001", "12345678"]: "#" + letter + digits, or the digits alone.
    - tracking_numbers: ["SF1234567890", "1Z999AA10123456785"], upper case; never also an order id.
    - products: canonical catalogue names in order of appearance ("X9" → "Find X9").
    - options: {"color", "storage", "size"}: a catalogue option value as the catalogue spells it
      ("Star Black", "星野黑"), else an English colour ("black", "grey"; 黑色 → "black"); storage as
      "256GB", "12GB+256GB", "1TB"; size as "M", "XL". The first mention of each wins.
    - phone: digits, a leading "+" kept ("13800138000", "+14155550142"); email: lower case.
    - imei: 15 digits passing the Luhn check.
    - amounts: [{"value": 3999.0, "currency": "CNY" | "USD" | None}], each value once.
    - dates: ISO dates in order of appearance; relative ones (昨天, 3 days ago) from `today`,
      which defaults to the local date.
    - names: ["Ada Lovelace", "李伟"]; zip: "94105", "518000"; last4: "4242".
    """
    try:
        clean = normalise(text)
        if not clean or clean.isspace():
            return {}
        if isinstance(today, datetime):
            today = today.date()
        if not isinstance(today, date):
            today = _local_today()
        try:
            matchers = matchers_cached(catalogue) if isinstance(catalogue, Catalogue) else NO_MATCHERS
        except Exception:
            logger.exception("could not build the catalogue matchers")
            matchers = NO_MATCHERS
        scan = Scan(clean, today, matchers)
        for step in _STEPS:
            try:
                step(scan)
            except Exception:
                logger.exception("entity extractor %s failed", step.__name__)
        return scan.result()
    except Exception:
        logger.exception("entity extraction failed")
        return {}
