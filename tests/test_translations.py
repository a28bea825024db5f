"""The committed zh catalogue: every message translated, and the compiled .mo matching the .po
(run `manage.py compilemessages` after editing the .po)."""

from __future__ import annotations

import gettext
import re
from pathlib import Path

CATALOGUE = Path(__file__).resolve().parent.parent / "locale" / "zh_Hans" / "LC_MESSAGES"


def _po_entries() -> dict[str, str]:
    entries = {}
    for block in (CATALOGUE / "django.po").read_text().split("\n\n"):
        msgid = re.search(r'^msgid "(.*)"$', block, re.M)
        msgstr = re.search(r'^msgstr(?:\[0\])? "(.*)"$', block, re.M)
        if msgid and msgid.group(1):
            entries[msgid.group(1).replace('\\"', '"')] = msgstr.group(1).replace('\\"', '"') if msgstr else ""
    return entries


def test_every_message_is_translated_and_compiled() -> None:
    entries = _po_entries()
    with open(CATALOGUE / "django.mo", "rb") as mo:
        compiled = gettext.GNUTranslations(mo)

    assert len(entries) > 50
    assert [m for m, text in entries.items() if not text] == []
    assert {m: compiled.gettext(m) for m in entries if "%(counter)s" not in m} == {
        m: text for m, text in entries.items() if "%(counter)s" not in m
    }
