"""The store's catalogue as entity extraction sees it, compiled into matchers once per catalogue.

Product names, Chinese names and aliases become one regular expression (a trie, so many products stay
fast, longest name first), and so do the option values that are colours; `matchers_cached` finds a
catalogue's matchers again without hashing every product on each message.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache

from agents.intents.entities.text import NAME_SEP, TOKEN_END, TOKEN_START, is_ascii_alnum, normalise, squash


@dataclass(frozen=True)
class CatalogueProduct:
    name: str  # "Find X9"
    aliases: tuple[str, ...]  # ("X9", "FindX9", "Find-X9")
    name_zh: str = ""  # "Find X9" or "Pad 3 平板"
    option_values: tuple[str, ...] = ()  # every variant option value, e.g. ("Star Black", "星野黑", "12GB+256GB")
    category: str = ""  # "phone"


@dataclass(frozen=True)
class Catalogue:
    products: tuple[CatalogueProduct, ...] = ()

    def names_by_category(self) -> dict[str, list[str]]:
        """Each category (lower case) with the names its products go by, English and Chinese."""
        names: dict[str, list[str]] = {}
        for product in self.products:
            if product.category:
                names.setdefault(product.category.lower(), []).extend(n for n in (product.name, product.name_zh) if n)
        return names


EMPTY_CATALOGUE = Catalogue()

# A storage size ("256GB", "12+256G", "1TB"): an option of its own, never a colour.
STORAGE_RE = re.compile(
    r"(?<![A-Za-z0-9.+])(?:"
    r"(?P<ram>[0-9]{1,2})[ ]?(?:GB|G)?[ ]?\+[ ]?(?P<rom>[0-9]{1,4})[ ]?(?P<unit>GB|G|TB|T)?"
    r"|(?P<solo>[0-9]{1,4})[ ]?(?P<sunit>GB|G|TB|T)"
    r")(?![A-Za-z0-9+])",
    re.IGNORECASE,
)
# Words that say an option value is a colour, for classifying a catalogue's option values.
_COLOUR_HINT_RE = re.compile(
    r"(?<![A-Za-z])(?:black|white|blue|grey|gray|red|green|purple|pink|gold|silver|yellow|orange|brown|beige|cyan"
    r"|teal|navy|graphite|titanium|midnight|starlight|rose|champagne|violet|lavender|mint|cream|ivory|bronze"
    r"|copper|jade|coral)(?![A-Za-z])|[黑白蓝灰红绿紫粉金银黄橙青棕褐]",
    re.IGNORECASE,
)


class _TrieNode:
    __slots__ = ("children", "terminal")

    def __init__(self) -> None:
        self.children: dict[str, _TrieNode] = {}
        self.terminal = False


def _node_pattern(node: _TrieNode, last: str) -> str:
    parts = [NAME_SEP + re.escape(ch) + _node_pattern(child, ch) for ch, child in sorted(node.children.items())]
    if node.terminal:
        parts.append(TOKEN_END if is_ascii_alnum(last) else "")  # last: the longest alternative wins
    if len(parts) == 1:
        return parts[0]
    return "(?:" + "|".join(parts) + ")"


def _trie_regex(keys: Iterable[str]) -> re.Pattern[str] | None:
    root = _TrieNode()
    for key in keys:
        node = root
        for ch in key:
            node = node.children.setdefault(ch, _TrieNode())
        node.terminal = True
    if not root.children:
        return None
    parts = [
        (TOKEN_START if is_ascii_alnum(ch) else "") + re.escape(ch) + _node_pattern(child, ch)
        for ch, child in sorted(root.children.items())
    ]
    return re.compile("(?:" + "|".join(parts) + ")", re.IGNORECASE)


@dataclass(frozen=True)
class CatalogueMatchers:
    product_re: re.Pattern[str] | None = None
    products: dict[str, str] = field(default_factory=dict)  # squashed surface form -> canonical name
    colour_re: re.Pattern[str] | None = None
    colours: dict[str, str] = field(default_factory=dict)  # squashed option value -> option value


NO_MATCHERS = CatalogueMatchers()


@lru_cache(maxsize=32)
def _matchers_for(catalogue: Catalogue) -> CatalogueMatchers:
    products: dict[str, str] = {}
    colours: dict[str, str] = {}
    for product in catalogue.products:
        canonical = normalise(product.name).strip()
        if not canonical:
            continue
        for surface in (product.name, product.name_zh, *product.aliases):
            key = squash(surface)
            if key:
                products.setdefault(key, canonical)
        for value in product.option_values:
            clean = " ".join(normalise(value).split())
            key = squash(value)
            if key and _COLOUR_HINT_RE.search(clean) and not STORAGE_RE.fullmatch(clean):
                colours.setdefault(key, clean)
    return CatalogueMatchers(_trie_regex(products), products, _trie_regex(colours), colours)


# The same catalogue object is usually passed on every call: find it without hashing every product.
_RECENT_MATCHERS: dict[int, tuple[Catalogue, CatalogueMatchers]] = {}


def matchers_cached(catalogue: Catalogue) -> CatalogueMatchers:
    recent = _RECENT_MATCHERS.get(id(catalogue))
    if recent is not None and recent[0] is catalogue:
        return recent[1]
    matchers = _matchers_for(catalogue)
    if len(_RECENT_MATCHERS) >= 8:
        _RECENT_MATCHERS.clear()
    _RECENT_MATCHERS[id(catalogue)] = (catalogue, matchers)
    return matchers
