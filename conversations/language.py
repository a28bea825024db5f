"""Which language a message is in (Chinese when it has enough Chinese characters, else English), and
how the engine says a message in the customer's language."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping

from django.utils import translation

from conversations.models import Language

_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


# Words only English sentences have. Without one, Latin words alone are names (a product as sold, a person, an
# email) or the answers any shopper types ("ok", "yes"), and say nothing of the language: a Chinese chat stays
# Chinese when the customer answers "Wireless Earbuds" or an email.
_ENGLISH_SENTENCE_WORDS = frozenset(
    "i i'm i'd you your we my me it it's this that these those the a an to of for in on at with from about is are "
    "was were be been am do does did don't can can't could would will should have has had not please want need "
    "like and or but if so what which who how why when where there here hi hello hey sorry thanks thank never mind "
    "just also still already now then any some all".split()
)
_EMAIL_OR_LINK = re.compile(r"\S+@\S+|https?://\S+|www\.\S+", re.IGNORECASE)
_ENGLISH_WORD = re.compile(r"(?<![A-Za-z0-9_])[A-Za-z]+(?:'[a-z]+)?(?![A-Za-z0-9_])")
# So many Latin words are prose even without one of those words.
_PROSE_WORDS = 6


def detect_language(text: str, *, default: str = Language.EN) -> str:
    """zh if Chinese characters carry the message (product names like "Find X9" don't count), en if English
    sentences do, else `default` (the chat's language): names, emails, ids and "ok" have none of their own. A chat
    in Chinese stays Chinese for a courtesy typed in English ("ok thanks", "credit card please"): like a shop
    assistant, the bot switches when the customer writes an English sentence."""
    cjk = len(_CJK.findall(text))
    if cjk >= 2:
        return Language.ZH
    words = [w.lower() for w in _ENGLISH_WORD.findall(_EMAIL_OR_LINK.sub(" ", text))]
    # A chat in another language turns English on two of those words: one is a courtesy any shopper types
    # ("ok, thanks", "credit card please") and says nothing of the language they read.
    needed = 1 if default == Language.EN else 2
    if len(words) >= _PROSE_WORDS or sum(w in _ENGLISH_SENTENCE_WORDS for w in words) >= needed:
        return Language.EN
    # Names alone keep the chat's language; one Chinese character beside them is Chinese ("就Bluetooth Speaker。").
    return default if cjk == 0 else Language.ZH


_SCRIPTS_MEET = re.compile(r"(?<=[\u3400-\u9fff])(?=[A-Za-z0-9#])|(?<=[A-Za-z0-9])(?=[\u3400-\u9fff])")


_SPACE_WHERE_SCRIPTS_MEET = re.compile(
    r"(?<=[\u3400-\u9fff])[ \t]+(?=[A-Za-z0-9#])|(?<=[A-Za-z0-9])[ \t]+(?=[\u3400-\u9fff])"
)


def scripts_joined(text: str) -> str:
    """No space where Chinese meets Latin letters or digits ("退 LED Light Bulb 吧" -> "退LED Light Bulb吧")."""
    return _SPACE_WHERE_SCRIPTS_MEET.sub("", text)


def scripts_apart(text: str) -> str:
    """A space where Chinese meets Latin letters or digits ("退LED Light Bulb" -> "退 LED Light Bulb", "选的IPX4的"):
    Python's regular expressions count Chinese characters as word characters, so without it a product name or an
    option value written against Chinese is no word of its own."""
    return _SCRIPTS_MEET.sub(" ", text)


def say(language: str, message: str, /, **values: object) -> str:
    """`message` (its English msgid) in `language` ("zh" or "en"), its %(name)s placeholders filled.

    `manage.py makemessages` finds the literal messages passed here (cs_project's makemessages)."""
    return say_in_context("", language, message, **values)


def say_in_context(context: str, language: str, message: str, /, **values: object) -> str:
    """say() for an English text that is said more than one way in Chinese: `context` is its msgctxt."""
    # The widget's "zh" is Simplified Chinese, whose catalogue is locale/zh_Hans: asked for "zh", Django
    # finds no catalogue and answers in English. Any other language gets the English msgid itself.
    with translation.override("zh-hans" if language == Language.ZH else "en"):
        text = translation.pgettext(context, message) if context else translation.gettext(message)
    return text % values if values else text


class InEachLanguage(Mapping[str, str]):
    """A message said in each language the widget speaks, by language code: for code that reads every
    language's wording at once (matching a customer's answer to the choices offered)."""

    def __init__(self, message: str) -> None:
        self.message = message

    def __getitem__(self, language: str) -> str:
        if language not in Language.values:
            raise KeyError(language)
        return say(language, self.message)

    def __iter__(self) -> Iterator[str]:
        return iter(Language.values)

    def __len__(self) -> int:
        return len(Language.values)
