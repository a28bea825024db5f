"""Whether the words about one item ask for a new unit identical to it, a learned decision: "a brand-new one, same
specs", "换个一模一样的新的", "原样再来一个" (`same`), or anything else (`other`: an option that changes, even beside
"same model" or "其他不变"; a request that does not say what the item becomes; a question; a refund).

Read by agents.reading.decisions from `examples/same_options.<lang>.jsonl`, whose texts write the item as ITEM so
that the model learns the words around it, never a product. The variant reader (agents.workflows.variants) asks it
only when no option value different from the item's was found in the words: an identical replacement is a valid
request (a faulty unit swapped for a new one), and it is proposed only when the model is sure of it, since a
"same" read where a change was meant proposes a swap nobody asked for.
"""

from __future__ import annotations

import re

from agents.reading.decisions import Decision, surest
from agents.reading.items import THIS as ITEM

SAME_OPTIONS = Decision("same_options", ("same", "other"))
# The model must be at least this sure of "same": chosen on the examples' cross-validation (manage.py
# train_decisions), where a wrong "same" costs more than a question asked again.
SAME_AT = 0.7


def item_written(text: str, name: str) -> str:
    """`text` with the item's name written ITEM, as the examples write it."""
    if not name.strip():
        return text
    return re.sub(re.escape(name.strip()), ITEM, text, flags=re.IGNORECASE)


def same_options_asked(text: str, name: str) -> bool:
    """Whether the words about the item named `name` ask for a new unit with exactly its options."""
    if not text.strip():
        return False
    return surest(SAME_OPTIONS, item_written(text, name), at=SAME_AT, nothing="other") == "same"
