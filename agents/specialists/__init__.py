"""The specialist registry: the engine looks a subtask's specialist up here by name.

Business, workflow and knowledge specialists register themselves the same way. A subtask whose
specialist is not registered gets the "not available" result, which counts as unresolved, so
after two such turns the customer is handed to a person instead of going round in circles.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import ClassVar

from agents.answers import SpecialistContext, SpecialistResult
from conversations.language import say


class Specialist(ABC):
    name: ClassVar[str]
    # All it reads and writes is in the database, and offline it answers at once: its lone subtask runs in
    # the transaction that stores the reply (agents.nodes.route.fan_out). Not for one that calls out (a
    # remote API, mail) or holds the customer for several messages (a workflow).
    answers_in_transaction: ClassVar[bool] = False

    @abstractmethod
    def run(self, ctx: SpecialistContext) -> SpecialistResult: ...


SPECIALISTS: dict[str, type[Specialist]] = {}


def register(cls: type[Specialist]) -> type[Specialist]:
    SPECIALISTS[cls.name] = cls
    return cls


class NotAvailable(Specialist):
    name = "not_available"

    def run(self, ctx: SpecialistContext) -> SpecialistResult:
        return SpecialistResult(
            text=say(
                ctx.language,
                'I can\'t take care of that myself. A colleague from our team can - just say "human" '
                "and I'll bring one in.",
            ),
            resolved=False,
            data={"not_available": True},
        )


def specialist_get(name: str) -> Specialist:
    if not _loaded:
        _load_plugins()
    return SPECIALISTS.get(name, NotAvailable)()


_loaded = False


def _load_plugins() -> None:
    """Import the built-in specialists, then SPECIALIST_MODULES (dotted paths), for their @register.

    Done on first use rather than at import: specialists import the engine's modules, which in
    turn import this registry.
    """
    global _loaded
    from importlib import import_module

    from django.conf import settings

    for module in ["business", "chitchat", "complaint", "emotion", "human", "knowledge", "workflow"]:
        import_module(f"agents.specialists.{module}")
    for module in settings.SPECIALIST_MODULES:
        import_module(module)
    _loaded = True
