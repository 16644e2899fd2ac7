"""Hive-style partition folders (``year=2024/month=01/part-0.parquet``), read as Spark reads them.

Spark's partition discovery (``PartitioningUtils``, with
``spark.sql.sources.partitionColumnTypeInference.enabled`` at its default, true), as measured on
PySpark 4.3:

- From a file's folder up to the table folder, names of the form ``key=value`` are partition
  columns; folders below the first such name that are not ``key=value`` are skipped, and the first
  non-``key=value`` folder above one ends the walk (it becomes the table's "base path").
- Every file must end in the same base path and the same column names (compared ignoring case).
  A data file right in the base folder beside partition folders is skipped by Spark without a
  word; vpush refuses it instead (:class:`CatalogError`), since reading it would give other rows.
- Names and values are URL-unescaped: each ``%XX`` is the character U+00XX (so ``%C3%A9`` is two
  characters, not ``é``). An empty name or value is an error.
- Each value's type is inferred from the *escaped* text: ``int``, then ``bigint``, then a decimal
  with no fractional digits (``1e3`` is ``decimal(4,0)``), then ``double`` (Java's
  ``Double.parseDouble``: surrounding blanks, ``NaN``, ``Infinity``, a ``d``/``f`` suffix, hex),
  then ``timestamp`` (``yyyy-MM-dd HH:mm:ss[.S]``, unescaped, in the session time zone), then
  ``date`` (``yyyy-MM-dd``), else ``string``; ``__HIVE_DEFAULT_PARTITION__`` is NULL (type
  ``void`` when every value is).
- A column's type is the wider of its files' types: int < bigint < decimal; int with double is
  double; double with bigint or decimal is string; date with timestamp is timestamp; anything else
  mixed is string. Each file's value is its raw text cast to that type (``01`` as string stays
  ``01``).
"""
from __future__ import annotations

import dataclasses
import datetime as dt
import decimal
import math
import os
import re
from collections.abc import Mapping, Sequence
from typing import Any

from vpush.optimizer.bound import SqlType
from vpush.optimizer.variant_types import MAX_DECIMAL_PRECISION
from vpush.optimizer.errors import CatalogError

__all__ = [
    "DEFAULT_PARTITION_NAME",
    "PartitionField",
    "Partitioning",
    "discover_partitions",
    "infer_partition_type",
    "unescape_path_name",
]

DEFAULT_PARTITION_NAME = "__HIVE_DEFAULT_PARTITION__"
"""The folder value Hive and Spark write for a NULL partition value."""

_INT = re.compile(r"[+-]?[0-9]+")
_BIG_DECIMAL = re.compile(r"[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?")
_JAVA_DOUBLE = re.compile(
    r"[+-]?(NaN|Infinity|(([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?[fFdD]?))"
)
_JAVA_HEX_DOUBLE = re.compile(
    r"([+-]?)0[xX]([0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)[pP]([+-]?[0-9]+)[fFdD]?"
)
_TIMESTAMP = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2}) ([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.([0-9]))?")
_DATE = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})")
_ESCAPE = re.compile(r"%([+-]?[0-9a-fA-F]{1,2})")
_JAVA_BLANKS = "".join(chr(c) for c in range(ord(" ") + 1))  # what Java's String.trim() removes
_INT_RANGE = SqlType("int").int_range
_BIGINT_RANGE = SqlType("bigint").int_range
_STRING = SqlType("string")


@dataclasses.dataclass(frozen=True)
class PartitionField:
    """A partition column: its name (as first spelled) and Spark type."""

    name: str
    type: SqlType


@dataclasses.dataclass(frozen=True)
class Partitioning:
    """A table's partition columns and each file's raw (still escaped) folder values.

    Typed values depend on the session time zone (timestamp partitions), so they are computed
    on demand by :meth:`values`.
    """

    fields: tuple[PartitionField, ...] = ()
    raw_values: Mapping[str, tuple[str, ...]] = dataclasses.field(default_factory=dict)

    @property
    def names(self) -> tuple[str, ...]:
        """The partition column names, outermost folder first."""
        return tuple(f.name for f in self.fields)

    def values(self, path: str, *, session_time_zone: str = "UTC") -> dict[str, Any]:
        """The typed partition values of the file at ``path`` by column name ({} when none).

        Raises:
            CatalogError: ``path`` is not one of the table's files.
        """
        if not self.fields:
            return {}
        raw = self.raw_values.get(path)
        if raw is None:
            raise CatalogError("not a file of this partitioned table", file=path)
        return {f.name: _cast(r, f.type, session_time_zone) for f, r in zip(self.fields, raw)}


