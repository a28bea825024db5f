import os
import time
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from knowledge.bulk_ingest import files_ingest
from knowledge.embeddings import EmbeddingsUnavailable, embeddings_check
from knowledge.readers import SUPPORTED_TYPES
from knowledge.services import chunk_statistics_refresh, kb_prune, knowledge_base_audience_set

BAR_WIDTH = 24


class Command(BaseCommand):
    help = (
        "Ingest files or folders (Markdown, text, HTML, PDF, DOCX, FAQ .csv/.json) into a knowledge base; "
        "unchanged files are skipped, changed ones replace their previous version."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("paths", nargs="+", type=Path)
        parser.add_argument(
            "--kb",
            default="default",
            help=(
                "Knowledge base to add the documents to (default: %(default)s; the demo's help articles are in "
                "'demo', which the chat quotes only until a public base of the store's own has documents). Answers "
                "search every public knowledge base."
            ),
        )
        parser.add_argument("--lang", choices=["zh", "en", "auto"], default="auto")
        parser.add_argument(
            "--audience",
            choices=["public", "internal"],
            help=(
                "Who may read the knowledge base: public (the chat quotes it) or internal (staff only: the console's"
                " and the API's search). Left out: a new base is public, an existing one keeps its audience."
            ),
        )
        parser.add_argument(
            "--jobs",
            type=int,
            default=os.cpu_count() or 1,
            help="Processes ingesting files side by side (default: one per core, %(default)s here).",
        )
        parser.add_argument(
            "--prune", action="store_true", help="Remove documents from under these paths whose file is gone."
        )

    def handle(
        self,
        *args: Any,
        paths: list[Path],
        kb: str,
        lang: str,
        prune: bool,
        audience: str | None,
        jobs: int,
        **options: Any,
    ) -> None:
        if jobs < 1:
            raise CommandError("--jobs must be at least 1")
        files: list[Path] = []
        for path in paths:
            if not path.exists():
                raise CommandError(f"{path}: no such file or folder")
            if path.is_dir():
                # Folders hold all sorts; only the formats we read are taken from them.
                files += sorted(p for p in path.rglob("*") if p.is_file() and p.suffix.lower() in SUPPORTED_TYPES)
            else:
                files.append(path)
        try:
            embeddings_check()
        except EmbeddingsUnavailable as exc:
            raise CommandError(f"embeddings: {exc}") from None
        if audience is not None:
            knowledge_base_audience_set(kb_name=kb, audience=audience)
        started = time.monotonic()
        counts = {"added": 0, "changed": 0, "unchanged": 0, "failed": 0}
        chunks = withheld = 0
        self._progress(0, len(files), str(files[0]) if files else "")
        done = files_ingest(kb_name=kb, paths=files, language=lang, jobs=jobs, capped=False)
        try:
            for index, (_, result, error) in enumerate(done, 1):
                if index < len(files):  # the next file in order: the one a single process reads now
                    self._progress(index, len(files), str(files[index]))
                if result is None:
                    counts["failed"] += 1
                    self._clear_bar()
                    self.stderr.write(f"skipped {error}")
                    continue
                counts[result.outcome] += 1
                chunks += result.chunks
                withheld += result.withheld
        except EmbeddingsUnavailable as exc:  # the server went away mid-run: the rest would fail too
            self._clear_bar()
            done_count = sum(counts.values())
            raise CommandError(f"embeddings: {exc}; {done_count} of {len(files)} file(s) done") from None
        self._progress(len(files), len(files), "done")
        self._clear_bar()
        pruned = 0
        if prune:
            pruned = kb_prune(kb_name=kb, keep_sources={str(f) for f in files}, under=[str(p) for p in paths])
        if counts["added"] or counts["changed"] or pruned:
            chunk_statistics_refresh()
        self.stdout.write(
            f"{kb}: {len(files)} documents: {counts['added']} added, {counts['changed']} changed, "
            f"{counts['unchanged']} unchanged, {counts['failed']} failed, {pruned} pruned; "
            f"{chunks} chunks in {time.monotonic() - started:.1f} s"
        )
        if withheld:
            self.stderr.write(
                f"{withheld} sentence(s) that gave the assistant instructions were left out of the answers: "
                "see the documents' Withheld field in the admin"
            )
        if counts["failed"]:
            raise CommandError(f"{counts['failed']} file(s) could not be ingested")

    def _progress(self, done: int, total: int, label: str) -> None:
        filled = BAR_WIDTH * done // max(total, 1)
        line = f"[{'#' * filled}{'.' * (BAR_WIDTH - filled)}] {done}/{total} {label}"
        if self.stderr.isatty():
            self.stderr.write(f"\r{line[:100]:<100}", ending="")
        elif done < total:  # logs get one line per file instead of carriage returns
            self.stderr.write(line)

    def _clear_bar(self) -> None:
        if self.stderr.isatty():
            self.stderr.write("\r" + " " * 100 + "\r", ending="")
