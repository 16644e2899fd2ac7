"""Write Parquet files whose Variant groups carry the `VARIANT` logical type annotation.

pyarrow writes a shredded Variant as a plain group and cannot annotate it, yet DuckDB and Spark
read a group as Variant only when its `SchemaElement` says so:

```
optional group v (VARIANT(1)) {     <- SchemaElement.logicalType = LogicalType{VARIANT:
  required binary metadata;                                          VariantType{specification_version: 1}}
  optional binary value;
  optional int64 typed_value;
}
```

So pyarrow writes the file as usual, and then the footer is decoded, the chosen groups get the
annotation, and the footer is written again after the unchanged pages (see `parquet_footer`).
Field ids, from apache/parquet-format `src/main/thrift/parquet.thrift`: `SchemaElement` 10
`logicalType`, `LogicalType` union member 16 `VARIANT`, `VariantType` 1 `specification_version`
(i8). DuckDB 2.0 and Spark 4.3 write exactly these bytes themselves.

A column name is a top-level column; a dotted name that is not a top-level column is followed
through plain struct groups (`s.v` annotates the variant `v` inside the struct `s`).
"""

from __future__ import annotations

import os
import shutil
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from vpush.codec.errors import CodecError, InvalidShreddingError
from vpush.codec.parquet_footer import (
    FILE_METADATA_SCHEMA,
    CompactType,
    ThriftField,
    ThriftList,
    ThriftStruct,
    read_footer,
    write_footer,
)

if TYPE_CHECKING:
    import pyarrow as pa

# SchemaElement field ids (parquet.thrift).
SCHEMA_ELEMENT_TYPE = 1
SCHEMA_ELEMENT_REPETITION_TYPE = 3
SCHEMA_ELEMENT_NAME = 4
SCHEMA_ELEMENT_NUM_CHILDREN = 5
SCHEMA_ELEMENT_CONVERTED_TYPE = 6
SCHEMA_ELEMENT_LOGICAL_TYPE = 10
# LogicalType union member and VariantType field (parquet.thrift).
LOGICAL_TYPE_VARIANT = 16
VARIANT_TYPE_SPECIFICATION_VERSION = 1
VARIANT_SPECIFICATION_VERSION = 1
# Physical Type and FieldRepetitionType enum values (parquet.thrift).
PHYSICAL_TYPE_BYTE_ARRAY = 6
REPETITION_REQUIRED = 0
REPETITION_REPEATED = 2

METADATA = "metadata"
VALUE = "value"
TYPED_VALUE = "typed_value"
_VARIANT_FIELDS = (METADATA, VALUE, TYPED_VALUE)


def write_variant_parquet(
    table: pa.Table,
    where: str | os.PathLike[str],
    variant_columns: Sequence[str],
    **parquet_options: Any,
) -> None:
    """Write `table` to a Parquet file with `variant_columns` annotated as `VARIANT`.

    pyarrow writes a temporary file in the destination folder, its footer is patched, and it is
    renamed over `where`, so readers never see a half-written or unannotated file.

    Example:
        >>> import tempfile, pyarrow as pa, pyarrow.parquet as pq
        >>> layout = pa.struct([pa.field("metadata", pa.binary(), nullable=False),
        ...                     pa.field("value", pa.binary(), nullable=False)])
        >>> v = pa.array([{"metadata": b"\\x01\\x00\\x00", "value": b"\\x0c\\x2a"}], layout)
        >>> with tempfile.TemporaryDirectory() as folder:
        ...     write_variant_parquet(pa.table({"v": v}), folder + "/t.parquet", ["v"])
        ...     "v (Variant(1))" in str(pq.ParquetFile(folder + "/t.parquet").schema)
        True

    Args:
        table: the data; each variant column is a struct of `metadata`, `value` and/or
            `typed_value` in the shredding spec's layout.
        where: the destination path on the local file system.
        variant_columns: names of the columns to annotate.
        **parquet_options: passed to `pyarrow.parquet.write_table` (`row_group_size`,
            `compression`, `write_statistics`, ...).

    Raises:
        InvalidShreddingError: when a named column is missing or is not a Variant group.
        CodecError: when the written footer cannot be decoded (for example an encrypted one).
        TypeError: for a bare string as `variant_columns`, or a `filesystem` option.
    """
    import pyarrow.parquet as pq

    columns = _column_names(variant_columns)
    if "filesystem" in parquet_options:
        # The footer is patched and renamed with local file operations.
        raise TypeError("write_variant_parquet writes to the local file system only")
    target = os.fspath(where)
    for column in columns:
        _check_arrow_column(table.schema, column, target)
    temporary = _temporary_path(target)
    try:
        pq.write_table(table, temporary, **parquet_options)
        _annotate_file(temporary, columns, target)
        os.replace(temporary, target)
    except BaseException:
        if os.path.exists(temporary):
            os.remove(temporary)
        raise


