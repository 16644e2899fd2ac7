"""A Delta table's snapshot, replayed from its transaction log (``_delta_log``).

What is read, per the Delta protocol (PROTOCOL.md, "Delta Log Entries" and "Checkpoints"):

- ``_last_checkpoint`` (JSON; ``version`` and, for a multi-part checkpoint, ``parts``) names the
  latest classic checkpoint; without it, or when the files it names are missing, the newest
  complete classic checkpoint in the folder is used. A classic checkpoint is
  ``<version>.checkpoint.parquet``, or ``<version>.checkpoint.<part>.<parts>.parquet`` in parts;
  its rows each hold one action (``add``, ``remove``, ``metaData``, ``protocol``, ...).
- Then every JSON commit ``<version>.json`` after it, in order, with no gap; each line one action.
- ``add`` makes a file live, ``remove`` ends it (the file may stay on disk); both name the file by
  a URI relative to the table (``%20`` for a space, ``%25`` for ``%``) or by an absolute
  ``file:`` URI. The latest ``metaData`` and ``protocol`` win.

The protocol is checked as it stands at the snapshot's version, so a reader feature that a later
commit adds is refused too. vpush reads tables whose reader features are among
:data:`SUPPORTED_READER_FEATURES`; any other (``deletionVectors``, ``columnMapping``,
``v2Checkpoint``, ``typeWidening``, ...) changes what a file's rows mean, and is refused with
Delta's error class ``DELTA_UNSUPPORTED_FEATURES_FOR_READ``, naming it. Writer features do not
concern a reader.

Why vpush replays the log itself rather than through the ``deltalake`` package: it needs each
``add``'s ``stats`` text as written (deltalake's flattened listing drops the Variant min/max),
the protocol at the snapshot's version with its own refusal, and no footer opened while planning;
the replay is a few hundred lines over pyarrow (for checkpoints) and ``json``. The tests compare
its file lists with deltalake's.
"""
from __future__ import annotations

import dataclasses
import json
import os
import re
import urllib.parse
from collections.abc import Mapping, Sequence
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from vpush.optimizer.errors import CatalogError

__all__ = [
    "DELTA_LOG_FOLDER",
    "SUPPORTED_READER_FEATURES",
    "DeltaFile",
    "DeltaSnapshot",
    "is_delta_table",
    "read_delta_log",
]

DELTA_LOG_FOLDER = "_delta_log"
SUPPORTED_READER_FEATURES = frozenset(
    {
        "variantType",
        "variantType-preview",
        "variantShredding",
        "variantShredding-preview",
        # A `timestamp_ntz` column is read from the files as any other column.
        "timestampNtz",
        # Asks vacuum (a writer) to check the protocol; nothing for a reader to do.
        "vacuumProtocolCheck",
    }
)
"""The reader features whose tables vpush reads exactly."""
MAX_READER_VERSION = 3
UNSUPPORTED_ERROR_CLASS = "DELTA_UNSUPPORTED_FEATURES_FOR_READ"

_COMMIT = re.compile(r"^(\d{20})\.json$")
_CHECKPOINT = re.compile(r"^(\d{20})\.checkpoint\.parquet$")
_CHECKPOINT_PART = re.compile(r"^(\d{20})\.checkpoint\.(\d{10})\.(\d{10})\.parquet$")
_ACTIONS = ("add", "remove", "metaData", "protocol")


@dataclasses.dataclass(frozen=True)
class DeltaFile:
    """One live data file of a snapshot: its local path (decoded from the log's URI), size,
    partition values as the log serializes them (None for NULL), and its ``stats`` JSON text."""

    path: str
    size: int
    partition_values: Mapping[str, str | None]
    stats: str | None = None


@dataclasses.dataclass(frozen=True)
class DeltaSnapshot:
    """A table as of one version: protocol, schema, partition columns and live files."""

    location: str
    version: int
    min_reader_version: int
    reader_features: tuple[str, ...]
    schema: Mapping[str, Any]
    """The parsed ``schemaString``: ``{"type": "struct", "fields": [...]}``."""
    partition_columns: tuple[str, ...]
    configuration: Mapping[str, str]
    files: tuple[DeltaFile, ...]
    min_writer_version: int = 2
    writer_features: tuple[str, ...] = ()
    """What a writer must support to commit to the table (a reader does not look at them)."""


