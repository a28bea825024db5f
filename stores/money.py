"""Amounts as a customer reads them, in the currency of the store or of the row (pure)."""

from __future__ import annotations

from decimal import Decimal

SYMBOLS = {"CNY": "¥", "JPY": "¥", "USD": "$", "EUR": "€", "GBP": "£", "HKD": "HK$", "TWD": "NT$", "AUD": "A$"}


def money(amount: float | Decimal, currency: str) -> str:
    """¥3,999 / $54.04 / 12.50 CHF: whole amounts without decimals, a symbol where one is common."""
    value = float(amount)
    number = f"{value:,.0f}" if value == int(value) else f"{value:,.2f}"
    sign = "−" if value < 0 else ""
    number = number.lstrip("-")
    symbol = SYMBOLS.get(currency.upper())
    return f"{sign}{symbol}{number}" if symbol else f"{sign}{number} {currency.upper()}"
