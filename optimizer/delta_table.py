"""A Delta snapshot as the catalog sees a table: its Arrow schema and its partition values.

The columns are the snapshot's ``schemaString`` in its order, partition columns included where
the schema puts them (Delta's readers show them there); a ``variant`` column is vpush's
``struct<metadata, value>``. Partition values come from each ``add`` action, never from folder
names, and are parsed as the protocol's "Partition Value Serialization" writes them: numbers
and booleans as text, dates ``yyyy-MM-dd``, timestamps ``yyyy-MM-dd HH:mm:ss[.ffffff]`` (in the
session time zone, as Delta Spark writes and reads them) or ISO 8601 with a ``Z`` (UTC), strings
as they are; JSON null, or an empty string, is NULL.
"""
from __future__ import annotations

import dataclasses
import datetime as dt
import decimal
import re
from collections.abc import Mapping
from typing import Any

import pyarrow as pa

from vpush.codec.java_format import resolve_time_zone
from vpush.optimizer.bound import SqlType
from vpush.optimizer.delta_log import DeltaSnapshot
from vpush.optimizer.errors import CatalogError
from vpush.optimizer.partitions import PartitionField, Partitioning
from vpush.optimizer.plan import VARIANT_ARROW_TYPE

__all__ = ["DeltaPartitioning", "delta_arrow_schema", "delta_partitioning", "delta_sql_type"]

_PRIMITIVES: dict[str, pa.DataType] = {
    "string": pa.string(),
    "long": pa.int64(),
    "integer": pa.int32(),
    "short": pa.int16(),
    "byte": pa.int8(),
    "float": pa.float32(),
    "double": pa.float64(),
    "boolean": pa.bool_(),
    "binary": pa.binary(),
    "date": pa.date32(),
    "timestamp": pa.timestamp("us", tz="UTC"),
    "timestamp_ntz": pa.timestamp("us"),
    "variant": VARIANT_ARROW_TYPE,
}
_SQL_NAMES = {
    "string": "string",
    "long": "bigint",
    "integer": "int",
    "short": "smallint",
    "byte": "tinyint",
    "float": "float",
    "double": "double",
    "boolean": "boolean",
    "binary": "binary",
    "date": "date",
    "timestamp": "timestamp",
    "timestamp_ntz": "timestamp_ntz",
}
_DECIMAL = re.compile(r"decimal\(\s*(\d+)\s*,\s*(\d+)\s*\)")
_TIMESTAMP = re.compile(r"(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z)?")


def _arrow_type(delta_type: Any, where: str) -> pa.DataType:
    if isinstance(delta_type, str):
        found = _PRIMITIVES.get(delta_type)
        if found is not None:
            return found
        match = _DECIMAL.fullmatch(delta_type)
        if match:
            return pa.decimal128(int(match.group(1)), int(match.group(2)))
    elif isinstance(delta_type, dict):
        kind = delta_type.get("type")
        if kind == "struct":
            return pa.struct([_arrow_field(f, where) for f in delta_type.get("fields", ())])
        if kind == "array":
            return pa.list_(_arrow_type(delta_type.get("elementType"), where))
        if kind == "map":
            return pa.map_(_arrow_type(delta_type.get("keyType"), where), _arrow_type(delta_type.get("valueType"), where))
    raise CatalogError(f"the Delta schema has a type vpush does not read: {delta_type!r}", file=where)


def _arrow_field(field: Mapping[str, Any], where: str) -> pa.Field:
    return pa.field(str(field["name"]), _arrow_type(field["type"], where), bool(field.get("nullable", True)))


def delta_arrow_schema(snapshot: DeltaSnapshot) -> pa.Schema:
    """The table's columns as the scan gives them, in the schema's order.

    Example:
        >>> from vpush.optimizer.delta_log import DeltaSnapshot
        >>> schema = {"type": "struct", "fields": [
        ...     {"name": "id", "type": "long", "nullable": True, "metadata": {}},
        ...     {"name": "v", "type": "variant", "nullable": True, "metadata": {}}]}
        >>> delta_arrow_schema(DeltaSnapshot("t", 0, 3, (), schema, (), {}, ())).types[0]
        DataType(int64)
    """
    where = snapshot.location
    try:
        return pa.schema([_arrow_field(f, where) for f in snapshot.schema.get("fields", ())])
    except (KeyError, TypeError) as exc:
        raise CatalogError(f"the Delta schema is malformed: {exc}", file=where) from exc


