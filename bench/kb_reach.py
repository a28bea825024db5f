"""Knowledge reach: does what an operator ingests reach customers through the chat engine? Offline mode.

A phone shop's help-centre articles on topics the demo knowledge base does not cover
(bench/kb_reach/docs/, written for this benchmark: no third-party data) are ingested with
`ingest_kb --kb help`, into a scratch database that also holds what `make run` seeds: the demo store,
its customers and the demo help articles, which stay in as realistic distractors. A real Celery worker
then answers each question of bench/kb_reach/questions.json, asked in a fresh conversation (a new
shopper, the question's language as the conversation's locale) through the public REST API.

A question is reached when the reply both
  - cites the article it should be answered from (reply.sources → chunk_id → Chunk → its Document's
    source, compared by file name), and
  - contains one of the question's facts (alternatives for number formats; compared after NFKC,
    lower case and with all whitespace removed, so "7 天" matches "7天").
Neither alone counts: the right article quoted at the wrong passage does not answer the question, and
a fact can turn up in a reply that came from somewhere else. Every other reply is a failure, filed
under the first kind that fits: no reply, turn failed, right article without the fact, escalated,
awaiting a slot ("email" is the identity check of a workflow), clarifying question, wrong article
cited (demo or another bench article), knowledge miss, or no knowledge lookup at all (with the intent
that took the question elsewhere).

The questions are customers' own words (paraphrases, casual wording, typos, products named), written
before the engine was run on them. Sets A (2 + 2 articles, en + zh), C (2 more English articles,
added when English lagged) and D (2 + 2 more articles on other topics, added later as a further
development set, also written before the engine was run on them) and E (an FAQ as CSV per language, an English help page as HTML and a Chinese
article: formats the English development sets lacked; written by someone who had not seen the engine,
before it was run on them) and F (3 English articles, one a CSV FAQ, written the same way when English
still lagged) and H (3 English articles, one HTML page and one CSV FAQ, with questions mostly about the
customer's own situation, written blind) are for development: read their failures, change the engine. Sets B (2 + 2 other
articles, other topics) and G (3 English articles, one an HTML page, written with F and never run
before it was first reported) are held out: their articles and questions are never edited, the engine
is not tuned on their failures and `--show-failures` does not print them, so their figures say how
far a change carries to knowledge nobody tuned for. Every set's articles are always in the knowledge
base. `--set both` asks A and B, `--set all` every set, `--set dev` the development sets A, C, D, E,
F and H, `--set heldout` B and G.

    .venv/bin/python bench/kb_reach.py --show-failures
"""

from __future__ import annotations

import argparse
import io
import json
import re
import time
import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness import django_setup, scratch_database, worker

DATA = Path(__file__).resolve().parent / "kb_reach"
DOCS = DATA / "docs"
KNOWLEDGE_BASE = "help"
DEVELOPMENT_SETS = {"A", "C", "D", "E", "F", "H"}
HELD_OUT_SETS = {"B", "G"}
REPLY_WAIT_S = 60  # after a 202, how long to poll the turn
KNOWLEDGE_MISS = "[knowledge base miss]"  # the knowledge specialist's marker (agents/specialists/knowledge.py)


@dataclass(frozen=True)
class Question:
    id: str
    set: str
    lang: str
    document: str
    question: str
    facts: list[str]


@dataclass
class Outcome:
    question: Question
    http_status: int = 0
    reply_text: str = ""
    sources: list[dict[str, Any]] = field(default_factory=list)
    cited: list[str] = field(default_factory=list)  # per source, the file name of its chunk's document ("" if none)
    awaiting: dict[str, Any] | None = None
    intents: list[dict[str, Any]] = field(default_factory=list)
    status: str = ""
    turn_status: str = ""
    escalation: dict[str, Any] | None = None
    route: str = ""
    subtasks: list[tuple[str, str, bool]] = field(default_factory=list)  # (specialist, intent, knowledge miss)

    @property
    def cites_document(self) -> bool:
        return self.question.document in self.cited

    @property
    def has_fact(self) -> bool:
        text = normalise(self.reply_text)
        return any(normalise(fact) in text for fact in self.question.facts)

    @property
    def reached(self) -> bool:
        return self.cites_document and self.has_fact


