"""Workflows that collect slots, confirm, and write: return, exchange, repair, invoice, cancel, modify."""
