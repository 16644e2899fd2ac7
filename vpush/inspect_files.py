"""What a Parquet file's variant columns hold, from its footer alone: ``vpush inspect``.

For each variant column: how it was recognised (annotated, by structure, draft layout), its
shredding schema, and for each shredded path how many values sit in ``typed_value`` and how many
in the residual ``value`` (and in how many row groups), with the typed values' bounds. Nothing but
the footer is read, so a file of any size is inspected in milliseconds.

Example:
    >>> import tempfile, pyarrow as pa
    >>> from vpush.codec.builder import encode
    >>> from vpush.codec.shred import write_shredded_parquet
    >>> rows = [encode({"a": i}) for i in range(3)] + [encode({"a": "x"})]
    >>> v = pa.StructArray.from_arrays([pa.array([m for m, _ in rows]), pa.array([x for _, x in rows])],
    ...                                ["metadata", "value"])
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     write_shredded_parquet(pa.table({"v": v}), folder + "/t.parquet", {"v": "struct<a: bigint>"})
    ...     report = inspect_file(folder + "/t.parquet")
    >>> [(p.path, p.shredded_as, p.typed_values, p.residual_values) for p in report.columns[0].paths]
    [('$', 'object', None, 0), ('$.a', 'bigint', 3, 1)]
"""
from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa

from vpush.codec.layout import ArrayLayout, ObjectLayout, PrimitiveLayout, ValueLayout, VariantLayout
from vpush.codec.path import VariantPath
from vpush.optimizer.catalog import Catalog, FileInfo
from vpush.optimizer.statistics import FileStatistics

__all__ = ["ColumnReport", "FileReport", "PathReport", "inspect", "inspect_file"]

_PRIMITIVE_NAMES = {
    "boolean": "boolean", "int8": "tinyint", "int16": "smallint", "int32": "int", "int64": "bigint",
    "float": "float", "double": "double", "decimal4": "decimal", "decimal8": "decimal",
    "decimal16": "decimal", "date": "date", "timestamp": "timestamp", "timestamp_ntz": "timestamp_ntz",
    "timestamp_nanos": "timestamp(9)", "timestamp_ntz_nanos": "timestamp_ntz(9)", "time": "time",
    "uuid": "uuid", "string": "string", "binary": "binary",
}  # fmt: skip


@dataclasses.dataclass(frozen=True)
class PathReport:
    """One shredded level: its path (``[*]`` for array elements), what it is shredded as, the
    values in ``typed_value`` (None for objects, which have no leaf of their own) and in the
    residual ``value`` (None when the level has no ``value`` column), the row groups holding
    residuals, and the typed values' bounds over the file (None when unknown)."""

    path: str
    shredded_as: str
    typed_values: int | None
    residual_values: int | None
    row_groups_with_residuals: int
    min: Any = None
    max: Any = None


@dataclasses.dataclass(frozen=True)
class ColumnReport:
    """One variant column of a file."""

    column: str
    recognised_by: str
    paths: tuple[PathReport, ...]


@dataclasses.dataclass(frozen=True)
class FileReport:
    """A file's rows, row groups and variant columns."""

    path: str
    rows: int
    row_groups: int
    columns: tuple[ColumnReport, ...]


def _shredded_as(level: ValueLayout) -> str:
    typed = level.typed_value
    if typed is None:
        return "not shredded"
    if isinstance(typed, ObjectLayout):
        return "object"
    if isinstance(typed, ArrayLayout):
        return "array"
    name = _PRIMITIVE_NAMES.get(typed.variant_type.value, typed.variant_type.value)
    if name == "decimal" and typed.precision is not None:
        return f"decimal({typed.precision},{typed.scale})"
    return name


def _levels(layout: VariantLayout) -> Iterator[tuple[str, ValueLayout]]:
    # Depth first, in schema order: a field's own fields come right after it.
    todo: list[tuple[tuple[str | int, ...], bool, ValueLayout]] = [((), False, layout)]
    while todo:
        segments, in_array, level = todo.pop()
        text = VariantPath(tuple(s for s in segments if s != -1)).to_spark()
        yield (text if not in_array else _array_path(segments)), level
        typed = level.typed_value
        if isinstance(typed, ObjectLayout):
            todo.extend(((*segments, f.name), in_array, f) for f in reversed(typed.fields))
        elif isinstance(typed, ArrayLayout):
            todo.append(((*segments, -1), True, typed.element))


def _array_path(segments: tuple[str | int, ...]) -> str:
    text = "$"
    for seg in segments:
        if seg == -1:
            text += "[*]"
        else:
            text += VariantPath((str(seg),)).to_spark()[1:]
    return text


