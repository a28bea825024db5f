"""Every learned decision of the wing that reads customer text: what `manage.py train_decisions` fits and what
the tests keep fresh."""

from agents.reading.answer_or_request import ANSWER_OR_REQUEST
from agents.reading.ask_or_tell import ASK_OR_TELL
from agents.reading.asks import ASKS
from agents.reading.cancel_reason import CANCEL_REASON
from agents.reading.change import CHANGE
from agents.reading.confirmation import CONFIRMATION
from agents.reading.correction import CORRECTION
from agents.reading.intent import INTENT
from agents.reading.items import ITEM_ROLE, ITEMS_SCOPE
from agents.reading.same_options import SAME_OPTIONS

DECISIONS = (
    CONFIRMATION,
    ASKS,
    CANCEL_REASON,
    CHANGE,
    ITEM_ROLE,
    ITEMS_SCOPE,
    CORRECTION,
    SAME_OPTIONS,
    INTENT,
    ANSWER_OR_REQUEST,
    ASK_OR_TELL,
)
