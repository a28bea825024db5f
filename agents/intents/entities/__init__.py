"""Entity extraction from customer messages (zh/en): ids, products, options, contacts, money, dates, names.

Pure Python: no Django, no database, no I/O. Every regular expression is compiled at import; the
catalogue matchers are compiled once per catalogue and cached.

The text is normalised with NFKC first (full-width digits, letters, "＃", "：" and "，" become ASCII),
then each extractor runs in a fixed order and claims the characters it used, so one piece of text
is reported once: a tracking number is not also an order id, an IMEI not also a phone number, a
phone number not also an amount.

`extract.extract_entities` never raises: a bug in one extractor is logged and that entity is left out.
The catalogue it matches against is `catalogue.Catalogue`; `text` holds what the extractors share,
`scan` the message being read, and one module per kind of entity does the reading.
"""
