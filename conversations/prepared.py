"""The engine's hottest statements, cheap to make and to plan: compiled by Django once, planned by Postgres once.

A `PreparedRead` is a hot read compiled to SQL once, then run with each call's ids.

Django compiles a queryset into SQL every time it is evaluated, and for a read with joins and subqueries
that costs more CPU than Postgres spends answering it (the turn's own read: about 0.9 ms of compiling for
0.7 ms of running). A `PreparedRead` builds its queryset once per process with stand-in ids, finds where
they sit among the statement's parameters, and from then on sends the same SQL with the call's ids. The rows
become model instances (related rows and annotations included) or value tuples as the queryset would make
them, through the compiler kept from that one compilation. A compiler holds the connection it compiled for,
and connections are per thread: each thread reads rows through a copy of it bound to the thread's own
connection. (Once per thread was not enough: Django runs each HTTP request in a thread of its own.)

Only ids vary, or a string compared as a whole (an API key's hash): a queryset whose shape depends on the
values (`pk__in` of a list, an optional filter) is not one statement and cannot be prepared.
tests/conversations/test_prepared.py holds every read prepared this way to its queryset's own answer.

`statement_cursor()` runs a statement the way Postgres plans once per connection: bound on the server and
prepared once it has run PREPARE_AFTER times on the connection. Planning was half of Postgres' time for a turn's
statements (the turn's read: 0.7 ms of planning for 0.1 ms of running). Django binds every other statement on
the client, as it must for the ORM's statements in general (a parameter repeated in a GROUP BY is not the same
expression once bound on the server), and psycopg never prepares those.
"""

from __future__ import annotations

import copy
import dataclasses
import select
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from django.db import DEFAULT_DB_ALIAS, connections, models
from django.db.backends.postgresql.base import ServerBindingCursor  # type: ignore[attr-defined]  # psycopg 3's
from django.db.backends.postgresql.psycopg_any import register_tzloader
from django.db.backends.utils import CursorWrapper
from django.db.models.query import ModelIterable, get_related_populators  # type: ignore[attr-defined]
from django.db.models.sql.compiler import SQLCompiler
from psycopg.postgres import types
from psycopg.pq import Format, TransactionStatus

M = TypeVar("M", bound=models.Model)

PREPARE_AFTER = 2  # runs of one statement on a connection before it is prepared (psycopg's default is 5)
_TIMESTAMPTZ = types["timestamptz"].oid


class _PreparingCursor(ServerBindingCursor):  # type: ignore[misc]
    """psycopg leaves the cursor's last query unset when it runs a statement it has prepared, and Django's query
    log (DEBUG, CaptureQueriesContext) reads it from there: kept here, the log names every statement it ran."""

    def _send_query_prepared(self, name: bytes, pgq: Any, **options: Any) -> None:
        self._query = pgq
        super()._send_query_prepared(name, pgq, **options)


def statement_cursor() -> CursorWrapper:
    """A cursor of the default connection (as `connection.cursor()` gives, logged and with its errors Django's)
    whose statements are bound on the server and prepared once they repeat."""
    connection = connections[DEFAULT_DB_ALIAS]
    connection.close_if_health_check_failed()
    connection.ensure_connection()
    raw = connection.connection
    raw.prepare_threshold = PREPARE_AFTER  # client-bound cursors never prepare, whatever it says
    with connection.wrap_database_errors:
        cursor = _PreparingCursor(raw)
        # As Django's own cursors: datetimes read in the connection's time zone.
        if connection.timezone != raw.adapters.get_loader(_TIMESTAMPTZ, Format.TEXT).timezone:
            register_tzloader(connection.timezone, cursor)
        return connection._prepare_cursor(cursor)  # type: ignore[attr-defined]  # wrapped as Django wraps its own


def connection_kept() -> None:
    """Keep this thread's connection for its next unit of work (a worker's next task): a connection per worker
    process, its statements still prepared, with no health check's round trip. Handing it back to the pool and
    taking it again, as a request does, cost that round trip every task.

    It goes back to the pool (which hands out a checked one) when its last use failed, when it was left in a
    transaction, or when the server has written to it while it sat idle: a server that ends a connection (a
    restart, a terminated backend) says so or closes it, and only then is there anything to read."""
    connection = connections[DEFAULT_DB_ALIAS]
    raw = connection.connection
    if raw is None:
        return
    if (
        connection.errors_occurred
        or raw.closed
        or raw.info.transaction_status != TransactionStatus.IDLE
        or select.select([raw.fileno()], [], [], 0)[0]
    ):
        connection.close_if_unusable_or_obsolete()


