"""Ingest speed: passages stored per second by `manage.py ingest_kb`, English and Chinese, one process and
several side by side, and where one process's time goes.

Corpora (each into its own knowledge base of a scratch database, so nothing is skipped as unchanged):
- en articles: the first N policy documents of τ²-bench's banking knowledge (third-party, read from --data at
  run time, never copied into the project), as Markdown files;
- zh articles: the project's own Chinese help articles (knowledge/answer_sets/zh-*, knowledge/demo_kb zh),
  each copied under several names with a line that tells the copies apart;
- zh FAQ: one CSV of N shoppers' reviews as answers (third-party, --data), the shape of a large FAQ export.

For each corpus `ingest_kb --jobs 1` and `--jobs J` run one after the other in the same run (the machine's
noise hits both), and the report gives passages/s and their ratio. The stages of one process are timed on a
sample of the en articles: reading and cutting, the instruction check, the two embedding models, the insert.

    .venv/bin/python bench/ingest_speed.py [--data ../shared/data] [--articles 120] [--faq 2000] [--jobs 2]
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import sys
import tempfile
import time
from contextlib import redirect_stderr
from pathlib import Path

from harness import ROOT, django_setup, scratch_database

DEFAULT_DATA = ROOT.parent / "shared" / "data"


def _en_articles(data: Path, count: int, into: Path) -> None:
    documents = json.loads((data / "tau2_banking_knowledge" / "documents.json").read_text())[:count]
    for document in documents:
        (into / f"{document['id']}.md").write_text(f"# {document['title']}\n\n{document['content']}\n")


def _zh_articles(count: int, into: Path) -> None:
    sources = sorted((ROOT / "knowledge" / "answer_sets").glob("zh-*/docs/*.md"))
    sources += sorted((ROOT / "knowledge" / "demo_kb").glob("*zh*.md"))
    for n in range(count):
        source = sources[n % len(sources)]
        # The copy's number in its first line: another checksum, the same passages otherwise.
        text = source.read_text().replace("\n", f"\n\n（第 {n} 版）\n", 1)
        (into / f"{n:04d}-{source.name}").write_text(text)


def _zh_faq(data: Path, rows: int, into: Path) -> None:
    with (data / "zh_review_sentiment" / "online_shopping_dev_half.csv").open(newline="") as file:
        reviews = [row["review"] for row in csv.DictReader(file) if len(row["review"] or "") >= 20][:rows]
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["question", "answer"])
    for n, review in enumerate(reviews):
        writer.writerow([f"第 {n} 位顾客怎么评价？", review])
    (into / "reviews_faq.csv").write_text(out.getvalue())


def _ingest(folder: Path, kb: str, jobs: int) -> tuple[int, float]:
    from django.core.management import call_command

    from knowledge.models import Chunk

    started = time.monotonic()
    with redirect_stderr(io.StringIO()):  # the progress bar
        call_command("ingest_kb", str(folder), "--kb", kb, "--jobs", str(jobs), stdout=io.StringIO())
    elapsed = time.monotonic() - started
    return Chunk.objects.filter(document__knowledge_base__name=kb).count(), elapsed


def _stages(folder: Path, sample: int) -> dict[str, float]:
    """Seconds per passage of each stage of one process, on the first `sample` files of `folder`."""
    from knowledge.embeddings import english_passage_vectors, passage_vectors
    from knowledge.injection import chunks_withheld
    from knowledge.readers import document_read

    seconds = dict.fromkeys(("read and cut", "instruction check", "e5 passages", "MiniLM passages"), 0.0)
    passages = 0
    for path in sorted(folder.iterdir())[:sample]:
        started = time.monotonic()
        document = document_read(path.name, path.read_bytes(), max_bytes=sys.maxsize)
        seconds["read and cut"] += time.monotonic() - started
        started = time.monotonic()
        chunks, _, _ = chunks_withheld(document.chunks, title=document.title)
        seconds["instruction check"] += time.monotonic() - started
        texts = [f"{c.heading}: {c.text}" for c in chunks]
        started = time.monotonic()
        passage_vectors(texts)
        seconds["e5 passages"] += time.monotonic() - started
        started = time.monotonic()
        english_passage_vectors(texts)
        seconds["MiniLM passages"] += time.monotonic() - started
        passages += len(texts)
    return {stage: 1000 * s / max(passages, 1) for stage, s in seconds.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--articles", type=int, default=120, help="en and zh articles each")
    parser.add_argument("--faq", type=int, default=2000, help="rows of the zh FAQ")
    parser.add_argument("--jobs", type=int, default=2, help="processes of the parallel runs")
    args = parser.parse_args()
    if not (args.data / "tau2_banking_knowledge").is_dir():
        sys.exit(f"no evaluation data under {args.data} (see its SOURCES.md); pass --data")
    django_setup()
    with tempfile.TemporaryDirectory() as tmp, scratch_database():
        corpora = {"en articles": Path(tmp, "en"), "zh articles": Path(tmp, "zh"), "zh FAQ": Path(tmp, "faq")}
        for folder in corpora.values():
            folder.mkdir()
        _en_articles(args.data, args.articles, corpora["en articles"])
        _zh_articles(args.articles, corpora["zh articles"])
        _zh_faq(args.data, args.faq, corpora["zh FAQ"])
        _ingest(corpora["zh articles"], "warm-up", 1)  # models loaded, statistics known
        print(f"{'corpus':<12} {'passages':>8} {'1 process':>14} {f'{args.jobs} processes':>14} {'ratio':>6}")
        for n, (name, folder) in enumerate(corpora.items()):
            count, one = _ingest(folder, f"one-{n}", 1)
            _, several = _ingest(folder, f"several-{n}", args.jobs)
            print(f"{name:<12} {count:>8} {count / one:>10.1f} p/s {count / several:>10.1f} p/s {one / several:>5.2f}x")
        stages = _stages(corpora["en articles"], sample=20)
        print("one process, en articles, ms per passage: " + ", ".join(f"{k} {v:.0f}" for k, v in stages.items()))


if __name__ == "__main__":
    main()