def normalise(text: str) -> str:
    return re.sub(r"\s+", "", unicodedata.normalize("NFKC", text).lower())


def questions_load(sets: set[str], langs: set[str], limit: int) -> list[Question]:
    chosen: list[Question] = []
    taken: Counter[tuple[str, str]] = Counter()
    for raw in json.loads((DATA / "questions.json").read_text()):
        question = Question(**raw)
        if question.set not in sets or question.lang not in langs:
            continue
        if limit and taken[question.set, question.lang] >= limit:
            continue
        taken[question.set, question.lang] += 1
        chosen.append(question)
    return chosen


# --- asking ---------------------------------------------------------------------------------------


def ask(client: Any, question: Question) -> Outcome:
    """One question in a fresh conversation of a new shopper; the reply and what the engine did."""
    from agents.models import Subtask, TurnRun
    from knowledge.models import Chunk

    outcome = Outcome(question)
    conversation = client.post(
        "/api/v1/conversations",
        {"customer": {"external_id": f"kb_reach_{question.id}"}, "locale": question.lang},
        content_type="application/json",
    ).json()
    response = client.post(
        f"/api/v1/conversations/{conversation['id']}/messages",
        {"text": question.question},
        content_type="application/json",
    )
    body = response.json()
    deadline = time.monotonic() + REPLY_WAIT_S
    while response.status_code == 202 and time.monotonic() < deadline:
        time.sleep(0.5)
        response = client.get(f"/api/v1/conversations/{conversation['id']}/turns/{body['turn_id']}")
        body = response.json()
    outcome.http_status = response.status_code
    if response.status_code != 200:
        return outcome
    reply = body.get("reply") or {}
    outcome.reply_text = reply.get("text") or ""
    outcome.sources = list(reply.get("sources") or [])
    outcome.awaiting = reply.get("awaiting")
    outcome.intents = list(body.get("intents") or [])
    outcome.status = body.get("status") or ""
    outcome.turn_status = body.get("turn_status") or ""
    outcome.escalation = body.get("escalation")
    chunk_ids = [s["chunk_id"] for s in outcome.sources if s.get("chunk_id")]
    documents = dict(Chunk.objects.filter(pk__in=chunk_ids).values_list("pk", "document__source"))
    outcome.cited = [
        Path(documents[s["chunk_id"]]).name if s.get("chunk_id") in documents else "" for s in outcome.sources
    ]
    turn = TurnRun.objects.filter(pk=body.get("turn_id")).first()
    if turn is not None:
        outcome.route = turn.route
        for subtask in Subtask.objects.filter(turn=turn):
            result = subtask.result or {}
            miss = (result.get("data") or {}).get("marker") == KNOWLEDGE_MISS
            outcome.subtasks.append((subtask.specialist, subtask.intent, miss))
    return outcome


def failure_kind(outcome: Outcome, bench_documents: set[str]) -> str:
    """The first kind that fits a reply that did not reach (see the module docstring)."""
    if outcome.http_status != 200:
        return f"no reply (HTTP {outcome.http_status})"
    if outcome.turn_status == "failed":
        return "turn failed"
    if outcome.cites_document:
        return "right article, fact missing"
    if outcome.escalation or outcome.status == "waiting_human" or outcome.route == "escalate":
        reason = (outcome.escalation or {}).get("reason") or "?"
        return f"escalated ({reason})"
    if outcome.awaiting:
        return f"awaiting {outcome.awaiting.get('slot')}"
    if outcome.route == "clarify":
        return "clarifying question"
    if any(outcome.cited):
        other = "another bench article" if set(outcome.cited) & bench_documents else "demo article"
        return f"wrong article cited ({other})"
    if any(miss for _, _, miss in outcome.subtasks):
        return "knowledge miss"
    top = outcome.intents[0]["name"] if outcome.intents else "?"
    specialists = "+".join(sorted({s for s, _, _ in outcome.subtasks})) or "none"
    return f"no knowledge lookup (intent {top}, specialist {specialists})"


