import sys
import time
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from knowledge.services import FAQ_TYPES, TEXT_TYPES, IngestError, document_ingest, kb_prune


class Command(BaseCommand):
    help = (
        "Ingest files or folders (Markdown, text, FAQ .csv/.json) into a knowledge base; unchanged files are skipped."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("paths", nargs="+", type=Path)
        parser.add_argument("--kb", default="default", help="Knowledge base name.")
        parser.add_argument("--lang", choices=["zh", "en", "auto"], default="auto")
        parser.add_argument("--prune", action="store_true", help="Remove documents whose file is gone.")

    def handle(self, *args: Any, paths: list[Path], kb: str, lang: str, prune: bool, **options: Any) -> None:
        files: list[Path] = []
        for path in paths:
            if not path.exists():
                raise CommandError(f"{path}: no such file or folder")
            if path.is_dir():
                files.extend(
                    sorted(p for p in path.rglob("*") if p.is_file() and p.suffix.lower() in TEXT_TYPES | FAQ_TYPES)
                )
            else:
                files.append(path)
        started = time.monotonic()
        counts = {"added": 0, "changed": 0, "unchanged": 0, "failed": 0}
        chunks = 0
        for index, file in enumerate(files, 1):
            try:
                result = document_ingest(kb_name=kb, path=file, language=lang)
            except (IngestError, OSError) as exc:
                counts["failed"] += 1
                self.stderr.write(f"skipped {exc}")
                continue
            counts[result.outcome] += 1
            chunks += result.chunks
            if sys.stderr.isatty():
                self.stderr.write(f"\r[{index}/{len(files)}] {file}", ending="")
        pruned = kb_prune(kb_name=kb, keep_sources={str(f) for f in files}) if prune else 0
        self.stdout.write(
            f"{kb}: {counts['added']} added, {counts['changed']} changed, {counts['unchanged']} unchanged, "
            f"{counts['failed']} failed, {pruned} pruned; {chunks} chunks in {time.monotonic() - started:.1f} s"
        )
        if counts["failed"]:
            raise CommandError(f"{counts['failed']} file(s) could not be ingested")
