"""The catalog: registered tables, their files, and each file's footer (read once, cached).

A table is a folder, a file or a glob of Parquet files, or a Delta table (a folder holding a
``_delta_log``: its latest snapshot's live files, see :mod:`vpush.optimizer.delta_log`). Within a
plain folder, Spark's rules apply:
files and folders whose names start with ``_`` or ``.`` are not data (``_SUCCESS``,
``_delta_log``, ``.crc`` files). Each file's footer is read once and cached by path, size and
modification time; with it, the layout of each variant column, since files of one table may be
shredded differently.
"""
from __future__ import annotations

import dataclasses
import functools
import glob
import os
import threading
from collections.abc import Mapping

import pyarrow as pa
import pyarrow.parquet as pq

from vpush.codec.errors import VpushError
from vpush.codec.layout import VariantLayout, find_variant_columns
from vpush.optimizer.delta_log import DeltaSnapshot, is_delta_table, read_delta_log
from vpush.optimizer.delta_table import delta_partitioning
from vpush.optimizer.errors import CatalogError
from vpush.optimizer.partitions import Partitioning, discover_partitions
from vpush.optimizer.statistics import FileStatistics, file_statistics

_GLOB_CHARS = frozenset("*?[")


_KINDS: dict[object, int] = {}
_KINDS_LOCK = threading.Lock()


@dataclasses.dataclass(frozen=True)
class FileInfo:
    """What vpush knows of one Parquet file from its footer."""

    path: str
    size: int
    mtime_ns: int
    metadata: pq.FileMetaData
    arrow_schema: pa.Schema
    variant_columns: Mapping[str, VariantLayout]

    @functools.cached_property
    def int96_columns(self) -> frozenset[str]:
        """The top-level columns stored as INT96 or holding INT96 fields (lower-cased), which
        Spark reads as timestamps."""
        return frozenset(top.lower() for top, _ in _int96_paths(self.metadata, self.arrow_schema))

    @property
    def num_rows(self) -> int:
        """Rows in the file."""
        return int(self.metadata.num_rows)

    @property
    def num_row_groups(self) -> int:
        """Row groups in the file."""
        return int(self.metadata.num_row_groups)

    @functools.cached_property
    def value_columns(self) -> tuple[str, ...]:
        """The Parquet paths of the ``value`` columns of every variant column, sorted."""
        return tuple(
            sorted(c for layout in self.variant_columns.values() for c in layout.columns() if c.endswith(".value"))
        )

    @functools.cached_property
    def all_null_row_groups(self) -> tuple[frozenset[int], ...]:
        """Per column of :attr:`value_columns`, the row groups whose statistics show it holds no
        value (:attr:`~vpush.optimizer.statistics.ColumnStatistics.holds_no_value`)."""
        stats = self.statistics.row_groups
        out = []
        for path in self.value_columns:
            columns = [rg.column(path) for rg in stats]
            out.append(frozenset(i for i, c in enumerate(columns) if c is not None and c.holds_no_value))
        return tuple(out)

    @functools.cached_property
    def kind(self) -> int:
        """A number that files alike in Arrow schema, variant layouts and which ``value`` columns
        are all-null in every row group share: planning builds what depends on these once per
        kind of file (computed once per footer, as comparing layouts is not cheap)."""
        every = tuple(len(groups) == self.num_row_groups for groups in self.all_null_row_groups)
        key = (self.arrow_schema, tuple(sorted(self.variant_columns.items())), every)
        with _KINDS_LOCK:
            return _KINDS.setdefault(key, len(_KINDS))

    @functools.cached_property
    def statistics(self) -> FileStatistics:
        """The footer's statistics per row group and leaf column, typed; computed on first use
        and kept with the cached footer."""
        return file_statistics(self.metadata)


@dataclasses.dataclass(frozen=True)
class Table:
    """A registered table: its name, where it was registered from, and its files."""

    name: str
    location: str
    files: tuple[str, ...]
    partitioning: Partitioning = dataclasses.field(default_factory=Partitioning)
    delta: DeltaSnapshot | None = None
    """The Delta snapshot the files come from, or None for a plain folder, file or glob."""


def _is_hidden(name: str) -> bool:
    return name.startswith("_") or name.startswith(".")


