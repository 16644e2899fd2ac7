"""Write a Delta table (create, then append) whose variant columns are shredded Parquet, with
the Variant statistics of each file in its ``add`` action.

Each call writes one Parquet file into the table folder (variant columns shredded by
:func:`vpush.codec.shred.shred` and annotated ``VARIANT`` by
:func:`vpush.codec.write_variant_parquet.write_variant_parquet`), takes its statistics from its
footer as Delta Spark does (:mod:`vpush.optimizer.collect_delta_statistics`: a path's bounds only
where its ``value`` column is all-null), and commits it put-if-absent
(:mod:`vpush.commit_delta`). A table with variant columns gets reader version 3 and
writer version 7 with the ``variantType`` and ``variantShredding`` features, and
``delta.enableVariantShredding`` set to whether a shredding was given at creation; an append
shreds only when the table's property is ``true`` and its protocol lists ``variantShredding``
(the RFC's writer requirement). An append that loses the race for a version tries the next one
(a blind append conflicts with nothing); a create commits version 0 or loses, removing its file
and raising. An append refuses a table whose writer protocol asks for more than adding files
(:data:`SUPPORTED_WRITER_FEATURES`; an invariant, CHECK constraint, generated or identity column
in use), as the protocol requires of a writer.
"""
from __future__ import annotations

import json
import os
import uuid
from collections.abc import Mapping
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from vpush.codec.metadata import EMPTY_METADATA_BYTES
from vpush.codec.shred import shred
from vpush.codec.write_variant_parquet import write_variant_parquet
from vpush.optimizer.catalog import Catalog
from vpush.commit_delta import ConcurrentCommitError, add_action, commit_delta, next_version
from vpush.optimizer.delta_log import DeltaSnapshot, read_delta_log
from vpush.optimizer.errors import CatalogError

__all__ = ["ENABLE_VARIANT_SHREDDING", "write_delta"]

ENABLE_VARIANT_SHREDDING = "delta.enableVariantShredding"
VARIANT_FEATURES = ["variantType", "variantShredding"]
MAX_APPEND_ATTEMPTS = 20
VARIANT_NULL_BYTES = b"\x00"
MAX_WRITER_VERSION = 7
SUPPORTED_WRITER_FEATURES = frozenset(
    {
        "appendOnly",  # vpush only appends
        "changeDataFeed",  # an append of new files is its own change data
        "invariants",
        "checkConstraints",
        "generatedColumns",  # these three are refused below when a column or property uses them
        "timestampNtz",
        "vacuumProtocolCheck",
        "variantType",
        "variantType-preview",
        "variantShredding",
        "variantShredding-preview",
    }
)
"""Writer features a blind append honours; any other makes :func:`write_delta` refuse."""
_IN_USE_MARKS = (
    ("delta.invariants", "invariants"),
    ("delta.generationExpression", "generatedColumns"),
    ("delta.identity.start", "identityColumns"),
)
_DELTA_TYPES = {
    pa.int8(): "byte",
    pa.int16(): "short",
    pa.int32(): "integer",
    pa.int64(): "long",
    pa.float32(): "float",
    pa.float64(): "double",
    pa.bool_(): "boolean",
    pa.string(): "string",
    pa.large_string(): "string",
    pa.binary(): "binary",
    pa.date32(): "date",
    pa.timestamp("us", tz="UTC"): "timestamp",
    pa.timestamp("us"): "timestamp_ntz",
}


def _is_variant(arrow_type: pa.DataType) -> bool:
    return (
        pa.types.is_struct(arrow_type)
        and sorted(arrow_type.field(i).name for i in range(arrow_type.num_fields)) == ["metadata", "value"]
    )


def _delta_type(name: str, arrow_type: pa.DataType) -> Any:
    if _is_variant(arrow_type):
        return "variant"
    if pa.types.is_decimal(arrow_type):
        return f"decimal({arrow_type.precision},{arrow_type.scale})"
    found = _DELTA_TYPES.get(arrow_type)
    if found is None:
        raise CatalogError(f"column {name} is {arrow_type}, which vpush does not write to Delta tables")
    return found


