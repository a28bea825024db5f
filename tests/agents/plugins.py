"""Specialists that exist only for tests and benchmarks, loaded through SPECIALIST_MODULES."""

from __future__ import annotations

import time

from agents.specialists import register
from agents.specialists.base import Specialist, SpecialistContext, SpecialistResult

IO_WAIT_S = 0.3


@register
class SlowIo(Specialist):
    """Waits on I/O for 300 ms (like a remote API) and answers."""

    name = "slow_io"

    def run(self, ctx: SpecialistContext) -> SpecialistResult:
        time.sleep(IO_WAIT_S)
        return SpecialistResult(text=f"answer to {ctx.text}")


@register
class Broken(Specialist):
    name = "broken"

    def run(self, ctx: SpecialistContext) -> SpecialistResult:
        raise RuntimeError("upstream API is down")