def unescape_path_name(text: str) -> str:
    """Undo Hive's path escaping as Spark does: ``%XX`` is the character with that code.

    Example:
        >>> unescape_path_name("a%20b"), unescape_path_name("%C3%A9"), unescape_path_name("%zz")
        ('a b', 'Ã©', '%zz')
    """
    out: list[str] = []
    i = 0
    while i < len(text):
        two = text[i + 1 : i + 3]
        if text[i] == "%" and len(two) == 2 and re.fullmatch(r"[+-]?[0-9a-fA-F]+", two):
            code = int(two, 16)
            if code >= 0:
                out.append(chr(code))
                i += 3
                continue
        out.append(text[i])
        i += 1
    return "".join(out)


def _java_double(raw: str) -> float | None:
    """``Double.parseDouble(raw)``, or None where Java throws."""
    text = raw.strip(_JAVA_BLANKS)
    if _JAVA_DOUBLE.fullmatch(text):
        body = text.rstrip("fFdD") if not text.endswith(("NaN", "Infinity")) else text
        if body.lstrip("+-") == "NaN":
            return math.nan
        return float(body.replace("Infinity", "inf"))
    hexed = _JAVA_HEX_DOUBLE.fullmatch(text)
    if hexed:
        sign, mantissa, exponent = hexed.groups()
        return float.fromhex(f"{sign}0x{mantissa}p{exponent}")
    return None


def _decimal_type(raw: str) -> SqlType | None:
    """The decimal type of ``new BigDecimal(raw)`` when its scale is <= 0, else None."""
    if not _BIG_DECIMAL.fullmatch(raw):
        return None
    number = decimal.Decimal(raw)
    _, digits, exponent = number.as_tuple()
    if not isinstance(exponent, int) or exponent < 0:
        return None
    significant = len(digits)
    precision = significant + exponent  # a negative scale becomes trailing zeros, scale 0
    if precision > MAX_DECIMAL_PRECISION:
        return None
    return SqlType("decimal", max(precision, 1), 0)


def _timestamp_parts(text: str) -> dt.datetime | None:
    match = _TIMESTAMP.fullmatch(text)
    if match is None:
        return None
    y, mo, d, h, mi, s, tenth = match.groups()
    try:
        return dt.datetime(int(y), int(mo), int(d), int(h), int(mi), int(s), int(tenth or 0) * 100_000)
    except ValueError:
        return None


def _date(text: str) -> dt.date | None:
    match = _DATE.fullmatch(text)
    if match is None:
        return None
    try:
        return dt.date(int(match[1]), int(match[2]), int(match[3]))
    except ValueError:
        return None


def infer_partition_type(raw: str) -> SqlType:
    """The type Spark infers for one escaped partition folder value.

    Example:
        >>> [str(infer_partition_type(v)) for v in ("01", "3000000000", "1e3", "1.5", "2024-01-05", "x")]
        ['int', 'bigint', 'decimal(4,0)', 'double', 'date', 'string']
    """
    if _INT.fullmatch(raw):
        number = int(raw)
        if _INT_RANGE[0] <= number <= _INT_RANGE[1]:
            return SqlType("int")
        if _BIGINT_RANGE[0] <= number <= _BIGINT_RANGE[1]:
            return SqlType("bigint")
    decimal_type = _decimal_type(raw)
    if decimal_type is not None:
        return decimal_type
    if _java_double(raw) is not None:
        return SqlType("double")
    if _timestamp_parts(unescape_path_name(raw)) is not None:
        return SqlType("timestamp")
    if _date(raw) is not None:
        return SqlType("date")
    if raw == DEFAULT_PARTITION_NAME:
        return SqlType("void")
    return _STRING


def _wider(a: SqlType, b: SqlType) -> SqlType:
    """Spark's ``findWiderTypeForPartitionColumn``."""
    if a == b:
        return a
    if a.name == "void":
        return b
    if b.name == "void":
        return a
    names = {a.name, b.name}
    if names in ({"double", "decimal"}, {"double", "bigint"}):
        return _STRING
    if names == {"int", "bigint"}:
        return SqlType("bigint")
    if names == {"int", "double"}:
        return SqlType("double")
    if names == {"date", "timestamp"}:
        return SqlType("timestamp")
    if names <= {"int", "bigint", "decimal"}:
        digits = {"int": 10, "bigint": 20}

        def whole(t: SqlType) -> int:
            return t.precision if t.precision is not None else digits[t.name]

        precision = max(whole(a), whole(b))
        return SqlType("decimal", precision, 0) if precision <= MAX_DECIMAL_PRECISION else _STRING
    return _STRING