def show(outcome: Outcome, kind: str) -> None:
    q = outcome.question
    intents = ", ".join(f"{i['name']} {i['confidence']:.2f}" for i in outcome.intents)
    sources = "; ".join(f"{s.get('title')} [{name}]" for s, name in zip(outcome.sources, outcome.cited, strict=True))
    awaiting = outcome.awaiting.get("slot") if outcome.awaiting else "-"
    print(f"FAILED {q.id} ({kind}) expected {q.document}, facts {q.facts}")
    print(f"  > {q.question}")
    print(f"  < {outcome.reply_text[:500]}")
    print(
        f"  sources: {sources or '-'} | awaiting: {awaiting} | intents: {intents or '-'} | "
        f"status: {outcome.status}/{outcome.turn_status} | route: {outcome.route or '-'} | "
        f"subtasks: {', '.join(f'{s}/{i}' + (' (miss)' if m else '') for s, i, m in outcome.subtasks) or '-'}"
    )


# --- the run --------------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--set",
        choices=[*sorted(DEVELOPMENT_SETS | HELD_OUT_SETS), "both", "all", "dev", "heldout"],
        default="both",
        help="A, C, D, E, F, H: development, B, G: held out; both = A+B, all = every set",
    )
    parser.add_argument("--lang", choices=["zh", "en", "both"], default="both")
    parser.add_argument("--limit", type=int, default=0, help="questions per (set, language) (0 = all)")
    parser.add_argument("--show-failures", action="store_true", help="print each failed question and its reply")
    args = parser.parse_args()
    django_setup(API_REPLY_TIMEOUT_S="30")
    from django.core.management import call_command
    from django.test import Client

    from agents.demo import demo_seed
    from conversations.api_keys import api_key_create

    sets = {
        "both": {"A", "B"},
        "all": DEVELOPMENT_SETS | HELD_OUT_SETS,
        "dev": DEVELOPMENT_SETS,
        "heldout": HELD_OUT_SETS,
    }.get(args.set, {args.set})
    langs = {"zh", "en"} if args.lang == "both" else {args.lang}
    questions = questions_load(sets, langs, args.limit)
    bench_documents = {p.name for p in DOCS.rglob("*") if p.is_file()}
    outcomes: list[Outcome] = []
    started = time.perf_counter()
    with scratch_database() as url:
        call_command("sync_exemplars", verbosity=0)
        demo_seed()  # the demo store and the demo help articles, as `make run` seeds them
        ingest_log = io.StringIO()
        call_command("ingest_kb", str(DOCS), kb=KNOWLEDGE_BASE, stdout=ingest_log, stderr=io.StringIO())
        print(ingest_log.getvalue().strip())
        _, key = api_key_create(name="kb_reach")
        client = Client(HTTP_AUTHORIZATION=f"Bearer {key}")
        with worker(url, API_REPLY_TIMEOUT_S="30"):
            for question in questions:
                outcome = ask(client, question)
                outcomes.append(outcome)
                if args.show_failures and not outcome.reached and question.set in DEVELOPMENT_SETS:
                    show(outcome, failure_kind(outcome, bench_documents))
    print("knowledge reach, offline, one fresh conversation per question through /api/v1:")
    for set_name in sorted(sets):
        in_set = [o for o in outcomes if o.question.set == set_name]
        for lang in sorted(langs):
            cell = [o for o in in_set if o.question.lang == lang]
            if cell:
                reached = sum(o.reached for o in cell)
                print(f"  set {set_name} {lang}: {reached}/{len(cell)} = {reached / len(cell):.0%}")
        if in_set:
            reached = sum(o.reached for o in in_set)
            cited = sum(o.cites_document for o in in_set)
            facts = sum(o.has_fact for o in in_set)
            print(
                f"  set {set_name}: {reached}/{len(in_set)} = {reached / len(in_set):.0%}"
                f"  (cited the article: {cited}, contained a fact: {facts})"
            )
    for set_name in sorted(sets):
        failures = Counter(
            failure_kind(o, bench_documents) for o in outcomes if o.question.set == set_name and not o.reached
        )
        print(f"failures, set {set_name}:")
        for kind, count in failures.most_common():
            print(f"  {count:3d}  {kind}")
    print(f"({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