def list_files(location: str) -> list[str]:
    """The Parquet data files of a folder (recursively), a file, or a glob, sorted by path.

    Raises:
        CatalogError: nothing is there, or nothing readable.

    Example:
        >>> list_files("/no/such/place")
        Traceback (most recent call last):
        ...
        vpush.optimizer.errors.CatalogError: no such file or folder (file /no/such/place)
    """
    location = os.fspath(location)
    if any(c in location for c in _GLOB_CHARS):
        candidates = [p for p in glob.glob(location, recursive=True) if os.path.isfile(p)]
        files = sorted(p for p in candidates if not _is_hidden(os.path.basename(p)))
        if not files:
            raise CatalogError("the glob matches no files", file=location)
        return files
    if os.path.isfile(location):
        return [location]
    if not os.path.isdir(location):
        raise CatalogError("no such file or folder", file=location)
    files = []
    for root, dirs, names in os.walk(location):
        dirs[:] = sorted(d for d in dirs if not _is_hidden(d))
        files.extend(os.path.join(root, n) for n in names if not _is_hidden(n))
    if not files:
        raise CatalogError("the folder holds no data files", file=location)
    return sorted(files)


class Catalog:
    """Registered tables and a cache of file footers.

    Example:
        >>> Catalog().tables
        {}
    """

    def __init__(self) -> None:
        self.tables: dict[str, Table] = {}
        self._footers: dict[str, tuple[tuple[int, int, int, int], FileInfo]] = {}
        self._lock = threading.Lock()

    def register(self, name: str, location: str | os.PathLike[str]) -> Table:
        """Register (or replace) table ``name`` over a folder, file or glob of Parquet files.

        Every file's footer is read now, so a bad file fails at registration with its name. A
        folder's ``key=value`` subfolders are its partition columns, as Spark infers them.

        A Delta table's snapshot is read now, but no footer: planning opens only the footers of
        the files its log statistics cannot rule out.
        """
        loc = os.fspath(location)
        if is_delta_table(loc):
            snapshot = read_delta_log(loc)
            table = Table(
                name=name,
                location=loc,
                files=tuple(f.path for f in snapshot.files),
                partitioning=delta_partitioning(snapshot),
                delta=snapshot,
            )
            self.tables[name.lower()] = table
            return table
        files = tuple(list_files(loc))
        for f in files:
            self.file_info(f)
        partitioning = discover_partitions(loc, files) if os.path.isdir(loc) else Partitioning()
        table = Table(name=name, location=loc, files=files, partitioning=partitioning)
        self.tables[name.lower()] = table
        return table

    def table(self, name: str) -> Table | None:
        """The table registered as ``name`` (case-insensitive, as Spark's identifiers), or None."""
        return self.tables.get(name.lower())

    def unchanged(self, table: Table) -> bool:
        """Whether ``table`` is still the one registered under its name, and each of its files
        still the one whose footer is cached (for a Delta table: the same snapshot)."""
        if self.tables.get(table.name.lower()) is not table:
            return False
        if table.delta is not None:
            return True
        for path in table.files:
            try:
                if self._cached(path, os.stat(path)) is None:
                    return False
            except OSError:
                return False
        return True

    def _cached(self, path: str, st: os.stat_result) -> FileInfo | None:
        """The cached footer of ``path`` if the file is still the one it was read from."""
        with self._lock:
            hit = self._footers.get(path)
        return hit[1] if hit is not None and hit[0] == _stat_key(st) else None

    def file_info(self, path: str) -> FileInfo:
        """The footer of ``path``, from the cache while its size and modification time hold."""
        try:
            st = os.stat(path)
        except OSError as exc:
            raise CatalogError(f"cannot read the file: {exc.strerror}", file=path) from exc
        cached = self._cached(path, st)
        if cached is not None:
            return cached
        info = _read_footer(path, st.st_size, st.st_mtime_ns)
        with self._lock:
            self._footers[path] = (_stat_key(st), info)
        return info


def _stat_key(st: os.stat_result) -> tuple[int, int, int, int]:
    """What identifies a file's contents for the footer cache: its size and modification time,
    and its change time and inode too, since a file rewritten in place with the same size within
    the modification time's granularity must not reuse a stale footer."""
    return (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)


def _read_footer(path: str, size: int, mtime_ns: int) -> FileInfo:
    try:
        pf = pq.ParquetFile(path)
    except (OSError, pa.ArrowException) as exc:
        raise CatalogError(f"not a readable Parquet file: {exc}", file=path) from exc
    with pf:
        try:
            metadata = pf.metadata
            arrow_schema = pf.schema_arrow
            layouts = find_variant_columns(pf, file=path)
        except (OSError, pa.ArrowException) as exc:
            raise CatalogError(f"not a readable Parquet file: {exc}", file=path) from exc
        except VpushError as exc:
            raise exc.with_context(file=path)
    return FileInfo(
        path=path,
        size=size,
        mtime_ns=mtime_ns,
        metadata=metadata,
        arrow_schema=_as_spark_reads(arrow_schema, metadata),
        variant_columns=layouts,
    )


