"""Fit the learned decisions of agents/reading/ on their example files and write agents/reading/fitted/."""

from typing import Any

import numpy as np
from django.core.management.base import BaseCommand, CommandParser

from agents.reading.catalogue import DECISIONS
from agents.reading.confirmation import CANCEL_AT, CONFIRMATION, YES_AT, Answer, answer_of
from agents.reading.correction import CORRECTION, value_model_save
from agents.reading.decisions import DENSE_WEIGHT, FITTED, C, cross_validated, examples, fit, training_vectors


class Command(BaseCommand):
    help = (
        "Fit each learned decision (agents/reading/examples/) and write agents/reading/fitted/<decision>.npz, "
        "which is committed; prints the examples' cross-validated accuracy per language."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--search", action="store_true", help="Cross-validate a grid of settings; write nothing.")
        parser.add_argument("--misses", action="store_true", help="List the cross-validation's mistakes.")
        parser.add_argument("--only", default="", help="Fit only this decision (by name).")

    def handle(self, *args: Any, search: bool, misses: bool, only: str, **options: Any) -> None:
        for decision in DECISIONS:
            if only and decision.name != only:
                continue
            rows = examples(decision)
            vectors = training_vectors(decision, rows)
            said = np.array([decision.labels.index(row.label) for row in rows])
            if search:
                for c in (1.0, 4.0, 8.0, 16.0, 32.0):
                    for dense_weight in (0.5, 1.0, 2.0, 4.0):
                        found = cross_validated(decision, rows, vectors, c=c, dense_weight=dense_weight)
                        right = found.argmax(axis=1) == said
                        self.stdout.write(f"{decision.name} C={c} dense={dense_weight}: {right.mean():.1%}")
                continue
            model = fit(decision, rows, vectors)
            model.save(FITTED / f"{decision.name}.npz")
            self.stdout.write(
                f"{decision.name}: {len(rows)} examples, wrote fitted/{decision.name}.npz (key {model.key}, "
                f"C={C}, dense={DENSE_WEIGHT})"
            )
            found = cross_validated(decision, rows, vectors)
            for language in sorted({row.language for row in rows}):
                mine = np.array([row.language == language for row in rows])
                right = found[mine].argmax(axis=1) == said[mine]
                self.stdout.write(f"  cross-validated {language}: {right.mean():.1%} of {mine.sum()}")
            if decision is CONFIRMATION:
                self._bars(decision.labels, found, said)
            if decision is CORRECTION:
                self.stdout.write(f"  wrote fitted/correction_value.npz, the value meant (key {value_model_save()})")
            if misses:
                for index in np.flatnonzero(found.argmax(axis=1) != said):
                    read = decision.labels[found[index].argmax()]
                    self.stdout.write(
                        f"    {rows[index].label} read as {read} ({found[index].max():.2f}): {rows[index].text}"
                    )

    def _bars(self, labels: tuple[str, ...], found: np.ndarray, said: np.ndarray) -> None:
        """How the confirmation's bars fare on the cross-validation: a yes where none was said writes a change,
        giving up where none was meant drops a request."""
        read = [answer_of({Answer(label): p for label, p in zip(labels, row, strict=True)}) for row in found]
        yes, cancel = labels.index(Answer.YES), labels.index(Answer.CANCEL)
        read_yes = np.array([answer == Answer.YES for answer in read])
        read_cancel = np.array([answer == Answer.CANCEL for answer in read])
        self.stdout.write(
            f"  at YES_AT={YES_AT}: yes read {read_yes[said == yes].mean():.1%} of yeses, "
            f"{int(read_yes[said != yes].sum())} read where none was said; at CANCEL_AT={CANCEL_AT}: giving up "
            f"read {read_cancel[said == cancel].mean():.1%}, {int(read_cancel[said != cancel].sum())} where not meant"
        )
