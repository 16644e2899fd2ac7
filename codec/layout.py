"""Variant columns in a Parquet schema: find them, check them against the shredding spec, and
describe each as a :class:`VariantLayout` tree.

The final layout (parquet-format ``VariantShredding.md``), recursively::

    <optional|required> group v (VARIANT(1)) {   level: metadata + (value, typed_value)
      required binary metadata;
      optional binary value;
      optional <primitive | group | group (LIST)> typed_value;
    }
    object typed_value:  group { required group <name> { optional binary value; optional typed_value }... }
    array typed_value:   group (LIST) { repeated group list { required group element { value; typed_value } }}

Spark's earlier draft (no top-level ``metadata``; ``untyped_value`` holds metadata and value
bytes concatenated; ``object`` / ``array`` / ``typed_value`` carry the shredded forms) is
described by the same tree with ``draft=True``.

The tree is built from the Parquet schema elements themselves (repetition, physical type,
logical and converted type, group annotations; see :mod:`vpush.codec.parquet_schema`), because
pyarrow's Arrow schema hides group annotations and group repetition.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

from vpush.codec.errors import InvalidShreddingError
from vpush.codec.header import (
    MAX_DECIMAL4_PRECISION,
    MAX_DECIMAL8_PRECISION,
    MAX_DECIMAL16_PRECISION,
    VariantType,
)
from vpush.codec.parquet_schema import LogicalType, SchemaElement, parquet_schema

if TYPE_CHECKING:
    import pyarrow.parquet as pq

__all__ = [
    "ArrayLayout",
    "LogicalType",
    "ObjectLayout",
    "PrimitiveLayout",
    "SchemaElement",
    "TypedLayout",
    "TypedLeaf",
    "ValueLayout",
    "VariantLayout",
    "find_variant_columns",
    "parquet_schema",
    "primitive_layout",
    "variant_layout",
]

UUID_BYTES = 16
VARIANT_SPECIFICATION_VERSION = 1

METADATA = "metadata"
VALUE = "value"
TYPED_VALUE = "typed_value"
UNTYPED_VALUE = "untyped_value"
OBJECT = "object"
ARRAY = "array"
_FINAL_NAMES = frozenset({METADATA, VALUE, TYPED_VALUE})
_DRAFT_NAMES = frozenset({UNTYPED_VALUE, OBJECT, ARRAY, TYPED_VALUE})


# -- the layout tree ---------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class PrimitiveLayout:
    """A shredded primitive ``typed_value`` column and the Variant type its values stand for.

    ``variant_type`` is exact: ``INT8``/``INT16``/``INT32``/``INT64`` from the integer width,
    ``DECIMAL4``/``8``/``16`` from the physical type (INT32, INT64) or else the precision,
    ``TIMESTAMP``/``TIMESTAMP_NTZ`` (micros) and ``TIMESTAMP_NANOS``/``TIMESTAMP_NTZ_NANOS``
    from the unit and the UTC flag, ``TIME`` (micros), ``UUID``, ``STRING``, ``BINARY``, ...
    """

    path: str
    variant_type: VariantType
    physical_type: str
    precision: int | None = None
    scale: int | None = None


@dataclasses.dataclass(frozen=True)
class ObjectLayout:
    """A shredded object: a ``typed_value`` group whose children are field groups, in schema order."""

    path: str
    fields: tuple[ValueLayout, ...]

    def field(self, name: str) -> ValueLayout | None:
        """The field group for object field ``name``, or None when it is not shredded."""
        return next((f for f in self.fields if f.name == name), None)

    @property
    def names(self) -> tuple[str, ...]:
        """The shredded field names, in schema order."""
        return tuple(f.name for f in self.fields)


@dataclasses.dataclass(frozen=True)
class ArrayLayout:
    """A shredded array: a 3-level LIST whose element group holds ``value`` / ``typed_value``.

    ``list_name`` is the repeated group's name (``list`` in compliant files); ``element.name`` the
    element group's (``element``). pyarrow names the Arrow list's child after the element.
    """

    path: str
    list_name: str
    element: ValueLayout


TypedLayout = PrimitiveLayout | ObjectLayout | ArrayLayout


@dataclasses.dataclass(frozen=True)
class ValueLayout:
    """One (value, typed_value) level: the top group, an object field group or a list element.

    ``value`` and the ``typed_value`` paths are dotted Parquet column paths. In the draft layout
    the binary is ``untyped_value`` (metadata and value concatenated) and the typed part is
    ``object``, ``array`` or ``typed_value``; ``value_field`` / ``typed_field`` give the names.
    """

    name: str
    path: str
    value: str | None
    typed_value: TypedLayout | None
    required: bool = True
    value_required: bool = False
    value_field: str = VALUE
    typed_field: str = TYPED_VALUE

    @property
    def is_shredded(self) -> bool:
        """True when the level has a ``typed_value``."""
        return self.typed_value is not None


@dataclasses.dataclass(frozen=True)
class TypedLeaf:
    """Where an object field's shredded primitive lives: its ``value`` column (None when the
    schema has none) and its ``typed_value`` column, with the Variant type of the latter."""

    value: str | None
    typed_value: str
    type: PrimitiveLayout


@dataclasses.dataclass(frozen=True)
class VariantLayout(ValueLayout):
    """A Variant column: its top level, with the ``metadata`` column path (None in the draft
    layout, which has no metadata column) and how it was recognised.

    Example:
        >>> import io, pyarrow as pa, pyarrow.parquet as pq
        >>> field = pa.struct([pa.field("value", pa.binary()), pa.field("typed_value", pa.int64())])
        >>> v = pa.StructArray.from_arrays(
        ...     [pa.array([b"\\x01\\x00\\x00"]), pa.array([None], pa.binary()),
        ...      pa.StructArray.from_arrays([pa.StructArray.from_arrays(
        ...          [pa.array([None], pa.binary()), pa.array([7])], fields=list(field))],
        ...          fields=[pa.field("a", field, nullable=False)])],
        ...     fields=[pa.field("metadata", pa.binary(), nullable=False), pa.field("value", pa.binary()),
        ...             pa.field("typed_value", pa.struct([pa.field("a", field, nullable=False)]))])
        >>> buf = io.BytesIO(); pq.write_table(pa.table({"v": v}), buf)
        >>> layout = find_variant_columns(pq.ParquetFile(buf))["v"]
        >>> leaf = layout.typed_leaf(["a"])
        >>> leaf.value, leaf.typed_value, leaf.type.variant_type
        ('v.typed_value.a.value', 'v.typed_value.a.typed_value', <VariantType.INT64: 'int64'>)
        >>> layout.columns()
        ['v.metadata', 'v.value', 'v.typed_value.a.value', 'v.typed_value.a.typed_value']
    """

    metadata: str | None = None
    draft: bool = False
    annotated: bool = False

    def level(self, path: Sequence[str | int]) -> ValueLayout | None:
        """The level at ``path`` from the top: an object field (a name) or an element of a
        shredded array (an index: every element has the one layout), or None when some step on
        the way is not shredded as such."""
        node: ValueLayout = self
        for step in path:
            typed = node.typed_value
            if isinstance(step, int):
                if not isinstance(typed, ArrayLayout):
                    return None
                node = typed.element
                continue
            if not isinstance(typed, ObjectLayout):
                return None
            found = typed.field(step)
            if found is None:
                return None
            node = found
        return node

    def typed_leaf(self, path: Sequence[str]) -> TypedLeaf | None:
        """The shredded primitive columns of the object field at ``path``, or None.

        Reading exactly these two columns gives the field: per the spec, a shredded field is never
        also in a residual ``value`` (final layout), so a null pair means the field is missing.
        """
        if not path:
            return None
        node = self.level(path)
        if node is None or not isinstance(node.typed_value, PrimitiveLayout):
            return None
        return TypedLeaf(node.value, node.typed_value.path, node.typed_value)

    def typed_leaves(self) -> Iterator[tuple[tuple[str, ...], TypedLeaf]]:
        """Every object field path that ends in a shredded primitive, with its columns."""
        todo: list[tuple[tuple[str, ...], ValueLayout]] = [((), self)]
        while todo:
            prefix, node = todo.pop()
            typed = node.typed_value
            if isinstance(typed, PrimitiveLayout) and prefix:
                yield prefix, TypedLeaf(node.value, typed.path, typed)
            elif isinstance(typed, ObjectLayout):
                todo.extend(((*prefix, f.name), f) for f in reversed(typed.fields))

    def columns(self) -> list[str]:
        """All leaf column paths of the Variant column, depth first in schema order."""
        out = [self.metadata] if self.metadata is not None else []
        todo: list[ValueLayout] = [self]
        while todo:
            node = todo.pop()
            if node.value is not None:
                out.append(node.value)
            typed = node.typed_value
            if isinstance(typed, PrimitiveLayout):
                out.append(typed.path)
            elif isinstance(typed, ObjectLayout):
                todo.extend(reversed(typed.fields))
            elif isinstance(typed, ArrayLayout):
                todo.append(typed.element)
        return out


# -- recognising and checking ------------------------------------------------------------------
class _Builder:
    def __init__(self, file: str | None, column: str) -> None:
        self.file = file
        self.column = column

    def fail(self, message: str, node: SchemaElement) -> InvalidShreddingError:
        return InvalidShreddingError(message, file=self.file, column_path=node.dotted)

    def children(self, node: SchemaElement, allowed: frozenset[str]) -> dict[str, SchemaElement]:
        """The children that matter: names starting with ``_`` are ignored (Delta's convention for
        extensions, adopted by the draft), any other unknown name is an incompatible schema."""
        found: dict[str, SchemaElement] = {}
        for child in node.children:
            if child.name.startswith("_"):
                continue
            if child.name not in allowed:
                raise self.fail(
                    f"unexpected field {child.name!r}: a Variant group holds only "
                    f"{', '.join(sorted(allowed))} (and names starting with '_')",
                    node,
                )
            if child.name in found:
                raise self.fail(f"field {child.name!r} appears twice", node)
            if child.repetition == "REPEATED":
                raise self.fail(f"{child.name} must not be repeated", child)
            found[child.name] = child
        return found

    def binary(self, node: SchemaElement) -> None:
        if node.is_group or node.physical_type != "BYTE_ARRAY":
            raise self.fail(f"{node.name} must be binary, not {node.describe()}", node)
        if node.logical_type is not None:
            raise self.fail(f"{node.name} must be plain binary, not {node.describe()}", node)

    def variant(self, node: SchemaElement, draft: bool, annotated: bool) -> VariantLayout:
        if not node.is_group:
            raise self.fail(f"a Variant column must be a group, not {node.describe()}", node)
        if node.repetition == "REPEATED":
            raise self.fail("a Variant group must not be repeated", node)
        lt = node.logical_type
        if (
            lt is not None
            and lt.kind == "VARIANT"
            and lt.version not in (None, VARIANT_SPECIFICATION_VERSION)
        ):
            raise self.fail(f"unsupported Variant specification version {lt.version}", node)
        metadata_path = None
        if not draft:
            meta = self.children(node, _FINAL_NAMES).get(METADATA)
            if meta is None:
                raise self.fail("a Variant group needs a metadata field", node)
            self.binary(meta)
            metadata_path = meta.dotted
        level = self.level(node, draft=draft, role="variant")
        return VariantLayout(
            **{f.name: getattr(level, f.name) for f in dataclasses.fields(ValueLayout)},
            metadata=metadata_path,
            draft=draft,
            annotated=annotated,
        )

    def level(self, node: SchemaElement, *, draft: bool, role: str) -> ValueLayout:
        """A (value, typed_value) group; ``role`` is ``variant``, ``field`` or ``element``."""
        if draft:
            kids = self.children(node, _DRAFT_NAMES)
            value = kids.get(UNTYPED_VALUE)
            typed_names = [n for n in (OBJECT, ARRAY, TYPED_VALUE) if n in kids]
            if len(typed_names) > 1:
                raise self.fail(
                    f"the draft layout with more than one of object, array and typed_value "
                    f"({', '.join(typed_names)}) is not supported",
                    node,
                )
            typed_name = typed_names[0] if typed_names else TYPED_VALUE
        else:
            kids = self.children(node, _FINAL_NAMES if role == "variant" else _FINAL_NAMES - {METADATA})
            value = kids.get(VALUE)
            typed_name = TYPED_VALUE
        typed_node = kids.get(typed_name)
        if value is None and typed_node is None:
            raise self.fail(
                f"a Variant level needs a {UNTYPED_VALUE if draft else VALUE} or a typed field", node
            )
        if value is not None:
            self.binary(value)
            if role == "element" and not draft and typed_node is None and value.repetition != "REQUIRED":
                # The spec: "When typed_value is omitted, value must be required" (list elements).
                raise self.fail(
                    "a list element without typed_value must have a required value, "
                    f"not {value.describe()}",
                    value,
                )
        typed: TypedLayout | None = None
        if typed_node is not None:
            if draft and typed_name == OBJECT:
                typed = self.object(typed_node, draft=True)
            elif draft and typed_name == ARRAY:
                typed = self.array(typed_node, draft=True)
            elif draft:
                if typed_node.is_group:
                    raise self.fail("the draft layout's typed_value must be a primitive", typed_node)
                typed = primitive_layout(typed_node, file=self.file)
            else:
                typed = self.typed(typed_node)
        return ValueLayout(
            name=node.name,
            path=node.dotted,
            value=value.dotted if value is not None else None,
            typed_value=typed,
            required=node.repetition == "REQUIRED",
            value_required=value is not None and value.repetition == "REQUIRED",
            value_field=UNTYPED_VALUE if draft else VALUE,
            typed_field=typed_name,
        )

    def typed(self, node: SchemaElement) -> TypedLayout:
        if not node.is_group:
            return primitive_layout(node, file=self.file)
        kind = node.logical_type.kind if node.logical_type is not None else None
        if kind == "LIST":
            return self.array(node, draft=False)
        if kind is None:
            return self.object(node, draft=False)
        raise self.fail(
            f"unsupported shredded type: {node.describe()} (a group must be an object or a LIST)", node
        )

    def object(self, node: SchemaElement, *, draft: bool) -> ObjectLayout:
        if not node.is_group or node.logical_type is not None:
            raise self.fail(f"a shredded object must be a plain group, not {node.describe()}", node)
        if not node.children:
            raise self.fail("a shredded object needs at least one field", node)
        fields = []
        seen: set[str] = set()
        for child in node.children:
            if child.name in seen:
                raise self.fail(f"shredded field {child.name!r} appears twice", node)
            seen.add(child.name)
            if not child.is_group:
                raise self.fail(
                    f"shredded field {child.name!r} must be a group of value and typed_value, "
                    f"not {child.describe()}",
                    child,
                )
            if child.repetition == "REPEATED":
                raise self.fail(
                    f"shredded field {child.name!r} must be a required group, not repeated", child
                )
            # An optional field group (case 84, INVALID: the spec says required) is read: a null
            # group means the field is missing, the only meaning it can have.
            fields.append(self.level(child, draft=draft, role="field"))
        return ObjectLayout(node.dotted, tuple(fields))

    def array(self, node: SchemaElement, *, draft: bool) -> ArrayLayout:
        lt = node.logical_type
        if not node.is_group or lt is None or lt.kind != "LIST":
            raise self.fail(f"a shredded array must be a LIST group, not {node.describe()}", node)
        if len(node.children) != 1:
            raise self.fail("a shredded array must be a 3-level list: one repeated group", node)
        repeated = node.children[0]
        if repeated.repetition != "REPEATED" or not repeated.is_group or len(repeated.children) != 1:
            raise self.fail(
                "a shredded array must be a 3-level list: a repeated group holding one element group",
                repeated,
            )
        element = repeated.children[0]
        if not element.is_group:
            raise self.fail(f"the list element must be a group, not {element.describe()}", element)
        if element.repetition == "REPEATED" or (not draft and element.repetition != "REQUIRED"):
            raise self.fail(f"the list element must be a required group, not {element.describe()}", element)
        return ArrayLayout(node.dotted, repeated.name, self.level(element, draft=draft, role="element"))


def primitive_layout(node: SchemaElement, *, file: str | None = None) -> PrimitiveLayout:
    """The Variant type of a shredded primitive column, per the spec's "Shredded Value Types".

    Example:
        >>> el = SchemaElement("typed_value", ("v", "typed_value"), "OPTIONAL", "INT32", None,
        ...                    LogicalType("INTEGER", bit_width=16, signed=True))
        >>> primitive_layout(el).variant_type
        <VariantType.INT16: 'int16'>

    Raises:
        InvalidShreddingError: a type the spec does not allow (unsigned integers, INT96,
            millisecond times, a FIXED_LEN_BYTE_ARRAY other than a 16-byte UUID, JSON, ...).
    """
    physical, lt = node.physical_type, node.logical_type
    kind = lt.kind if lt is not None else None
    vt: VariantType | None = None
    precision = scale = None
    if kind == "DECIMAL":
        assert lt is not None  # for mypy: kind came from it
        precision, scale = lt.precision, lt.scale
        if (
            precision is not None
            and scale is not None
            and 0 < precision <= MAX_DECIMAL16_PRECISION
            and 0 <= scale <= precision
        ):
            # INT32 and INT64 fix the width; a byte array takes the smallest width that holds the
            # precision (all widths are one exact-numeric class, so only the range matters).
            if physical == "INT32":
                vt = VariantType.DECIMAL4 if precision <= MAX_DECIMAL4_PRECISION else None
            elif physical == "INT64":
                vt = VariantType.DECIMAL8 if precision <= MAX_DECIMAL8_PRECISION else None
            elif physical in ("FIXED_LEN_BYTE_ARRAY", "BYTE_ARRAY"):
                vt = (
                    VariantType.DECIMAL4
                    if precision <= MAX_DECIMAL4_PRECISION
                    else VariantType.DECIMAL8
                    if precision <= MAX_DECIMAL8_PRECISION
                    else VariantType.DECIMAL16
                )
    elif physical == "BOOLEAN" and kind is None:
        vt = VariantType.BOOLEAN
    elif physical == "INT32" and kind in (None, "INTEGER", "DATE"):
        if kind == "DATE":
            vt = VariantType.DATE
        elif lt is None or (lt.signed and lt.bit_width in (8, 16, 32)):
            vt = {8: VariantType.INT8, 16: VariantType.INT16}.get(
                (lt.bit_width or 32) if lt else 32, VariantType.INT32
            )
    elif physical == "INT64" and kind in (None, "INTEGER", "TIME", "TIMESTAMP"):
        if lt is None or (kind == "INTEGER" and lt.signed and lt.bit_width == 64):
            vt = VariantType.INT64
        elif kind == "TIME" and lt.unit == "MICROS" and not lt.utc:
            vt = VariantType.TIME
        elif kind == "TIMESTAMP" and lt.unit in ("MICROS", "NANOS"):
            vt = {
                (True, "MICROS"): VariantType.TIMESTAMP,
                (False, "MICROS"): VariantType.TIMESTAMP_NTZ,
                (True, "NANOS"): VariantType.TIMESTAMP_NANOS,
                (False, "NANOS"): VariantType.TIMESTAMP_NTZ_NANOS,
            }[(bool(lt.utc), lt.unit)]
    elif physical == "FLOAT" and kind is None:
        vt = VariantType.FLOAT
    elif physical == "DOUBLE" and kind is None:
        vt = VariantType.DOUBLE
    elif physical == "BYTE_ARRAY" and kind in (None, "STRING"):
        vt = VariantType.BINARY if kind is None else VariantType.STRING
    elif physical == "FIXED_LEN_BYTE_ARRAY" and kind == "UUID" and node.type_length == UUID_BYTES:
        vt = VariantType.UUID
    if vt is None or node.is_group:
        raise InvalidShreddingError(
            f"unsupported shredded value type: {node.describe()}", file=file, column_path=node.dotted
        )
    if node.repetition == "REPEATED":
        raise InvalidShreddingError("typed_value must not be repeated", file=file, column_path=node.dotted)
    if vt not in (VariantType.DECIMAL4, VariantType.DECIMAL8, VariantType.DECIMAL16):
        precision = scale = None
    return PrimitiveLayout(node.dotted, vt, physical or "", precision, scale)


def _variant_kind(node: SchemaElement) -> tuple[bool, bool] | None:
    """(draft, annotated) when ``node`` is a Variant group, else None.

    Annotated groups are Variant whatever they hold (and fail validation if malformed).
    Unannotated ones are recognised by their fields: ``metadata`` and ``value`` binaries (Spark
    4.0 and writers without the annotation), or the draft's ``untyped_value`` / ``object`` /
    ``array`` names.
    """
    lt = node.logical_type
    if lt is not None and lt.kind == "VARIANT":
        names = {c.name for c in node.children if not c.name.startswith("_")}
        draft = (
            METADATA not in names and bool(names) and names <= _DRAFT_NAMES and bool(names - {TYPED_VALUE})
        )
        return draft, True
    if not node.is_group or lt is not None or node.repetition == "REPEATED":
        return None
    kids = {c.name: c for c in node.children if not c.name.startswith("_")}
    names = set(kids)

    def binary(name: str) -> bool:
        child = kids.get(name)
        return child is not None and child.physical_type == "BYTE_ARRAY"

    if names <= _FINAL_NAMES and binary(METADATA) and binary(VALUE):
        return False, False
    if (
        names
        and names <= _DRAFT_NAMES
        and (
            binary(UNTYPED_VALUE)
            or (OBJECT in kids and kids[OBJECT].is_group)
            or (ARRAY in kids and kids[ARRAY].is_group)
        )
    ):
        return True, False
    return None


def variant_layout(element: SchemaElement, *, file: str | None = None) -> VariantLayout:
    """Check one Variant group against the spec and describe it (whether or not it is annotated).

    Example:
        >>> leaf = lambda name, rep: SchemaElement(name, ("v", name), rep, "BYTE_ARRAY", None, None)
        >>> group = SchemaElement("v", ("v",), "OPTIONAL", None, None, LogicalType("VARIANT"),
        ...                       (leaf("metadata", "REQUIRED"), leaf("value", "REQUIRED")))
        >>> variant_layout(group).value, variant_layout(group).value_required
        ('v.value', True)

    Raises:
        InvalidShreddingError: naming the file and the column path of the first problem.
    """
    kind = _variant_kind(element)
    draft, annotated = kind if kind is not None else (False, False)
    return _Builder(file, element.dotted).variant(element, draft, annotated)


def find_variant_columns(
    parquet_file: pq.ParquetFile, *, file: str | None = None
) -> dict[str, VariantLayout]:
    """The Variant columns of a Parquet file, by column name, each checked against the spec.

    Top-level columns, and columns nested in plain struct groups (keyed by dotted path, e.g.
    ``s.v``). A group is a Variant when it carries the ``VARIANT`` annotation, or (unannotated)
    when it has binary ``metadata`` and ``value`` fields and nothing else but ``typed_value`` and
    ``_``-names, or the draft layout's fields.

    Example:
        >>> import io, pyarrow as pa, pyarrow.parquet as pq
        >>> v = pa.array([{"metadata": b"\\x01\\x00\\x00", "value": b"\\x00"}],
        ...              pa.struct([("metadata", pa.binary()), ("value", pa.binary())]))
        >>> buf = io.BytesIO(); pq.write_table(pa.table({"id": [1], "v": v}), buf)
        >>> layouts = find_variant_columns(pq.ParquetFile(buf))
        >>> list(layouts), layouts["v"].metadata, layouts["v"].value, layouts["v"].typed_value
        (['v'], 'v.metadata', 'v.value', None)

    Raises:
        InvalidShreddingError: a Variant group that breaks the shredding spec, naming the file
            and the column path.
        CodecError: a damaged footer.
    """
    root = parquet_schema(parquet_file, file=file)
    found: dict[str, VariantLayout] = {}
    todo = list(reversed(root.children))
    while todo:
        node = todo.pop()
        kind = _variant_kind(node)
        if kind is not None:
            draft, annotated = kind
            found[node.dotted] = _Builder(file, node.dotted).variant(node, draft, annotated)
        elif node.is_group and node.logical_type is None and node.repetition != "REPEATED":
            todo.extend(reversed(node.children))
    return found
