"""Several writes in one round trip: data-modifying statements, each compiled by Django from a queryset or a
model instance, sent to Postgres as the parts of one `WITH`.

A turn's hottest moments write to several tables at once (the customer's message, the conversation's counters
and the turn; a bot reply, the conversation and the turn's move). Each write is still made by the service that
owns its table, which hands it over as a `Write` instead of running it; the caller runs them together.

The parts run on one snapshot and see none of each other's rows, with two exceptions the parts ask for:
`written(name)` is the id the part `name` wrote, as a value of another part, and `only_if=name` makes a part
write only when the part `name` wrote a row (a bot message only when the conversation, still the bot's, was
updated). Two parts must not update the same row.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from django.db import DEFAULT_DB_ALIAS, connections, models
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models import sql
from django.db.models.expressions import RawSQL

from conversations.prepared import statement_cursor


@dataclass(frozen=True)
class Write:
    """One INSERT or UPDATE … RETURNING the ids it wrote; `instance`: the unsaved row an INSERT writes."""

    sql: str
    params: tuple[Any, ...]
    instance: models.Model | None = field(default=None, compare=False)


def written(name: str) -> RawSQL:
    """The id the part `name` wrote, as a value (an INSERT's column or an UPDATE's new value) of another part."""
    return RawSQL(f"(SELECT id FROM {_quoted(name)} LIMIT 1)", ())


def _wrote(name: str) -> str:
    return f"EXISTS (SELECT 1 FROM {_quoted(name)})"


def update(
    model: type[models.Model],
    *,
    where: Mapping[str, Any],
    unless: Mapping[str, Any] | None = None,
    only_if: str = "",
    **values: Any,
) -> Write:
    """`UPDATE model SET values` as a part, on the rows whose `where` columns equal their values and whose
    `unless` columns do not (`IS DISTINCT FROM`: NULL counts as another value); `only_if`: a part that must
    have written a row. As QuerySet.update(): values as the fields save them, expressions (F(), written())
    compiled, auto_now fields not touched. Written out here rather than by Django's UPDATE compiler, which took
    ten times as long for each part, for the plain column comparisons a part's rows are found by."""
    if not where:
        raise ValueError("an UPDATE part names the rows it writes")
    db = connections[DEFAULT_DB_ALIAS]
    assignments, params = [], []
    expressions = None
    for name, value in values.items():
        field = _field(model, name)
        column = _quoted(field.column)
        if hasattr(value, "resolve_expression"):
            expressions = expressions or sql.UpdateQuery(model).get_compiler(connection=db)
            value_sql, value_params = expressions.compile(
                value.resolve_expression(expressions.query, allow_joins=False, for_save=True)
            )
            assignments.append(f"{column} = {value_sql}")
            params.extend(value_params)
        elif value is None:
            assignments.append(f"{column} = NULL")
        else:
            if isinstance(value, models.Model):  # a related row, by its key
                value = value.prepare_database_save(field)
            assignments.append(f"{column} = %s")
            params.append(field.get_db_prep_save(value, connection=db))
    conditions = [f"{_column(model, name)} = %s" for name in where]
    conditions += [f"{_column(model, name)} IS DISTINCT FROM %s" for name in unless or {}]
    params += [_lookup_value(db, model, name, value) for name, value in (*where.items(), *(unless or {}).items())]
    if only_if:
        conditions.append(_wrote(only_if))
    table, pk = _quoted(model._meta.db_table), _quoted(model._meta.pk.column)  # type: ignore[union-attr]
    statement = f"UPDATE {table} SET {', '.join(assignments)} WHERE {' AND '.join(conditions)} RETURNING {pk}"
    return Write(statement, tuple(params))


def insert(instance: models.Model, *, only_if: str = "", unless_duplicate: bool = False) -> Write:
    """An unsaved row as a part (its auto_now fields are set as save() would); `only_if`: a part that must
    have written a row, else nothing is inserted; `unless_duplicate`: a row that would break a unique
    constraint is not inserted either (ON CONFLICT DO NOTHING). The row gets its id when it was inserted."""
    model = type(instance)
    db = connections[DEFAULT_DB_ALIAS]
    fields, head = _insert_head(model, with_pk=getattr(instance, model._meta.pk.attname) is not None)  # type: ignore[union-attr]
    query = sql.InsertQuery(model)
    query.insert_values(fields, [instance])
    compiler = query.get_compiler(connection=db)
    values = [[compiler.prepare_value(f, compiler.pre_save_val(f, instance)) for f in fields]]
    (placeholders,), (params,) = compiler.assemble_as_sql(fields, values)
    # INSERT … SELECT, not VALUES: the SELECT's NULLs and strings take the columns' types.
    guard = f" WHERE {_wrote(only_if)}" if only_if else ""
    skip = " ON CONFLICT DO NOTHING" if unless_duplicate else ""
    pk = _quoted(model._meta.pk.column)  # type: ignore[union-attr]
    return Write(f"{head} SELECT {', '.join(placeholders)}{guard}{skip} RETURNING {pk}", tuple(params), instance)


def writes_run(**parts: Write) -> dict[str, list[int]]:
    """Run the parts as one statement; returns the ids each part wrote (none: it matched or inserted nothing).
    Inserted rows get their ids and count as saved."""
    names = list(parts)
    with_clause = ", ".join(f"{_quoted(name)} AS ({parts[name].sql})" for name in names)
    ids = ", ".join(f"ARRAY(SELECT id FROM {_quoted(name)})" for name in names)
    with statement_cursor() as cursor:
        # RECURSIVE lets a part name one listed after it (Postgres orders them by what they reference)
        cursor.execute(f"WITH RECURSIVE {with_clause} SELECT {ids}", [p for name in names for p in parts[name].params])
        row = cursor.fetchone()
    result = {name: list(ids_written) for name, ids_written in zip(names, row, strict=True)}
    for name, part in parts.items():
        if part.instance is not None and result[name]:
            part.instance.pk = result[name][0]
            part.instance._state.adding = False
            part.instance._state.db = DEFAULT_DB_ALIAS
    return result


# A turn writes a dozen parts: their names are quoted and looked up once per process, not once per part.


@functools.cache
def _quoted(name: str) -> str:
    return connections[DEFAULT_DB_ALIAS].ops.quote_name(name)


@functools.cache
def _field(model: type[models.Model], name: str) -> models.Field[Any, Any]:
    field = model._meta.pk if name == "pk" else model._meta.get_field(name)
    if not (isinstance(field, models.Field) and field.concrete):
        raise ValueError(f"{name}: not a column of {model._meta.label}")
    return field


@functools.cache
def _column(model: type[models.Model], name: str) -> str:
    return f"{_quoted(model._meta.db_table)}.{_quoted(_field(model, name).column)}"


@functools.cache
def _insert_head(model: type[models.Model], *, with_pk: bool) -> tuple[list[models.Field[Any, Any]], str]:
    """The columns an INSERT of a `model` row writes (its id only when it has one), and `INSERT INTO t (…)`."""
    fields = [f for f in model._meta.concrete_fields if with_pk or not f.primary_key]
    return fields, f"INSERT INTO {_quoted(model._meta.db_table)} ({', '.join(_quoted(f.column) for f in fields)})"


def _lookup_value(db: BaseDatabaseWrapper, model: type[models.Model], name: str, value: Any) -> Any:
    """`value` as an exact lookup on the column sends it; None is refused: `= NULL` matches no row."""
    if value is None:
        raise ValueError(f"{name}: compared with None")
    field = _field(model, name)
    return field.get_db_prep_value(field.get_prep_value(value), db, prepared=True)