def annotate_variant_columns(path: str | os.PathLike[str], variant_columns: Sequence[str]) -> None:
    """Annotate `variant_columns` of an existing Parquet file as `VARIANT`, in place.

    The file is copied next to itself, the copy's footer is rewritten, and the copy is renamed
    over the original; a column that already carries the annotation is annotated again. The
    pages stay byte for byte, so every offset and statistic in the footer stays valid.

    Example:
        >>> import tempfile, pyarrow as pa, pyarrow.parquet as pq
        >>> layout = pa.struct([pa.field("metadata", pa.binary(), nullable=False),
        ...                     pa.field("value", pa.binary(), nullable=False)])
        >>> v = pa.array([{"metadata": b"\\x01\\x00\\x00", "value": b"\\x00"}], layout)
        >>> with tempfile.TemporaryDirectory() as folder:
        ...     pq.write_table(pa.table({"v": v}), folder + "/t.parquet")
        ...     annotate_variant_columns(folder + "/t.parquet", ["v"])
        ...     "v (Variant(1))" in str(pq.ParquetFile(folder + "/t.parquet").schema)
        True

    Args:
        path: a Parquet file on the local file system.
        variant_columns: names of the groups to annotate.

    Raises:
        InvalidShreddingError: when a named column is missing or is not a Variant group; the
            file is left as it was.
        CodecError: when the file is not Parquet or its footer is damaged or encrypted.
        TypeError: for a bare string as `variant_columns`.
    """
    columns = _column_names(variant_columns)
    target = os.fspath(path)
    temporary = _temporary_path(target)
    try:
        shutil.copyfile(target, temporary)
        shutil.copymode(target, temporary)
        _annotate_file(temporary, columns, target)
        os.replace(temporary, target)
    except BaseException:
        if os.path.exists(temporary):
            os.remove(temporary)
        raise


def _column_names(variant_columns: Sequence[str]) -> list[str]:
    # A bare "v" is a Sequence[str] too, and would silently mean the columns "v" character by
    # character.
    if isinstance(variant_columns, str):
        raise TypeError(f"variant_columns must be a sequence of names, not the string {variant_columns!r}")
    return list(dict.fromkeys(variant_columns))


def _temporary_path(target: str) -> str:
    # Same folder as the target, so that os.replace is a rename within one file system.
    folder, name = os.path.split(os.path.abspath(target))
    return os.path.join(folder, f".{name}.{uuid.uuid4().hex}.tmp")


def _annotate_file(path: str, columns: Sequence[str], name: str) -> None:
    try:
        footer = read_footer(path)
    except CodecError as err:
        err.file = name  # the temporary copy's name means nothing to the caller
        raise
    root = _schema_tree(footer.metadata, name)
    for column in columns:
        node = _find_column(root, column, name)
        _check_variant_group(node, name)
        node.element.set(SCHEMA_ELEMENT_LOGICAL_TYPE, CompactType.STRUCT, _variant_logical_type())
    with open(path, "r+b") as handle:
        write_footer(handle, footer, footer.metadata)
        handle.flush()
        # The rename must not become durable before the data it points to.
        os.fsync(handle.fileno())


def _variant_logical_type() -> ThriftStruct:
    version = ThriftField(VARIANT_TYPE_SPECIFICATION_VERSION, CompactType.I8, VARIANT_SPECIFICATION_VERSION)
    return ThriftStruct([ThriftField(LOGICAL_TYPE_VARIANT, CompactType.STRUCT, ThriftStruct([version]))])


