"""Delta tables built by hand for tests: commits and classic checkpoints written as the Delta
protocol describes them, around Parquet files from the project's writers (DuckDB, Spark, vpush).

Delta Spark cannot run here (no Maven), so the tests write the log themselves: JSON commits of
``protocol`` / ``metaData`` / ``add`` / ``remove`` actions, and checkpoints as one Parquet file
whose rows each hold one action. ``add`` statistics come from vpush's
:func:`~vpush.optimizer.collect_delta_statistics.collect_delta_statistics` (Delta Spark's rules).
"""
from __future__ import annotations

import json
import os
import urllib.parse
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from vpush.optimizer.catalog import Catalog
from vpush.optimizer.collect_delta_statistics import collect_delta_statistics
from vpush.optimizer.delta_log import read_delta_log

VARIANT_FEATURES = ("variantType", "variantShredding")


def field(name: str, delta_type: Any) -> dict[str, Any]:
    """One field of a Delta schema."""
    return {"name": name, "type": delta_type, "nullable": True, "metadata": {}}


def protocol(reader_features: Sequence[str] = VARIANT_FEATURES, writer_features: Sequence[str] = ()) -> dict[str, Any]:
    """A reader-3 / writer-7 protocol action with these features (writer features include the
    reader ones, as the protocol requires)."""
    writers = sorted({*reader_features, *writer_features})
    return {"protocol": {"minReaderVersion": 3, "minWriterVersion": 7, "readerFeatures": list(reader_features),
                         "writerFeatures": writers}}


def metadata(fields: Sequence[dict[str, Any]], partition_columns: Sequence[str] = (),
             configuration: Mapping[str, str] | None = None) -> dict[str, Any]:
    """A metaData action."""
    schema = {"type": "struct", "fields": list(fields)}
    return {"metaData": {"id": "00000000-0000-0000-0000-000000000000", "format": {"provider": "parquet", "options": {}},
                         "schemaString": json.dumps(schema), "partitionColumns": list(partition_columns),
                         "configuration": dict(configuration or {}), "createdTime": 0}}


class DeltaLog:
    """Commits to the table at ``root``, one version after another."""

    def __init__(self, root: Path) -> None:
        self.root = root
        (root / "_delta_log").mkdir(parents=True, exist_ok=True)
        self.version = -1
        self.schema: dict[str, Any] = {}

    def commit(self, *actions: dict[str, Any]) -> int:
        self.version += 1
        for action in actions:
            if "metaData" in action:
                self.schema = json.loads(action["metaData"]["schemaString"])
        text = "\n".join(json.dumps(a) for a in [{"commitInfo": {"operation": "TEST"}}, *actions]) + "\n"
        (self.root / "_delta_log" / f"{self.version:020d}.json").write_text(text)
        return self.version

    def uri(self, file: Path) -> str:
        """The file's path relative to the table, URI-encoded as Delta writes it."""
        return urllib.parse.quote(os.path.relpath(file, self.root).replace(os.sep, "/"))

    def add(self, file: Path, partition_values: Mapping[str, str | None] | None = None,
            stats: str | None | bool = True) -> dict[str, Any]:
        """An add action for ``file`` (under the table folder), with footer statistics by default."""
        if stats is True:
            stats = collect_delta_statistics(Catalog().file_info(str(file)), self.schema)
        return {"add": {"path": self.uri(file), "partitionValues": dict(partition_values or {}),
                        "size": file.stat().st_size, "modificationTime": 0, "dataChange": True,
                        "stats": stats if isinstance(stats, str) else None}}

    def remove(self, file: Path) -> dict[str, Any]:
        return {"remove": {"path": self.uri(file), "deletionTimestamp": 0, "dataChange": True}}

    def checkpoint(self) -> None:
        """A classic checkpoint of the current version, and ``_last_checkpoint`` naming it."""
        snapshot = read_delta_log(self.root)
        log = self.root / "_delta_log"
        commit_lines = [json.loads(line) for v in range(self.version + 1)
                        for line in (log / f"{v:020d}.json").read_text().splitlines()]
        last_protocol = [a for a in commit_lines if "protocol" in a][-1]["protocol"]
        last_metadata = [a for a in commit_lines if "metaData" in a][-1]["metaData"]
        string_map = pa.map_(pa.string(), pa.string())
        add_type = pa.struct([("path", pa.string()), ("partitionValues", string_map), ("size", pa.int64()),
                              ("modificationTime", pa.int64()), ("dataChange", pa.bool_()), ("stats", pa.string())])
        protocol_type = pa.struct([("minReaderVersion", pa.int32()), ("minWriterVersion", pa.int32()),
                                   ("readerFeatures", pa.list_(pa.string())), ("writerFeatures", pa.list_(pa.string()))])
        metadata_type = pa.struct([("id", pa.string()), ("schemaString", pa.string()),
                                   ("partitionColumns", pa.list_(pa.string())), ("configuration", string_map)])
        adds = [{"path": self.uri(Path(f.path)), "partitionValues": list(f.partition_values.items()), "size": f.size,
                 "modificationTime": 0, "dataChange": False, "stats": f.stats} for f in snapshot.files]
        rows = len(adds) + 2
        protocol_column = [last_protocol] + [None] * (rows - 1)
        metadata_column = [None, {**last_metadata, "configuration": list(last_metadata["configuration"].items())}]
        table = pa.table({
            "protocol": pa.array(protocol_column, protocol_type),
            "metaData": pa.array(metadata_column + [None] * (rows - 2), metadata_type),
            "add": pa.array([None, None, *adds], add_type),
        })
        pq.write_table(table, log / f"{self.version:020d}.checkpoint.parquet")
        (log / "_last_checkpoint").write_text(json.dumps({"version": self.version, "size": rows}))