def delta_sql_type(delta_type: Any) -> SqlType | None:
    """The Spark type of a primitive Delta type (None for nested types and variant).

    Example:
        >>> delta_sql_type("long"), delta_sql_type("decimal(10,2)").scale, delta_sql_type("variant")
        (SqlType(name='bigint', precision=None, scale=None), 2, None)
    """
    if not isinstance(delta_type, str):
        return None
    name = _SQL_NAMES.get(delta_type)
    if name is not None:
        return SqlType(name)
    match = _DECIMAL.fullmatch(delta_type)
    return SqlType("decimal", int(match.group(1)), int(match.group(2))) if match else None


def _timestamp(text: str, sql_type: SqlType, time_zone: str) -> dt.datetime | None:
    match = _TIMESTAMP.fullmatch(text.strip())
    if match is None:
        return None
    year, month, day, hour, minute, second = (int(g) for g in match.groups()[:6])
    micros = int((match.group(7) or "0")[:6].ljust(6, "0"))
    local = dt.datetime(year, month, day, hour, minute, second, micros)
    if sql_type.name == "timestamp_ntz":
        return local
    if match.group(8):
        return local.replace(tzinfo=dt.timezone.utc)
    # fold=0 gives Java's instant for a local time in a gap or an overlap.
    zone = resolve_time_zone(time_zone)  # a region, or a fixed offset (+05:30)
    tz = dt.timezone(dt.timedelta(seconds=zone)) if isinstance(zone, int) else zone
    return local.replace(tzinfo=tz).astimezone(dt.timezone.utc)


def _partition_value(text: str | None, sql_type: SqlType, time_zone: str, where: str) -> Any:
    if text is None or text == "":
        return None
    name = sql_type.name
    try:
        if name == "string":
            return text
        if sql_type.is_integral:
            return int(text)
        if name in ("float", "double"):
            return float(text)
        if name == "decimal":
            return decimal.Decimal(text)
        if name == "boolean":
            if text.lower() not in ("true", "false"):
                raise ValueError(text)
            return text.lower() == "true"
        if name == "date":
            return dt.date.fromisoformat(text.strip()[:10])
        if name in ("timestamp", "timestamp_ntz"):
            value = _timestamp(text, sql_type, time_zone)
            if value is not None:
                return value
    except (ValueError, ArithmeticError):
        pass
    raise CatalogError(f"the partition value {text!r} is not a {name}", file=where)


@dataclasses.dataclass(frozen=True)
class DeltaPartitioning(Partitioning):
    """Partition columns whose per-file values come from the log's ``add`` actions."""

    def values(self, path: str, *, session_time_zone: str = "UTC") -> dict[str, Any]:
        """The typed partition values of the file at ``path`` by column name ({} when none).

        Raises:
            CatalogError: ``path`` is not a live file of the snapshot, or a value does not parse.
        """
        if not self.fields:
            return {}
        raw = self.raw_values.get(path)
        if raw is None:
            raise CatalogError("not a live file of this Delta table", file=path)
        return {f.name: _partition_value(r, f.type, session_time_zone, path) for f, r in zip(self.fields, raw)}


def delta_partitioning(snapshot: DeltaSnapshot) -> DeltaPartitioning:
    """The snapshot's partition columns, typed from its schema, and each live file's values.

    Raises:
        CatalogError: a partition column missing from the schema, or of a type vpush does not
            partition by (binary, nested).
    """
    by_name = {str(f["name"]).lower(): f for f in snapshot.schema.get("fields", ())}
    fields = []
    for name in snapshot.partition_columns:
        field = by_name.get(name.lower())
        sql_type = delta_sql_type(field["type"]) if field is not None else None
        if field is None or sql_type is None or sql_type.name == "binary":
            raise CatalogError(f"the partition column {name!r} is missing or of an unsupported type", file=snapshot.location)
        fields.append(PartitionField(str(field["name"]), sql_type))
    raw: dict[str, tuple[str, ...]] = {}
    for file in snapshot.files:
        lowered = {k.lower(): v for k, v in file.partition_values.items()}
        # A None stands for NULL; Partitioning types its raw values as text, which a Delta
        # value is unless NULL.
        raw[file.path] = tuple(lowered.get(f.name.lower()) for f in fields)  # type: ignore[misc]
    return DeltaPartitioning(fields=tuple(fields), raw_values=raw)