def _schema(data: pa.Schema) -> dict[str, Any]:
    return {
        "type": "struct",
        "fields": [
            {"name": f.name, "type": _delta_type(f.name, f.type), "nullable": f.nullable, "metadata": {}}
            for f in data
        ],
    }


def _field_metadata_keys(delta_type: Any) -> set[str]:
    """The metadata keys of every field in a Delta type, nested ones included."""
    keys: set[str] = set()
    if isinstance(delta_type, dict):
        for f in delta_type.get("fields", ()):
            keys |= {str(k) for k in f.get("metadata") or {}} | _field_metadata_keys(f.get("type"))
        for child in ("elementType", "keyType", "valueType"):
            keys |= _field_metadata_keys(delta_type.get(child))
    return keys


def _check_writable(snapshot: DeltaSnapshot) -> None:
    """Refuse a table whose writer protocol asks for more than a blind append of files.

    The protocol forbids a writer to commit to a table with a writer feature it does not
    support. Some features only bind when in use (an invariant, a CHECK constraint, a generated
    or identity column), whose values vpush would neither check nor compute: those are refused
    by their schema metadata or table property, whatever the protocol's version.
    """
    unsupported = sorted(set(snapshot.writer_features) - SUPPORTED_WRITER_FEATURES)
    if snapshot.min_writer_version > MAX_WRITER_VERSION:
        unsupported.append(f"writer version {snapshot.min_writer_version}")
    in_use = _field_metadata_keys(snapshot.schema)
    unsupported += [name for key, name in _IN_USE_MARKS if key in in_use]
    if any(k.startswith("delta.constraints.") for k in snapshot.configuration):
        unsupported.append("checkConstraints")
    if unsupported:
        raise CatalogError(
            f"vpush cannot append to this Delta table: it needs {', '.join(sorted(set(unsupported)))}",
            file=snapshot.location,
        )


def _unshredded(column: pa.ChunkedArray) -> pa.StructArray:
    """A variant column as the spec stores it unshredded: ``metadata`` and ``value`` required
    (a null row's slots get empty metadata and a variant null, which no reader looks at)."""
    array = column.combine_chunks()
    metadata = pc.fill_null(array.field("metadata"), pa.scalar(EMPTY_METADATA_BYTES, pa.binary()))
    value = pc.fill_null(array.field("value"), pa.scalar(VARIANT_NULL_BYTES, pa.binary()))
    fields = [pa.field("metadata", pa.binary(), nullable=False), pa.field("value", pa.binary(), nullable=False)]
    return pa.StructArray.from_arrays([metadata, value], fields=fields, mask=array.is_null())


def _changed(root: str, schema: Mapping[str, Any], enabled: bool) -> bool:
    """Whether a commit that won the race changed what this append was written for: the schema,
    or whether it may shred (then the append must not be retried as it is)."""
    snapshot = read_delta_log(root)
    _check_writable(snapshot)
    now = snapshot.configuration.get(ENABLE_VARIANT_SHREDDING) == "true" and "variantShredding" in snapshot.reader_features
    names = [str(f["name"]).lower() for f in snapshot.schema.get("fields", ())]
    return names != [str(f["name"]).lower() for f in schema["fields"]] or (enabled and not now)