def is_delta_table(location: str) -> bool:
    """Whether ``location`` is a folder with a ``_delta_log`` folder in it.

    Example:
        >>> is_delta_table("/no/such/place")
        False
    """
    return os.path.isdir(location) and os.path.isdir(os.path.join(location, DELTA_LOG_FOLDER))


def _file_path(location: str, uri: str, log_file: str) -> str:
    """The local path of a file the log names by ``uri``."""
    parsed = urllib.parse.urlsplit(uri)
    if parsed.scheme in ("", "file") and not (parsed.scheme == "" and parsed.netloc):
        path = urllib.parse.unquote(parsed.path)
        if parsed.scheme == "file" or os.path.isabs(path):
            return os.path.normpath(path)
        return os.path.normpath(os.path.join(location, path))
    raise CatalogError(f"the log names a file vpush cannot open (scheme {parsed.scheme!r}): {uri}", file=log_file)


def _as_dict(value: Any) -> dict[str, Any]:
    """A map as a dict (a checkpoint's Parquet maps come back as lists of pairs)."""
    if value is None:
        return {}
    if isinstance(value, dict):
        return value
    return dict(value)


class _Replay:
    """The state of a log replay: the latest protocol and metaData, and the live files."""

    def __init__(self, location: str) -> None:
        self.location = location
        self.protocol: dict[str, Any] | None = None
        self.metadata: dict[str, Any] | None = None
        self.files: dict[str, DeltaFile] = {}

    def apply(self, action: Mapping[str, Any], log_file: str) -> None:
        add = action.get("add")
        if add is not None:
            path = _file_path(self.location, str(add["path"]), log_file)
            if add.get("deletionVector") is not None:
                raise CatalogError(
                    f"the file {path} has a deletion vector, which vpush does not apply",
                    file=log_file,
                    error_class=UNSUPPORTED_ERROR_CLASS,
                )
            values = _as_dict(add.get("partitionValues"))
            stats = add.get("stats")
            self.files[path] = DeltaFile(path, int(add.get("size") or 0), values, stats)
            return
        remove = action.get("remove")
        if remove is not None:
            self.files.pop(_file_path(self.location, str(remove["path"]), log_file), None)
            return
        if action.get("metaData") is not None:
            self.metadata = dict(action["metaData"])
        if action.get("protocol") is not None:
            self.protocol = dict(action["protocol"])


def _read_commit(path: str, replay: _Replay) -> None:
    try:
        with open(path, encoding="utf-8") as handle:
            lines = handle.read().splitlines()
    except OSError as exc:
        raise CatalogError(f"cannot read the commit: {exc.strerror}", file=path) from exc
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            action = json.loads(line)
        except ValueError as exc:
            raise CatalogError(f"line {number} of the commit is not JSON: {exc}", file=path) from exc
        if not isinstance(action, dict):
            raise CatalogError(f"line {number} of the commit is not a JSON object", file=path)
        replay.apply(action, path)


def _read_checkpoint(paths: Sequence[str], replay: _Replay) -> None:
    for path in paths:
        try:
            parquet = pq.ParquetFile(path)
            names = [n for n in _ACTIONS if n in parquet.schema_arrow.names]
            table = parquet.read(columns=names)
        except (OSError, pa.ArrowException) as exc:
            raise CatalogError(f"not a readable checkpoint: {exc}", file=path) from exc
        # Protocol and metaData first: they are one row each, whatever the row order.
        for name in ("protocol", "metaData"):
            if name in table.column_names:
                for value in table.column(name).drop_null().to_pylist():
                    replay.apply({name: value}, path)
        if "add" in table.column_names:
            for value in table.column("add").drop_null().to_pylist():
                replay.apply({"add": value}, path)


def _checkpoints(names: Sequence[str]) -> dict[int, list[str]]:
    """Complete classic checkpoints by version: their file names, in part order."""
    single: dict[int, list[str]] = {}
    parts: dict[tuple[int, int], dict[int, str]] = {}
    for name in names:
        match = _CHECKPOINT.match(name)
        if match:
            single[int(match.group(1))] = [name]
            continue
        match = _CHECKPOINT_PART.match(name)
        if match:
            version, part, count = (int(g) for g in match.groups())
            parts.setdefault((version, count), {})[part] = name
    for (version, count), found in parts.items():
        if sorted(found) == list(range(1, count + 1)) and version not in single:
            single[version] = [found[i] for i in range(1, count + 1)]
    return single