@dataclass
class _SchemaNode:
    element: ThriftStruct
    path: tuple[str, ...]
    children: list[_SchemaNode] = field(default_factory=list)

    @property
    def dotted(self) -> str:
        return ".".join(self.path)

    def int_field(self, field_id: int) -> int | None:
        value = self.element.value(field_id)
        return value if isinstance(value, int) and not isinstance(value, bool) else None

    def child(self, name: str) -> _SchemaNode | None:
        return next((node for node in self.children if node.path[-1] == name), None)

    def count(self, name: str) -> int:
        return sum(1 for node in self.children if node.path[-1] == name)


def _schema_tree(metadata: ThriftStruct, file: str) -> _SchemaNode:
    """Rebuild the schema tree from its depth-first list, without recursion."""
    schema = metadata.value(FILE_METADATA_SCHEMA)
    if not isinstance(schema, ThriftList) or not schema.items:
        raise CodecError("footer has no schema", file=file)
    nodes = []
    for item in schema.items:
        if not isinstance(item, ThriftStruct):
            raise CodecError("schema list holds a non-struct element", file=file)
        nodes.append(item)
    root = _SchemaNode(nodes[0], ())
    stack: list[tuple[_SchemaNode, int]] = []
    if _num_children(root, file):
        stack.append((root, _num_children(root, file)))
    for element in nodes[1:]:
        if not stack:
            raise CodecError("schema lists more elements than num_children accounts for", file=file)
        parent, remaining = stack.pop()
        name = element.value(SCHEMA_ELEMENT_NAME)
        if not isinstance(name, bytes):
            raise CodecError(f"schema element under {parent.dotted or 'the root'} has no name", file=file)
        try:
            node = _SchemaNode(element, (*parent.path, name.decode("utf-8")))
        except UnicodeDecodeError:
            raise CodecError(f"schema element name {name!r} is not UTF-8", file=file) from None
        parent.children.append(node)
        if remaining > 1:
            stack.append((parent, remaining - 1))
        count = _num_children(node, file)
        if count:
            stack.append((node, count))
    if stack:
        raise CodecError(f"schema ends inside group {stack[-1][0].dotted or 'the root'}", file=file)
    return root


def _num_children(node: _SchemaNode, file: str) -> int:
    count = node.int_field(SCHEMA_ELEMENT_NUM_CHILDREN)
    if count is not None and count < 0:
        raise CodecError(f"group {node.dotted or 'the root'} has num_children {count}", file=file)
    return count or 0


def _find_column(root: _SchemaNode, column: str, file: str) -> _SchemaNode:
    names = [column] if root.count(column) else column.split(".")
    node = root
    for name in names:
        # Only plain struct groups lead further: a LIST, MAP or VARIANT group, or a repeated one,
        # would put the variant where a name path cannot say which element is meant.
        if node is not root and not _is_plain_group(node):
            raise InvalidShreddingError(
                f"{node.dotted!r} is not a plain struct group", file=file, column_path=column
            )
        found = node.child(name)
        if found is None:
            raise InvalidShreddingError("no such column in the Parquet schema", file=file, column_path=column)
        if node.count(name) > 1:
            raise InvalidShreddingError(f"several fields are named {name!r}", file=file, column_path=column)
        node = found
    return node


def _is_plain_group(node: _SchemaNode) -> bool:
    return (
        bool(node.children)
        and node.element.get(SCHEMA_ELEMENT_LOGICAL_TYPE) is None
        and node.element.get(SCHEMA_ELEMENT_CONVERTED_TYPE) is None
        and node.int_field(SCHEMA_ELEMENT_REPETITION_TYPE) != REPETITION_REPEATED
    )


