"""The extraction functions the rewritten SQL calls on DuckDB, one per target type:

    vpush_variant_get_<type>(metadata BLOB, value BLOB, path VARCHAR, strict BOOLEAN,
                             time_zone VARCHAR, file VARCHAR, written VARCHAR) -> <type>

Each is a vectorized (Arrow) function: it extracts ``path`` from every row's variant and casts it
as Spark's ``variant_get`` does (:mod:`vpush.exec.variant_cast`); a ``variant`` target returns
``struct<metadata, value>``. The rewrite calls them only for the rows whose value is not in a
shredded column (the residuals), and for paths that are not shredded; ``path`` is what is left
of the query's path past a shredded level, and ``written`` the query's own, which errors name.

DuckDB turns an exception raised in a function into its own error and loses the type; the
functions keep each vpush error in :data:`_RAISED` under a key that the message carries, so that
the engine re-raises the original, with its error class, file and path.
"""
from __future__ import annotations

import itertools
import re
import threading
from typing import Any

import duckdb
from duckdb.func import FunctionNullHandling, PythonUDFType
import pyarrow as pa

from vpush.codec.errors import MALFORMED_VARIANT, InvalidShreddingError, MalformedVariantError, VpushError
from vpush.codec.native import variant_rebuild_native
from vpush.codec.path import VariantPath, extract_column
from vpush.exec.errors import ExecutionError
from vpush.exec.variant_cast import variant_get_column

from vpush.optimizer.rewrite_variants import ONCE_FUNCTION_PREFIX, TO_JSON_PREFIX, TO_VARIANT_OBJECT_PREFIX
from vpush.optimizer.spark_math import NESTED_HASH_PREFIX
from vpush.optimizer.spark_semantics import DECIMAL_FUNCTION_PREFIX
from vpush.optimizer.variant_types import VARIANT, SparkType

_RAISED: dict[str, VpushError] = {}
_LOCK = threading.Lock()
_KEYS = itertools.count()
_KEY_PATTERN = re.compile(r"vpush-error-(\d+)")
_PARAMETERS: list[Any] = ["BLOB", "BLOB", "VARCHAR", "BOOLEAN", "VARCHAR", "VARCHAR", "VARCHAR"]


class _Raised(RuntimeError):
    """What DuckDB sees of a vpush error raised in a function: a key to the original."""


def _keep(error: VpushError) -> _Raised:
    with _LOCK:
        key = f"vpush-error-{next(_KEYS)}"
        _RAISED[key] = error
    return _Raised(key)


def keep_error(error: VpushError) -> RuntimeError:
    """What a function raises for a vpush error: an exception whose message carries the key
    that :func:`take_error` finds the original by."""
    return _keep(error)


def take_error(message: str) -> VpushError | None:
    """The vpush error a DuckDB error message refers to, removed from the registry."""
    found = _KEY_PATTERN.search(message)
    if found is None:
        return None
    with _LOCK:
        return _RAISED.pop(found.group(0), None)


def _first(array: pa.Array | pa.ChunkedArray) -> Any:
    for i in range(len(array)):
        if array[i].is_valid:
            return array[i].as_py()
    return None


def _combine(array: pa.Array | pa.ChunkedArray) -> pa.Array:
    return array.combine_chunks() if isinstance(array, pa.ChunkedArray) else array


def make_function(target: SparkType) -> Any:
    """The Arrow function for one target type."""

    def variant_get(
        metadata: pa.Array, value: pa.Array, path: pa.Array, strict: pa.Array, time_zone: pa.Array, file: pa.Array,
        written: pa.Array,
    ) -> pa.Array:
        metadata, value = _combine(metadata), _combine(value)
        path_text = _first(path) or "$"
        shown = _first(written) or path_text  # the query's path, where ``path`` is what is left of it
        try:
            try:
                if target == VARIANT:
                    # Spark rebuilds the value it finds by its builder (a dictionary of just its keys)
                    found = extract_column(metadata, value, VariantPath.parse(path_text))
                    return variant_rebuild_native(*found.flatten())
                return variant_get_column(
                    metadata,
                    value,
                    path_text,
                    target,
                    strict=bool(_first(strict)),
                    time_zone=_first(time_zone) or "UTC",
                )
            except VpushError as exc:
                if exc.json_path in (None, path_text):
                    exc.json_path = shown
                if isinstance(exc, MalformedVariantError) and not isinstance(exc, InvalidShreddingError):
                    exc.with_context(error_class=MALFORMED_VARIANT)  # the cause Spark's scan raises
                files = {f for f in _combine(file).to_pylist() if f is not None} if len(file) else set()
                if len(files) == 1:
                    raise exc.with_context(file=files.pop()) from None
                raise exc from None
        except VpushError as exc:
            raise _keep(exc) from None
        except Exception as exc:  # noqa: BLE001 - any other failure must still reach the user named
            raise _keep(ExecutionError(f"variant extraction failed: {exc}", json_path=shown)) from None

    return variant_get


def register(connection: duckdb.DuckDBPyConnection, name: str, target: SparkType, duckdb_type: str) -> bool:
    """Create function ``name`` on ``connection`` unless it is there (functions belong to the
    database, so every cursor sees them). The names of Spark's other variant functions
    (:mod:`vpush.exec.variant_functions`) create those instead; for ``to_variant_object``'s,
    ``to_json``'s and the nested hashes', ``target`` is their argument's type. Returns whether it
    was created (False: the database had a function of that name)."""
    from vpush.exec import variant_functions

    if name in variant_functions.FUNCTIONS:
        return variant_functions.register(connection, name)
    if name.startswith(TO_VARIANT_OBJECT_PREFIX):
        return variant_functions.register_to_variant_object(connection, name, target)
    if name.startswith(TO_JSON_PREFIX):
        return variant_functions.register_to_json_of(connection, name, target)
    if name.startswith(NESTED_HASH_PREFIX):
        return variant_functions.register_nested_hash(connection, name, target)
    if name.startswith(DECIMAL_FUNCTION_PREFIX):
        from vpush.exec.compute_decimals import register_decimal_function

        return register_decimal_function(connection, name)
    try:
        connection.create_function(
            name,
            make_function(target),
            _PARAMETERS,
            duckdb_type,
            type=PythonUDFType.ARROW,
            null_handling=FunctionNullHandling.SPECIAL,
            # Volatile to DuckDB: computed once per row where the query computes it, not again in
            # each filter DuckDB pushes below it; only for casts that cannot fail, so that no
            # row is cast that Spark would not cast (see rewrite_variants.scan_relation).
            side_effects=name.startswith(ONCE_FUNCTION_PREFIX),
        )
    except duckdb.CatalogException as exc:
        if "already exists" not in str(exc):
            raise
        return False
    return True