def _count(stats: FileStatistics, column: str | None) -> tuple[int | None, int]:
    """Non-null values of a leaf over the file, and the row groups holding any; (None, 0) when
    some row group has no statistics for it."""
    if column is None:
        return None, 0
    total = groups = 0
    for rg in stats.row_groups:
        found = rg.column(column)
        if found is None:
            return None, 0
        total += found.non_null_count
        groups += 1 if found.non_null_count else 0
    return total, groups


def _report(info: FileInfo, name: str, layout: VariantLayout) -> ColumnReport:
    stats = info.statistics
    paths = []
    for path, level in _levels(layout):
        residual, groups = _count(stats, level.value)
        if level.value is None:
            residual = None
        typed_values = low = high = None
        if isinstance(level.typed_value, PrimitiveLayout):
            typed_values, _ = _count(stats, level.typed_value.path)
            merged = stats.merged.column(level.typed_value.path)
            if merged is not None and merged.has_min_max:
                low, high = merged.min, merged.max
        paths.append(PathReport(path, _shredded_as(level), typed_values, residual, groups, low, high))
    how = "draft layout" if layout.draft else ("VARIANT annotation" if layout.annotated else "structure")
    return ColumnReport(name, how, tuple(paths))


def inspect_file(path: str | Path, *, catalog: Catalog | None = None) -> FileReport:
    """The report of one Parquet file, from its footer.

    Raises:
        VpushError: a file that cannot be read or whose variant layout breaks the spec, named.
    """
    info = (catalog or Catalog()).file_info(str(path))
    columns = tuple(_report(info, name, layout) for name, layout in sorted(info.variant_columns.items()))
    return FileReport(info.path, info.num_rows, info.num_row_groups, columns)


_ROW_GROUP_SCHEMA = pa.schema(
    [
        ("file", pa.string()),
        ("row_group", pa.int32()),
        ("rows", pa.int64()),
        ("column", pa.string()),
        ("path", pa.string()),
        ("shredded_as", pa.string()),
        ("typed", pa.int64()),
        ("residual", pa.int64()),
        ("min", pa.string()),
        ("max", pa.string()),
    ]
)


def inspect(location: str | Path) -> pa.Table:
    """How the variant columns of a folder, file or glob of Parquet files are shredded, per file,
    row group and shredded path, from the footers alone: one row per (file, row group, column,
    path) with the values in ``typed_value`` and in the residual ``value`` there (null where the
    level has no such column, or the footer has no statistics), and the typed bounds as text.

    Row groups whose ``residual`` is 0 for a path are the ones where vpush trusts the path's
    ``typed_value`` bounds to skip them.

    Example:
        >>> import tempfile, pyarrow as pa
        >>> from vpush.codec.builder import encode
        >>> from vpush.codec.shred import write_shredded_parquet
        >>> rows = [encode({"a": i}) for i in range(3)] + [encode({"a": "x"})]
        >>> v = pa.StructArray.from_arrays([pa.array([m for m, _ in rows]), pa.array([x for _, x in rows])],
        ...                                ["metadata", "value"])
        >>> with tempfile.TemporaryDirectory() as folder:
        ...     write_shredded_parquet(pa.table({"v": v}), folder + "/t.parquet", {"v": "struct<a: bigint>"})
        ...     table = inspect(folder)
        >>> table.select(["path", "typed", "residual", "min", "max"]).to_pylist()[1]
        {'path': '$.a', 'typed': 3, 'residual': 1, 'min': '0', 'max': '2'}
    """
    from vpush.optimizer.catalog import list_files

    catalog = Catalog()
    rows: list[dict[str, Any]] = []
    for file in list_files(str(location)):
        info = catalog.file_info(file)
        stats = info.statistics
        for name, layout in sorted(info.variant_columns.items()):
            levels = list(_levels(layout))
            for index, rg in enumerate(stats.row_groups):
                for path, level in levels:
                    residual = rg.column(level.value) if level.value is not None else None
                    typed = None
                    if isinstance(level.typed_value, PrimitiveLayout):
                        typed = rg.column(level.typed_value.path)
                    rows.append(
                        {
                            "file": info.path,
                            "row_group": index,
                            "rows": info.metadata.row_group(index).num_rows,
                            "column": name,
                            "path": path,
                            "shredded_as": _shredded_as(level),
                            "typed": None if typed is None else typed.non_null_count,
                            "residual": None if residual is None else residual.non_null_count,
                            "min": None if typed is None or not typed.has_min_max else str(typed.min),
                            "max": None if typed is None or not typed.has_min_max else str(typed.max),
                        }
                    )
    return pa.Table.from_pylist(rows, schema=_ROW_GROUP_SCHEMA)
