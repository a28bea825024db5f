"""The committed zh catalogue: every message translated, and the compiled .mo matching the .po
(run `manage.py compilemessages` after editing the .po)."""

from __future__ import annotations

import gettext
import re
from pathlib import Path

CATALOGUE = Path(__file__).resolve().parent.parent / "locale" / "zh_Hans" / "LC_MESSAGES"


def _po_entries() -> dict[tuple[str, str], str]:
    """{(msgctxt, msgid): msgstr}, msgctxt "" for a message without one."""
    entries = {}
    for block in (CATALOGUE / "django.po").read_text().split("\n\n"):
        context = re.search(r'^msgctxt "(.*)"$', block, re.M)
        msgid = re.search(r'^msgid "(.*)"$', block, re.M)
        msgstr = re.search(r'^msgstr(?:\[0\])? "(.*)"$', block, re.M)
        if msgid and msgid.group(1):
            key = (context.group(1) if context else "", msgid.group(1).replace('\\"', '"'))
            entries[key] = msgstr.group(1).replace('\\"', '"') if msgstr else ""
    return entries


def test_every_message_is_translated_and_compiled() -> None:
    entries = _po_entries()
    with open(CATALOGUE / "django.mo", "rb") as mo:
        compiled = gettext.GNUTranslations(mo)

    def translated(context: str, message: str) -> str:
        return compiled.pgettext(context, message) if context else compiled.gettext(message)

    assert len(entries) > 50
    assert [key for key, text in entries.items() if not text] == []
    assert {key: translated(*key) for key in entries if "%(counter)s" not in key[1]} == {
        key: text for key, text in entries.items() if "%(counter)s" not in key[1]
    }