def _cast(raw: str, type_: SqlType, time_zone: str) -> Any:
    """Spark's ``castPartValueToDesiredType`` for the types inference gives."""
    if raw == DEFAULT_PARTITION_NAME or type_.name == "void":
        return None
    if type_.name == "string":
        return unescape_path_name(raw)
    if type_.name in ("int", "bigint"):
        return int(raw)
    if type_.name == "double":
        return _java_double(raw)
    if type_.name == "decimal":
        return decimal.Decimal(raw).quantize(decimal.Decimal(1), context=decimal.Context(prec=80))
    if type_.name == "date":
        return _date(raw)
    if type_.name == "timestamp":
        local = _timestamp_parts(unescape_path_name(raw))
        if local is None:
            day = _date(raw)
            local = dt.datetime.combine(day, dt.time()) if day is not None else None
        if local is None:
            return None
        from vpush.codec.java_format import resolve_time_zone

        zone = resolve_time_zone(time_zone)  # a region, or a fixed offset (+05:30)
        tz = dt.timezone(dt.timedelta(seconds=zone)) if isinstance(zone, int) else zone
        # fold=0 gives Java's instant for a local time in a gap or an overlap.
        return local.replace(tzinfo=tz).astimezone(dt.timezone.utc)
    return None


def _segment(name: str, path: str) -> tuple[str, str] | None:
    """(column, raw value) of a ``key=value`` folder name, or None for any other name."""
    if "=" not in name:
        return None
    key, raw = name.split("=", 1)
    if not key:
        raise CatalogError(f"empty partition column name in the folder name {name!r}", file=path)
    if not raw:
        raise CatalogError(
            f"Found an empty partition column value in the path segment {name!r}. Each partition directory "
            "must have a non-empty value after the '=' sign (e.g., 'col=value').",
            file=path,
            error_class="EMPTY_PARTITION_COLUMN_VALUE",
        )
    return unescape_path_name(key), raw


def _parse_path(location: str, file: str) -> tuple[str, list[tuple[str, str]]]:
    """(base folder relative to the table, [(column, raw value)...] outermost first)."""
    folder = os.path.relpath(os.path.dirname(os.path.abspath(file)), os.path.abspath(location))
    parts = [] if folder == os.curdir else folder.split(os.sep)
    columns: list[tuple[str, str]] = []
    base = 0
    for i in range(len(parts) - 1, -1, -1):
        found = _segment(parts[i], file)
        if found is None:
            if columns:
                base = i + 1
                break
            continue
        columns.append(found)
    if not columns:
        return folder, []
    return os.sep.join(parts[:base]) or os.curdir, columns[::-1]


def discover_partitions(location: str | os.PathLike[str], files: Sequence[str]) -> Partitioning:
    """The partition columns of a table folder and each file's values, as Spark infers them.

    Example:
        >>> p = discover_partitions("/t", ["/t/year=2024/month=01/a.parquet", "/t/year=2023/month=x/b.parquet"])
        >>> [(f.name, str(f.type)) for f in p.fields]
        [('year', 'int'), ('month', 'string')]
        >>> p.values("/t/year=2024/month=01/a.parquet")
        {'year': 2024, 'month': '01'}

    Args:
        location: the table folder.
        files: its data files (from :func:`~vpush.optimizer.catalog.list_files`).

    Returns:
        A :class:`Partitioning`, without fields when no file sits in a ``key=value`` folder.

    Raises:
        CatalogError: an empty partition column name or value; files whose folders give different
            column names or different base folders; a data file beside partition folders.
    """
    root = os.fspath(location)
    parsed = {f: _parse_path(root, f) for f in files}
    partitioned = {f: cols for f, (_, cols) in parsed.items() if cols}
    if not partitioned:
        return Partitioning()
    bases = sorted({base for base, _ in parsed.values()})
    if len(bases) > 1:
        raise CatalogError(
            "conflicting directory structures (Spark's CONFLICTING_DIRECTORY_STRUCTURES): "
            f"the files lie under different base folders {bases}",
            file=root,
        )
    for f, (_, cols) in parsed.items():
        if not cols:
            raise CatalogError(
                "a data file beside partition folders (Spark would silently skip it)", file=f
            )
    first_file = min(partitioned)
    names = [name for name, _ in partitioned[first_file]]
    if len({n.lower() for n in names}) != len(names):
        raise CatalogError(f"a partition column appears twice in the path: {names}", file=first_file)
    for f in sorted(partitioned):
        other = [name for name, _ in partitioned[f]]
        if [n.lower() for n in other] != [n.lower() for n in names]:
            raise CatalogError(
                "conflicting partition column names (Spark's CONFLICTING_PARTITION_COLUMN_NAMES): "
                f"{names} in {first_file} but {other} here",
                file=f,
            )
    types: list[SqlType] = []
    for i in range(len(names)):
        column_type: SqlType | None = None
        for f in sorted(partitioned):
            inferred = infer_partition_type(partitioned[f][i][1])
            column_type = inferred if column_type is None else _wider(column_type, inferred)
        types.append(column_type if column_type is not None else _STRING)
    return Partitioning(
        fields=tuple(PartitionField(n, t) for n, t in zip(names, types)),
        raw_values={f: tuple(raw for _, raw in cols) for f, cols in partitioned.items()},
    )
