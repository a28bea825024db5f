"""Where a place is: the city a shopper names and the regions a help article lists it under (pure).

A shipping table lists regions ("新疆、西藏：6–10 天", "Northern Ireland: 3–4 working days"); a shopper names
where they live ("寄到乌鲁木齐要几天", "how long does delivery take to Belfast?"). Without knowing that Urumqi is in
Xinjiang, the search finds the table by its topic at best, the reply quotes its first rows, and the check of
whether the knowledge base answers (knowledge.ranking) reads the city as a word the article lacks.

`places.json` is data, not rules: each region with its names (zh and en, aliases), the places inside it (cities,
islands, counties) and the regions it lies within (乌鲁木齐 in 新疆, 新疆 in 西北; Inverness in the Highlands, the
Highlands in Scotland). A place named in a question brings the names of every region it lies in, for the search,
for the check's word shares (a city is said by an article that names its region) and for the choice of the
sentence or table row to quote (agents.specialists.knowledge). A country is where the regions end and is never
brought: a shop's articles say "UK" or "中国大陆" everywhere, and a city is not answered by every one of them ("is
there a store in Cardiff?" is not answered by "28 stores across the UK"). A store whose customers name other places
adds them to the file.

Names are found in the question's text, longest first ("New York City" before "York", "New Jersey" before
"Jersey"), Latin ones as whole words in any case. A region named by the question itself brings the regions it
lies in too (新疆 → 西北), never the places inside it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from knowledge.chunking import meaning_terms, query_words

PLACES = Path(__file__).resolve().parent / "places.json"


@dataclass(frozen=True)
class Place:
    name: str  # as the question writes it
    words: frozenset[str]  # its indexed forms (knowledge.chunking.query_words)
    regions: tuple[str, ...]  # every name of every region it lies in, nearest first
    nearest: tuple[str, ...]  # the names of the regions that list it themselves (乌鲁木齐: 新疆, not 西北)


@cache
def _gazetteer() -> tuple[re.Pattern[str], dict[str, tuple[tuple[str, ...], tuple[str, ...]]]]:
    """One pattern over every name (places and regions), and each name's regions and nearest regions (lower case
    keys)."""
    regions = json.loads(PLACES.read_text(encoding="utf-8"))["regions"]
    by_name = {name.lower(): region for region in regions for name in region["names"]}

    def within(region: dict[str, Any]) -> list[dict[str, Any]]:
        """The regions it lies in directly, up to a country."""
        return [outer for name in region["within"] if not (outer := by_name[name.lower()]).get("country")]

    def around(region: dict[str, Any]) -> list[str]:
        return [name for outer in within(region) for name in [*outer["names"], *around(outer)]]

    lying_in: dict[str, list[str]] = {}
    nearest: dict[str, list[str]] = {}
    for region in (region for region in regions if not region.get("country")):
        outer = around(region)
        directly = [name for inside in within(region) for name in inside["names"]]
        for name in region["names"]:
            lying_in.setdefault(name.lower(), []).extend(outer)
            nearest.setdefault(name.lower(), []).extend(directly)
        for place in region["places"]:
            lying_in.setdefault(place.lower(), []).extend([*region["names"], *outer])
            nearest.setdefault(place.lower(), []).extend(region["names"])
    names = sorted(lying_in, key=len, reverse=True)
    alternatives = [re.escape(n) if not n.isascii() else rf"(?<![\w-]){re.escape(n)}(?![\w-])" for n in names]
    pattern = re.compile("|".join(alternatives) or r"(?!)", re.IGNORECASE)  # (?!): a file listing no place
    return pattern, {
        name: (tuple(dict.fromkeys(found)), tuple(dict.fromkeys(nearest[name]))) for name, found in lying_in.items()
    }


def places_named(text: str) -> list[Place]:
    """The places and regions `text` names that lie in a region, each with its regions."""
    pattern, lying_in = _gazetteer()
    found = {}
    for match in pattern.finditer(text):
        name = match.group(0)
        regions, nearest = lying_in[name.lower()]
        if regions and name.lower() not in found:
            found[name.lower()] = Place(name, frozenset(query_words(name)), regions, nearest)
    return list(found.values())


def region_words(text: str) -> list[str]:
    """The indexed words of the regions the places in `text` lie in, for the keyword search."""
    return list(
        dict.fromkeys(word for place in places_named(text) for name in place.regions for word in query_words(name))
    )


def region_terms(text: str) -> set[str]:
    """meaning_terms of the nearest regions' names, for choosing the sentence or table row that answers: a table
    that lists 新疆 in one row and 西北 in another answers a question about 乌鲁木齐 by the first."""
    return {term for place in places_named(text) for name in place.nearest for term in meaning_terms(name)}


def regions_held(text: str) -> dict[str, list[frozenset[str]]]:
    """For each indexed word of a place in `text`, the words of each of its regions' names: the place is said by a
    passage that holds every word of one of them."""
    held: dict[str, list[frozenset[str]]] = {}
    for place in places_named(text):
        names = [frozenset(query_words(name)) for name in place.regions]
        for word in place.words:
            held.setdefault(word, []).extend(words for words in names if words)
    return held
