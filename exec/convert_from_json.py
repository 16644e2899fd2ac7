"""The engine function of Spark's ``from_json`` on DuckDB (see
:mod:`vpush.optimizer.rewrite_from_json`): the compiled kernel's JSON text for each row."""

from __future__ import annotations

import functools

import pyarrow as pa

from vpush.codec.native import FromJsonNode, NativeUnsupportedError, from_json_native
from vpush.exec.errors import ExecutionError
from vpush.optimizer.rewrite_from_json import from_json_schema
from vpush.optimizer.variant_types import ArrayType, AtomicType, DecimalType, MapType, SparkType, StringType, StructType

MALFORMED_RECORD = "MALFORMED_RECORD_IN_PARSING.WITHOUT_SUGGESTION"


def convert_from_json(texts: pa.Array | pa.ChunkedArray, schema: str, mode: str) -> pa.Array | pa.ChunkedArray:
    """Spark's ``from_json(texts, schema)`` in ``mode`` (PERMISSIVE or FAILFAST), as JSON text
    DuckDB casts to the schema's type.

    Example:
        >>> convert_from_json(pa.array(['{"a": 1.0}', '{"a": 2}']), "struct<a:int>", "PERMISSIVE").to_pylist()
        ['{"a":null}', '{"a":2}']

    Raises:
        ExecutionError: ``MALFORMED_RECORD_IN_PARSING.WITHOUT_SUGGESTION`` for a bad record in
            FAILFAST mode; ``VPUSH_UNSUPPORTED_FUNCTION`` for a row whose answer vpush does not
            give on DuckDB.
    """
    if isinstance(texts, pa.ChunkedArray):
        return pa.chunked_array([convert_from_json(chunk, schema, mode) for chunk in texts.chunks], pa.string())
    try:
        result, bad_rows, first_bad_row = from_json_native(texts, _nodes(schema))
    except NativeUnsupportedError as exc:
        raise ExecutionError(
            f"from_json: the DuckDB engine does not give Spark's answer for {exc.message}; the Spark engine runs it",
            error_class="VPUSH_UNSUPPORTED_FUNCTION",
        ) from None
    if bad_rows and mode == "FAILFAST":
        raise ExecutionError(
            f"Malformed records are detected in record parsing: {texts[first_bad_row].as_py()!r}. "
            "Parse Mode: FAILFAST. To process malformed records as null result, try setting the option 'mode' as 'PERMISSIVE'.",
            error_class=MALFORMED_RECORD,
        )
    return result


@functools.lru_cache(maxsize=64)
def _nodes(schema: str) -> tuple[FromJsonNode, ...]:
    """The kernel's schema nodes of a schema as Spark prints it, the root first."""
    nodes: list[FromJsonNode] = []

    def add(target: SparkType, name: str) -> int:
        index = len(nodes)
        nodes.append(("", 0, 0, name, ()))
        if isinstance(target, StructType):
            node: FromJsonNode = ("struct", 0, 0, name, tuple(add(f.type, f.name) for f in target.fields))
        elif isinstance(target, ArrayType):
            node = ("array", 0, 0, name, (add(target.element, ""),))
        elif isinstance(target, MapType):
            node = ("map", 0, 0, name, (add(target.value, ""),))
        elif isinstance(target, DecimalType):
            node = ("decimal", target.precision, target.scale, name, ())
        elif isinstance(target, StringType):
            node = ("string", 0, 0, name, ())
        elif isinstance(target, AtomicType):
            node = (target.name, 0, 0, name, ())
        else:  # from_json_schema admits no other type
            raise ExecutionError(f"from_json: no conversion to {target.to_spark()}")
        nodes[index] = node
        return index

    add(from_json_schema(schema), "")
    return tuple(nodes)