def _check_variant_group(node: _SchemaNode, file: str) -> None:
    """Check the layout of VariantEncoding.md's "Variant in Parquet" at the group's top level."""
    column = node.dotted

    def fail(message: str) -> InvalidShreddingError:
        return InvalidShreddingError(message, file=file, column_path=column)

    if not node.children or node.element.get(SCHEMA_ELEMENT_TYPE) is not None:
        raise fail("a Variant column must be a group, not a primitive column")
    logical = node.element.value(SCHEMA_ELEMENT_LOGICAL_TYPE)
    already_variant = isinstance(logical, ThriftStruct) and logical.get(LOGICAL_TYPE_VARIANT) is not None
    converted = node.element.get(SCHEMA_ELEMENT_CONVERTED_TYPE)
    if converted is not None or (logical is not None and not already_variant):
        raise fail("group already carries another logical type")
    names = [child.path[-1] for child in node.children]
    extra = sorted(set(names) - set(_VARIANT_FIELDS))
    if extra or len(set(names)) != len(names):
        raise fail(f"a Variant group holds only metadata, value and typed_value; found {names}")
    metadata, value, typed_value = (node.child(name) for name in _VARIANT_FIELDS)
    if metadata is None:
        raise fail("a Variant group needs a metadata field")
    if value is None and typed_value is None:
        raise fail("a Variant group needs a value or a typed_value field")
    for binary in (metadata, value):
        if binary is None:
            continue
        if binary.int_field(SCHEMA_ELEMENT_TYPE) != PHYSICAL_TYPE_BYTE_ARRAY or binary.children:
            raise fail(f"{binary.path[-1]} must be binary (BYTE_ARRAY)")
        if any(
            binary.element.get(i) is not None
            for i in (SCHEMA_ELEMENT_LOGICAL_TYPE, SCHEMA_ELEMENT_CONVERTED_TYPE)
        ):
            raise fail(f"{binary.path[-1]} must be plain binary, without a logical type")
    if metadata.int_field(SCHEMA_ELEMENT_REPETITION_TYPE) != REPETITION_REQUIRED:
        raise fail("metadata must be required")
    if (
        typed_value is None
        and value is not None
        and value.int_field(SCHEMA_ELEMENT_REPETITION_TYPE) != REPETITION_REQUIRED
    ):
        raise fail("value must be required when there is no typed_value (unshredded Variant)")


def _check_arrow_column(schema: pa.Schema, column: str, file: str) -> None:
    """Fail before writing anything when a column cannot become a Variant group."""
    import pyarrow as pa

    def fail(message: str) -> InvalidShreddingError:
        return InvalidShreddingError(message, file=file, column_path=column)

    parts = [column] if column in schema.names else column.split(".")
    matches = schema.get_all_field_indices(parts[0])
    if len(matches) != 1:
        raise fail("several columns have this name" if matches else "no such column in the table")
    arrow_field = schema.field(matches[0])
    for part in parts[1:]:
        if not pa.types.is_struct(arrow_field.type) or arrow_field.type.get_field_index(part) < 0:
            raise fail("no such column in the table")
        arrow_field = arrow_field.type.field(part)
    struct_type = arrow_field.type
    if not pa.types.is_struct(struct_type):
        raise fail(f"a Variant column must be a struct, not {struct_type}")
    children = {struct_type.field(i).name: struct_type.field(i) for i in range(struct_type.num_fields)}
    extra = sorted(set(children) - set(_VARIANT_FIELDS))
    if extra or len(children) != struct_type.num_fields:
        raise fail(f"a Variant struct holds only metadata, value and typed_value; found {struct_type}")
    if METADATA not in children:
        raise fail("a Variant struct needs a metadata field")
    if VALUE not in children and TYPED_VALUE not in children:
        raise fail("a Variant struct needs a value or a typed_value field")
    for name in (METADATA, VALUE):
        child = children.get(name)
        if child is not None and not _is_arrow_binary(child.type):
            raise fail(f"{name} must be binary, not {child.type}")
    if children[METADATA].nullable:
        raise fail("metadata must be non-nullable (Parquet required)")
    if TYPED_VALUE not in children and children[VALUE].nullable:
        raise fail("value must be non-nullable when there is no typed_value (unshredded Variant)")


def _is_arrow_binary(arrow_type: pa.DataType) -> bool:
    import pyarrow as pa

    return bool(
        pa.types.is_binary(arrow_type)
        or pa.types.is_large_binary(arrow_type)
        or pa.types.is_binary_view(arrow_type)
    )
