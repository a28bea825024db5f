import json
import sys
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from stores.builtin.taubench import store_export_taubench


class Command(BaseCommand):
    help = "Write the whole store in the τ-bench retail format (to a file, or to stdout)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--output", dest="path", type=Path, help="Output file; stdout when omitted.")
        parser.add_argument("--format", choices=["taubench"], default="taubench")

    def handle(self, *args: Any, path: Path | None, **options: Any) -> None:
        text = json.dumps(store_export_taubench(), ensure_ascii=False, indent=2)
        if path is None:
            sys.stdout.write(text + "\n")
        else:
            path.write_text(text + "\n", encoding="utf-8")
            self.stderr.write(f"wrote {path}")