def _last_checkpoint(log: str) -> int | None:
    path = os.path.join(log, "_last_checkpoint")
    try:
        with open(path, encoding="utf-8") as handle:
            hint = json.load(handle)
        return int(hint["version"])
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError):
        return None  # a torn or odd hint: the listing finds the checkpoints anyway


def _check_protocol(protocol: Mapping[str, Any], configuration: Mapping[str, str], where: str) -> None:
    reader_version = int(protocol.get("minReaderVersion", 1))
    if reader_version > MAX_READER_VERSION:
        raise CatalogError(
            f"the table needs Delta reader version {reader_version}; vpush reads up to {MAX_READER_VERSION}",
            file=where,
            error_class=UNSUPPORTED_ERROR_CLASS,
        )
    if reader_version == MAX_READER_VERSION:
        features = [str(f) for f in protocol.get("readerFeatures") or ()]
        unsupported = sorted(set(features) - SUPPORTED_READER_FEATURES)
        if unsupported:
            raise CatalogError(
                f"the table requires the Delta reader feature(s) {', '.join(unsupported)}, which vpush "
                "does not support",
                file=where,
                error_class=UNSUPPORTED_ERROR_CLASS,
            )
    if configuration.get("delta.columnMapping.mode", "none") != "none":
        # Physical column names differ from the schema's, whatever the protocol lists (reader
        # version 2, the reader feature, or a malformed protocol naming it only among writer
        # features): reading the files by the schema's names would give NULLs.
        raise CatalogError(
            "the table requires the Delta reader feature(s) columnMapping, which vpush does not support",
            file=where,
            error_class=UNSUPPORTED_ERROR_CLASS,
        )


def read_delta_log(location: str | os.PathLike[str]) -> DeltaSnapshot:
    """The latest snapshot of the Delta table at ``location``.

    Example:
        >>> import tempfile
        >>> read_delta_log(tempfile.mkdtemp())
        Traceback (most recent call last):
        ...
        vpush.optimizer.errors.CatalogError: not a Delta table: no _delta_log folder (file ...)

    Raises:
        CatalogError: no log, a gap in the commits, a malformed action, a missing protocol or
            metaData, or a reader feature vpush does not support (error class
            ``DELTA_UNSUPPORTED_FEATURES_FOR_READ``).
    """
    location = os.path.abspath(os.fspath(location))
    log = os.path.join(location, DELTA_LOG_FOLDER)
    try:
        names = os.listdir(log)
    except OSError:
        raise CatalogError("not a Delta table: no _delta_log folder", file=location) from None
    commits = {int(m.group(1)): n for n in names if (m := _COMMIT.match(n))}
    checkpoints = _checkpoints(names)
    latest = max([*commits, *checkpoints], default=None)
    if latest is None:
        raise CatalogError("the Delta log holds no commit", file=log)
    hinted = _last_checkpoint(log)
    start = hinted if hinted is not None and hinted in checkpoints else max(checkpoints, default=None)
    replay = _Replay(location)
    first = 0
    if start is not None:
        _read_checkpoint([os.path.join(log, n) for n in checkpoints[start]], replay)
        first = start + 1
    for version in range(first, latest + 1):
        name = commits.get(version)
        if name is None:
            raise CatalogError(f"the Delta log is missing commit {version}", file=log)
        _read_commit(os.path.join(log, name), replay)
    where = os.path.join(log, commits.get(latest) or checkpoints[latest][0])
    if replay.protocol is None or replay.metadata is None:
        raise CatalogError("the Delta log has no protocol or no metaData action", file=where)
    configuration = {str(k): str(v) for k, v in _as_dict(replay.metadata.get("configuration")).items()}
    _check_protocol(replay.protocol, configuration, where)
    try:
        schema = json.loads(replay.metadata["schemaString"])
    except (KeyError, TypeError, ValueError) as exc:
        raise CatalogError(f"the table's schemaString is not JSON: {exc}", file=where) from exc
    return DeltaSnapshot(
        location=location,
        version=latest,
        min_reader_version=int(replay.protocol.get("minReaderVersion", 1)),
        reader_features=tuple(str(f) for f in replay.protocol.get("readerFeatures") or ()),
        schema=schema,
        partition_columns=tuple(str(c) for c in replay.metadata.get("partitionColumns") or ()),
        configuration=configuration,
        files=tuple(sorted(replay.files.values(), key=lambda f: f.path)),
        min_writer_version=int(replay.protocol.get("minWriterVersion", 2)),
        writer_features=tuple(str(f) for f in replay.protocol.get("writerFeatures") or ()),
    )
