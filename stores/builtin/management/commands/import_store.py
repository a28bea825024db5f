import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from stores.builtin.taubench import StoreImportError, store_import_taubench


class Command(BaseCommand):
    help = "Load a store file (τ-bench retail format): an upsert by id, in one transaction."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("path", type=Path)
        parser.add_argument("--format", choices=["taubench"], default="taubench")

    def handle(self, *args: Any, path: Path, **options: Any) -> None:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except OSError as exc:
            raise CommandError(f"cannot read {path}: {exc.strerror or exc}") from None
        except UnicodeDecodeError as exc:
            raise CommandError(f"{path} is not UTF-8 text: {exc.reason}") from None
        except json.JSONDecodeError as exc:
            raise CommandError(
                f"{path} is not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}"
            ) from None
        try:
            summary = store_import_taubench(data=data)
        except StoreImportError as exc:
            raise CommandError(f"{path}: {exc} (nothing was imported)") from None
        for line in summary.lines():
            self.stdout.write(line)