def write_delta(
    location: str | os.PathLike[str],
    data: pa.Table,
    *,
    shredding: Mapping[str, pa.DataType | str] | None = None,
    mode: str = "append",
    row_group_size: int | None = None,
) -> int:
    """Create the Delta table at ``location`` from ``data``, or append ``data`` to it.

    Example:
        >>> import tempfile, pyarrow as pa
        >>> from vpush.codec.builder import encode
        >>> rows = [encode({"a": i}) for i in range(3)]
        >>> v = pa.array([{"metadata": m, "value": x} for m, x in rows],
        ...              pa.struct([("metadata", pa.binary()), ("value", pa.binary())]))
        >>> folder = tempfile.mkdtemp()
        >>> write_delta(folder, pa.table({"id": [0, 1, 2], "v": v}), shredding={"v": "struct<a: bigint>"})
        0
        >>> import vpush
        >>> con = vpush.connect(time_zone="UTC"); _ = con.register("t", folder)
        >>> con.sql("SELECT sum(v:a::int) AS s FROM t").to_arrow().column("s").to_pylist()
        [3]

    Args:
        location: the table folder (created when missing).
        data: the rows; a variant column is ``struct<metadata: binary, value: binary>``.
        shredding: per variant column, its shredding schema (``typed_value``'s type, an Arrow
            type or its text such as ``"struct<a: bigint>"``); honoured only while the table's
            ``delta.enableVariantShredding`` is ``true``.
        mode: ``"append"`` (creates the table when there is none) or ``"create"`` (the table
            must not exist yet).
        row_group_size: rows per row group of the written file.

    Returns:
        The version committed.

    Raises:
        CatalogError: an unknown mode, a table that exists for ``"create"``, columns other than
            the table's, or a type vpush does not write; ``ConcurrentCommitError`` when another
            writer created the table first.
    """
    if mode not in ("append", "create"):
        raise CatalogError(f"unknown mode {mode!r}: use 'append' or 'create'")
    root = os.fspath(location)
    schema = _schema(data.schema)
    variants = [f["name"] for f in schema["fields"] if f["type"] == "variant"]
    creating = next_version(root) == 0
    if not creating and mode == "create":
        raise CatalogError("the Delta table exists already", file=root)
    actions: list[dict[str, Any]] = []
    if creating:
        enabled = bool(shredding) and bool(variants)
        configuration = {ENABLE_VARIANT_SHREDDING: "true" if enabled else "false"} if variants else {}
        if variants:
            protocol = {"minReaderVersion": 3, "minWriterVersion": 7, "readerFeatures": VARIANT_FEATURES,
                        "writerFeatures": VARIANT_FEATURES}
        else:
            protocol = {"minReaderVersion": 1, "minWriterVersion": 2}
        actions += [
            {"protocol": protocol},
            {"metaData": {"id": str(uuid.uuid4()), "format": {"provider": "parquet", "options": {}},
                          "schemaString": json.dumps(schema), "partitionColumns": [],
                          "configuration": configuration, "createdTime": 0}},
        ]
    else:
        snapshot = read_delta_log(root)
        _check_writable(snapshot)
        table_names = [str(f["name"]).lower() for f in snapshot.schema.get("fields", ())]
        if [f["name"].lower() for f in schema["fields"]] != table_names:
            raise CatalogError(f"the data's columns differ from the table's ({', '.join(table_names)})", file=root)
        if snapshot.partition_columns:
            raise CatalogError("vpush does not append to partitioned Delta tables yet", file=root)
        writer_features = snapshot.reader_features  # reader features are writer features too
        enabled = snapshot.configuration.get(ENABLE_VARIANT_SHREDDING) == "true" and "variantShredding" in writer_features
    columns = []
    for name in data.column_names:
        column = data.column(name)
        typed = (shredding or {}).get(name)
        if name in variants and enabled and typed is not None:
            column = shred(column, typed)
        elif name in variants:
            column = _unshredded(column)
        columns.append(column)
    shaped = pa.table(columns, names=data.column_names)
    os.makedirs(root, exist_ok=True)
    path = os.path.join(root, f"part-{uuid.uuid4().hex}.parquet")
    options: dict[str, Any] = {"row_group_size": row_group_size} if row_group_size else {}
    write_variant_parquet(shaped, path, variants, **options)
    actions.append(add_action(root, Catalog().file_info(path), schema))
    # A create commits version 0 or loses: a later version would replace the winner's metaData.
    version = 0 if creating else next_version(root)
    try:
        for _ in range(MAX_APPEND_ATTEMPTS):
            try:
                commit_delta(root, version, actions)
                return version
            except ConcurrentCommitError:
                if creating or _changed(root, schema, enabled):
                    raise
                version = next_version(root)
        raise CatalogError(f"gave up appending after {MAX_APPEND_ATTEMPTS} lost commits", file=root)
    except BaseException:
        os.remove(path)  # no commit refers to it: leave the table as the winners made it
        raise