# A stand-in id no row has and no statement holds as a constant, one per named value.
_STAND_IN = -7_306_000_001


@dataclass
class _Compiled:
    sql: str
    params: list[Any]
    slots: dict[str, list[int]]
    compiler: SQLCompiler
    instances: _Instances | None  # None: a values() read


class _Instances:
    """How a row becomes a model instance, as ModelIterable makes it (its select_related rows and annotations),
    worked out once from the compiler."""

    def __init__(self, compiler: SQLCompiler) -> None:
        klass_info, select = compiler.klass_info, compiler.select
        assert klass_info is not None
        self.model = klass_info["model"]
        self.first, self.last = klass_info["select_fields"][0], klass_info["select_fields"][-1] + 1
        self.names = [column[0].target.attname for column in select[self.first : self.last]]
        self.related = get_related_populators(klass_info, select, DEFAULT_DB_ALIAS)
        self.annotations = compiler.annotation_col_map.items()

    def __call__(self, row: Any) -> Any:
        instance = self.model.from_db(DEFAULT_DB_ALIAS, self.names, row[self.first : self.last])
        for populator in self.related:
            populator.populate(row, instance)
        for name, position in self.annotations:
            setattr(instance, name, row[position])
        return instance


class PreparedRead(Generic[M]):
    """`build(**ids)` → the queryset; `objects(**ids)` runs it (model instances), `rows(**ids)` runs a
    `values_list` queryset (tuples)."""

    def __init__(self, build: Callable[..., models.QuerySet[M, Any]]) -> None:
        self._build = build
        self._shared: _Compiled | None = None
        self._local = threading.local()  # the shared compilation, bound to this thread's connection

    def objects(self, **ids: int | str) -> list[M]:
        compiled, rows = self._run(ids)
        if compiled.instances is None:
            raise TypeError("a values() read gives rows(), not objects()")
        return [compiled.instances(row) for row in rows]

    def one(self, **ids: int | str) -> M:
        """The one row, or the model's DoesNotExist."""
        found = self.objects(**ids)
        if not found:
            model = self._compiled(ids).compiler.query.model
            assert model is not None
            raise model.DoesNotExist(f"{model.__name__} matching {ids} does not exist.")  # type: ignore[attr-defined]
        return found[0]

    def rows(self, **ids: int | str) -> list[tuple[Any, ...]]:
        return [tuple(row) for row in self._run(ids)[1]]

    def _run(self, ids: dict[str, int | str]) -> tuple[_Compiled, Any]:
        compiled = self._compiled(ids)
        params = list(compiled.params)
        for name, positions in compiled.slots.items():
            for position in positions:
                params[position] = ids[name]
        with statement_cursor() as cursor:
            cursor.execute(compiled.sql, params)
            fetched = cursor.fetchall()
        return compiled, compiled.compiler.results_iter(results=[fetched])

    def _compiled(self, ids: dict[str, int | str]) -> _Compiled:
        connection = connections[DEFAULT_DB_ALIAS]
        compiled: _Compiled | None = getattr(self._local, "compiled", None)
        if compiled is None or compiled.compiler.connection is not connection:
            shared = self._shared or self._compile(ids)
            compiler = copy.copy(shared.compiler)
            compiler.connection = connection
            compiled = self._local.compiled = dataclasses.replace(shared, compiler=compiler)
        if set(ids) != set(compiled.slots):
            raise TypeError(f"this read takes {sorted(compiled.slots)}, not {sorted(ids)}")
        return compiled

    def _compile(self, ids: dict[str, int | str]) -> _Compiled:
        stand_ins = {name: _STAND_IN - number for number, name in enumerate(sorted(ids))}
        queryset = self._build(**stand_ins)
        compiler = queryset.query.get_compiler(using=DEFAULT_DB_ALIAS)
        sql, params = compiler.as_sql()
        # A text column holds its stand-in as a string.
        slots = {name: [i for i, p in enumerate(params) if p in (v, str(v))] for name, v in stand_ins.items()}
        if not all(slots.values()):
            raise ValueError(f"not every id is a parameter of the statement: {slots}")
        instances = _Instances(compiler) if queryset._iterable_class is ModelIterable else None
        self._shared = _Compiled(sql, list(params), slots, compiler, instances)  # threads racing here agree
        return self._shared