INT96_ARROW_TYPE = pa.timestamp("us", tz="UTC")
"""How Spark reads an INT96 column: a ``timestamp``, an instant in microseconds."""


def _as_spark_reads(arrow_schema: pa.Schema, metadata: pq.FileMetaData) -> pa.Schema:
    """The file's Arrow schema with its INT96 columns, top-level or inside structs, lists and
    maps (Spark writes a struct's timestamps so by default), typed as Spark reads them
    (:data:`INT96_ARROW_TYPE`; pyarrow reads a timestamp without a zone in nanoseconds)."""
    int96 = _int96_paths(metadata, arrow_schema)
    if not int96:
        return arrow_schema
    fields = list(arrow_schema)
    for top, rest in int96:
        at = arrow_schema.get_field_index(top)
        if at >= 0:
            fields[at] = fields[at].with_type(_int96_typed(fields[at].type, rest))
    return pa.schema(fields, metadata=arrow_schema.metadata)


def _int96_paths(metadata: pq.FileMetaData, arrow_schema: pa.Schema) -> list[tuple[str, list[str]]]:
    """The file's INT96 columns, each as its top-level column and the steps below it. The top
    is found by the column's place among the leaves (Parquet's columns are the Arrow schema's
    leaves in order), not by splitting the dotted path: a column may be named ``a.b`` beside a
    struct ``a`` with a field ``b``, and both paths print ``a.b``."""
    schema = metadata.schema
    tops = [field.name for field in arrow_schema for _ in range(_leaves(field.type))]
    found = []
    for i in range(len(schema)):
        if schema.column(i).physical_type != "INT96":
            continue
        path = schema.column(i).path
        top = tops[i] if len(tops) == len(schema) else path.split(".")[0]
        rest = path[len(top) + 1:]
        found.append((top, rest.split(".") if rest else []))
    return found


def _leaves(arrow_type: pa.DataType) -> int:
    """The Parquet columns (leaves) a column of ``arrow_type`` is stored as."""
    if isinstance(arrow_type, pa.ExtensionType):
        return _leaves(arrow_type.storage_type)
    if pa.types.is_struct(arrow_type):
        return sum(_leaves(arrow_type.field(k).type) for k in range(arrow_type.num_fields))
    if pa.types.is_map(arrow_type):
        return _leaves(arrow_type.key_type) + _leaves(arrow_type.item_type)
    if pa.types.is_list(arrow_type) or pa.types.is_large_list(arrow_type) or pa.types.is_fixed_size_list(arrow_type):
        return _leaves(arrow_type.value_type)
    return 1


def _int96_typed(arrow_type: pa.DataType, path: list[str]) -> pa.DataType:
    """``arrow_type`` with the INT96 leaf at Parquet column ``path`` (the steps below it: a
    struct's field names, a list's repeated group and element, a map's ``key_value`` and key or
    value) typed :data:`INT96_ARROW_TYPE`; unchanged where the path does not lead to a timestamp."""
    if not path:
        return INT96_ARROW_TYPE if pa.types.is_timestamp(arrow_type) else arrow_type
    if pa.types.is_struct(arrow_type):
        children = [arrow_type.field(i) for i in range(arrow_type.num_fields)]
        return pa.struct([f.with_type(_int96_typed(f.type, path[1:])) if f.name == path[0] else f for f in children])
    if pa.types.is_map(arrow_type):
        key, item = arrow_type.key_field, arrow_type.item_field
        if len(path) >= 2 and path[1] == "key":
            key = key.with_type(_int96_typed(key.type, path[2:]))
        elif len(path) >= 2 and path[1] == "value":
            item = item.with_type(_int96_typed(item.type, path[2:]))
        return pa.map_(key, item, keys_sorted=arrow_type.keys_sorted)
    if pa.types.is_list(arrow_type) or pa.types.is_large_list(arrow_type):
        element = arrow_type.value_field
        rest = path[2:] if len(path) >= 2 and path[1] == element.name else path[1:]  # three levels, or the legacy two
        typed = element.with_type(_int96_typed(element.type, rest))
        return pa.large_list(typed) if pa.types.is_large_list(arrow_type) else pa.list_(typed)
    return arrow_type
