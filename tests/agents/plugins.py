"""Specialists that exist only for tests and benchmarks, loaded through SPECIALIST_MODULES."""

from __future__ import annotations

import time
from collections import Counter

from agents.answers import SpecialistContext, SpecialistError, SpecialistResult
from agents.specialists import Specialist, register

IO_WAIT_S = 0.3
_attempts: Counter[int] = Counter()  # per subtask, in the process running it


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


@register
class Flaky(Specialist):
    """Its remote API times out twice, then answers."""

    name = "flaky"

    def run(self, ctx: SpecialistContext) -> SpecialistResult:
        _attempts[ctx.subtask_id] += 1
        if _attempts[ctx.subtask_id] <= 2:
            raise SpecialistError("the carrier's API timed out", permanent=False)
        return SpecialistResult(text=f"answer to {ctx.text} at attempt {_attempts[ctx.subtask_id]}")


@register
class Down(Specialist):
    """Its remote API never answers in time."""

    name = "down"

    def run(self, ctx: SpecialistContext) -> SpecialistResult:
        _attempts[ctx.subtask_id] += 1
        raise SpecialistError(f"the carrier's API timed out (attempt {_attempts[ctx.subtask_id]})", permanent=False)


@register
class Refusing(Specialist):
    """Its remote API refuses the request: no use asking again."""

    name = "refusing"

    def run(self, ctx: SpecialistContext) -> SpecialistResult:
        _attempts[ctx.subtask_id] += 1
        raise SpecialistError(f"the carrier refused the request (attempt {_attempts[ctx.subtask_id]})")


@register
class Hanging(Specialist):
    """Never comes back on its own."""

    name = "hanging"

    def run(self, ctx: SpecialistContext) -> SpecialistResult:
        time.sleep(120)
        return SpecialistResult(text="too late")
