"""Fit the injection classifier on knowledge/injection_examples/ and injection_documents/, and write
knowledge/injection_model.npz."""

from typing import Any

import numpy as np
from django.core.management.base import BaseCommand, CommandParser

from knowledge.injection_model import FITTED, cross_validated, fit, training_rows, training_set


class Command(BaseCommand):
    help = (
        "Fit the classifier that withholds instructions planted in documents (knowledge/injection_examples/ and "
        "injection_documents/) and write knowledge/injection_model.npz, which is committed; prints its "
        "cross-validated figures."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--no-cv", action="store_true", help="Skip the 5-fold cross-validation.")
        parser.add_argument("--misses", action="store_true", help="List the cross-validation's mistakes.")

    def handle(self, *args: Any, no_cv: bool, misses: bool, **options: Any) -> None:
        rows = training_set()
        dense = training_rows(rows)
        model = fit(rows, dense)
        model.save(FITTED)
        documents = sum(row.kind == "document" for row in rows)
        demo = sum(row.source == "demo_kb" for row in rows)
        self.stdout.write(
            f"{len(rows)} rows ({len(rows) - documents - demo} from the examples, {documents} from the documents, "
            f"{demo} from the demo knowledge base)"
        )
        self.stdout.write(f"wrote {FITTED.name} (key {model.key}, threshold {model.threshold})")
        if no_cv:
            return
        found = cross_validated(rows, dense) >= model.threshold
        for part, written in (
            ("sentences", lambda r: r.kind != "document"),
            ("documents", lambda r: r.kind == "document"),
        ):
            for language in ("en", "zh"):
                mine = [i for i, row in enumerate(rows) if row.language == language and written(row)]
                planted = [i for i in mine if rows[i].withhold]
                ordinary = [i for i in mine if not rows[i].withhold]
                self.stdout.write(
                    f"cross-validated {part} {language}: instructions withheld {np.mean(found[planted]):.1%} of "
                    f"{len(planted)}, ordinary kept {1 - np.mean(found[ordinary]):.1%} of {len(ordinary)}"
                )
        if misses:
            for index in [i for i, row in enumerate(rows) if found[i] != row.withhold]:
                row = rows[index]
                what = "missed" if row.withhold else "withheld"
                self.stdout.write(
                    f"  {what} ({row.kind}, {'domains' if row.domains else 'no domains'}): {row.sentence.text}"
                )
