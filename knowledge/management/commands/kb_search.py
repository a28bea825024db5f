from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from knowledge.selectors import chunk_search_hybrid


class Command(BaseCommand):
    help = "Search the knowledge base the way the bot does (hybrid, vector or keyword)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("query")
        parser.add_argument("-k", type=int, default=5)
        parser.add_argument("--kb")
        parser.add_argument("--lang", choices=["zh", "en"])
        parser.add_argument("--mode", choices=["hybrid", "vector", "keyword"], default="hybrid")

    def handle(
        self, *args: Any, query: str, k: int, kb: str | None, lang: str | None, mode: str, **options: Any
    ) -> None:
        results, miss = chunk_search_hybrid(query=query, k=k, kb=kb, lang=lang, mode=mode)
        for r in results:
            self.stdout.write(f"{r.score:.4f} cos={r.similarity:.3f} kw={r.keyword_rank or '-'}  {r.label}")
            self.stdout.write(f"    {r.text[:160]}")
        self.stdout.write("knowledge miss" if miss else f"{len(results)} result(s)")
