"""Offline intent accuracy of POST /api/v1/nlu/parse on third-party development data.

- Bitext customer-service utterances mapped to our intents (INTENT_MAP.md): accuracy and macro-F1
  of the first intent returned.
- JD customer messages (zh): chitchat vs business accuracy (majority class alone: 87 %).
- CLINC150 out-of-scope: recall (out_of_scope, or confidence < 0.5 so the bot asks instead of guessing).

Runs against a scratch database with the shipped exemplars only; the data is read from --data and
never stored.

    .venv/bin/python bench/intent_accuracy.py --data ../shared/data --limit 0
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import re
import time
from collections import Counter, defaultdict
from pathlib import Path

from harness import django_setup, scratch_database

OOS_CONFIDENCE = 0.5


def bitext_mapping(data: Path) -> dict[str, str]:
    mapping = {}
    for line in (data / "bitext_customer_service" / "INTENT_MAP.md").read_text().splitlines():
        match = re.match(r"\|\s*([a-z_, ]+?)\s*\|\s*([a-z_]+)\s*\|$", line.strip())
        if match and match.group(2) != "ours":
            for name in match.group(1).split(","):
                mapping[name.strip()] = match.group(2)
    return mapping


def macro_f1(pairs: list[tuple[str, str]]) -> float:
    labels = {gold for gold, _ in pairs}
    scores = []
    for label in labels:
        tp = sum(1 for g, p in pairs if g == label and p == label)
        fp = sum(1 for g, p in pairs if g != label and p == label)
        fn = sum(1 for g, p in pairs if g == label and p != label)
        precision = tp / (tp + fp) if tp + fp else 0.0
        recall = tp / (tp + fn) if tp + fn else 0.0
        scores.append(2 * precision * recall / (precision + recall) if precision + recall else 0.0)
    return sum(scores) / len(scores)


def sample(rows: list, limit: int, seed: int = 7) -> list:
    if not limit or len(rows) <= limit:
        return rows
    return random.Random(seed).sample(rows, limit)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--limit", type=int, default=1500, help="utterances per set (0 = all)")
    args = parser.parse_args()
    django_setup()
    from django.core.management import call_command
    from django.test import Client

    from conversations.api_keys import api_key_create

    with scratch_database():
        call_command("sync_exemplars", verbosity=0)
        _, key = api_key_create(name="bench")
        client = Client(HTTP_AUTHORIZATION=f"Bearer {key}")

        def parse(text: str) -> dict:
            response = client.post("/api/v1/nlu/parse", {"text": text}, content_type="application/json")
            return response.json()

        started = time.perf_counter()
        mapping = bitext_mapping(args.data)
        with open(args.data / "bitext_customer_service" / "bitext_8k_dev_half.csv", newline="") as handle:
            bitext = [(r["utterance"], mapping[r["intent"]]) for r in csv.DictReader(handle) if r["intent"] in mapping]
        pairs = [(gold, parse(text)["intents"][0]["name"]) for text, gold in sample(bitext, args.limit)]
        accuracy = sum(g == p for g, p in pairs) / len(pairs)
        print(f"Bitext → our intents: n={len(pairs)}  accuracy {accuracy:.1%}  macro-F1 {macro_f1(pairs):.3f}")
        confusions = Counter((g, p) for g, p in pairs if g != p).most_common(6)
        print("  most frequent confusions: " + ", ".join(f"{g}→{p} ×{n}" for (g, p), n in confusions))

        with open(args.data / "jd_chitchat_zh" / "jd_chitchat_train.csv", newline="") as handle:
            jd = [(r["text"], r["is_chitchat"] == "1") for r in csv.DictReader(handle)]
        # The JD corpus masks every number as "<num>" ("#E-s<num>" is an emoticon code); customers'
        # messages carry digits, so the mask is put back as one rather than taught to the classifier.
        jd_pairs = [
            (chat, parse(text.replace("<num>", "1"))["intents"][0]["name"] == "chitchat")
            for text, chat in sample(jd, args.limit)
        ]
        jd_accuracy = sum(g == p for g, p in jd_pairs) / len(jd_pairs)
        majority = max(Counter(g for g, _ in jd_pairs).values()) / len(jd_pairs)
        print(f"JD chitchat vs business (zh): n={len(jd_pairs)}  accuracy {jd_accuracy:.1%}  (majority {majority:.1%})")

        clinc = json.loads((args.data / "clinc150" / "clinc150_train_val.json").read_text())
        recalled = 0
        for text, _ in clinc["oos_val"]:
            top = parse(text)["intents"][0]
            recalled += top["name"] == "out_of_scope" or top["confidence"] < OOS_CONFIDENCE
        print(f"CLINC150 out-of-scope: n={len(clinc['oos_val'])}  recall {recalled / len(clinc['oos_val']):.1%}")
        per_intent: dict[str, list[bool]] = defaultdict(list)
        for gold, predicted in pairs:
            per_intent[gold].append(gold == predicted)
        worst = sorted(per_intent.items(), key=lambda item: sum(item[1]) / len(item[1]))[:5]
        print("  weakest Bitext intents: " + ", ".join(f"{k} {sum(v) / len(v):.0%}" for k, v in worst))
        print(f"({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
