"""One message being read: its text, the date, the catalogue's matchers, the characters already claimed.

Extractors run in a fixed order and claim the characters they use, so a piece of text is reported once;
`Scan.result` returns only the kinds of entity that were found.
"""

from __future__ import annotations

from datetime import date

from agents.intents.entities.catalogue import CatalogueMatchers


class Scan:
    def __init__(self, text: str, today: date, matchers: CatalogueMatchers) -> None:
        self.text = text
        self.today = today
        self.matchers = matchers
        self.used = bytearray(len(text))
        self.order_ids: list[tuple[int, str]] = []
        self.tracking_numbers: list[tuple[int, str]] = []
        self.products: list[str] = []
        self.options: dict[str, str] = {}
        self.option_starts: dict[str, int] = {}
        self.phone = ""
        self.email = ""
        self.imei = ""
        self.amounts: list[dict[str, object]] = []
        self.dates: list[tuple[int, str]] = []
        self.names: list[tuple[int, str]] = []
        self.zip = ""
        self.last4 = ""

    def free(self, start: int, end: int) -> bool:
        return 1 not in self.used[start:end]

    def claim(self, start: int, end: int) -> None:
        self.used[start:end] = b"\x01" * (end - start)

    def take(self, start: int, end: int) -> bool:
        """Claim [start, end) if nothing there is claimed yet; whether it was."""
        if start >= end or not self.free(start, end):
            return False
        self.claim(start, end)
        return True

    def set_option(self, key: str, value: str, start: int) -> None:
        """The first mention of each option wins."""
        if key not in self.options or start < self.option_starts[key]:
            self.options[key] = value
            self.option_starts[key] = start

    def result(self) -> dict[str, object]:
        found: dict[str, object] = {}
        tracking = in_order(self.tracking_numbers)
        orders = [order for order in in_order(self.order_ids) if order not in tracking]
        if orders:
            found["order_ids"] = orders
        if tracking:
            found["tracking_numbers"] = tracking
        if self.products:
            found["products"] = self.products
        if self.options:
            found["options"] = dict(self.options)
        if self.phone:
            found["phone"] = self.phone
        if self.email:
            found["email"] = self.email
        if self.imei:
            found["imei"] = self.imei
        if self.amounts:
            found["amounts"] = self.amounts
        if self.dates:
            found["dates"] = in_order(self.dates)
        if self.names:
            found["names"] = in_order(self.names)
        if self.zip:
            found["zip"] = self.zip
        if self.last4:
            found["last4"] = self.last4
        return found


def add_unique(items: list[str], value: str) -> None:
    if value not in items:
        items.append(value)


def in_order(found: list[tuple[int, str]]) -> list[str]:
    """Values by where they start in the text, each once."""
    return list(dict.fromkeys(value for _, value in sorted(found)))
