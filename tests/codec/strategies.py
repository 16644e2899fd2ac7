"""Hypothesis strategies for Variant values of every type (the Python value model of
``vpush.codec.scalars``)."""
from __future__ import annotations

import datetime as dt
import decimal
from typing import Any

import pyarrow as pa
from hypothesis import strategies as st

from vpush.codec.header import PrimitiveType
from vpush.codec.scalars import Float32, VariantScalar

_UTC = dt.timezone.utc


def _decimal(max_digits: int) -> st.SearchStrategy[decimal.Decimal]:
    return st.builds(
        lambda unscaled, scale: decimal.Decimal(unscaled).scaleb(-min(scale, max_digits), decimal.Context(prec=60)),
        st.integers(-(10**max_digits) + 1, 10**max_digits - 1),
        st.integers(0, max_digits),
    )


def _float32() -> st.SearchStrategy[Float32]:
    return st.floats(width=32, allow_nan=False).map(Float32)


scalars: st.SearchStrategy[Any] = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**63), 2**63 - 1),
    st.floats(allow_nan=False),
    _float32(),
    _decimal(9),
    _decimal(18),
    _decimal(38),
    st.text(max_size=80),
    st.binary(max_size=40),
    st.dates(),
    st.datetimes(timezones=st.just(_UTC)),
    st.datetimes(),
    st.times(),
    st.uuids(),
    st.builds(VariantScalar, st.just(PrimitiveType.TIMESTAMP_NANOS), st.integers(-(2**63), 2**63 - 1)),
    st.builds(VariantScalar, st.just(PrimitiveType.TIMESTAMP_NTZ_NANOS), st.integers(-(2**63), 2**63 - 1)),
)

keys = st.text(max_size=8)

values: st.SearchStrategy[Any] = st.recursive(
    scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=6),
        st.dictionaries(keys, children, max_size=6),
    ),
    max_leaves=25,
)
"""Random nested values: objects, arrays and scalars of every Variant type."""


SHREDDED_PRIMITIVE_TYPES = [
    pa.bool_(), pa.int8(), pa.int16(), pa.int32(), pa.int64(), pa.float32(), pa.float64(),
    pa.decimal128(9, 2), pa.decimal128(18, 4), pa.decimal128(38, 10), pa.string(), pa.binary(),
    pa.date32(), pa.time64("us"), pa.timestamp("us", "UTC"), pa.timestamp("us"),
    pa.timestamp("ns", "UTC"), pa.timestamp("ns"), pa.uuid(),
]  # fmt: skip
"""Every Arrow type a primitive ``typed_value`` may have."""


def shredding_schemas(
    field_names: list[str], *, max_fields: int, max_leaves: int
) -> st.SearchStrategy[pa.DataType]:
    """Random ``typed_value`` types: primitives, lists and objects, nested."""
    return st.recursive(
        st.sampled_from(SHREDDED_PRIMITIVE_TYPES),
        lambda children: st.one_of(
            children.map(pa.list_),
            st.dictionaries(st.sampled_from(field_names), children, min_size=1, max_size=max_fields).map(
                lambda fields: pa.struct(list(fields.items()))
            ),
        ),
        max_leaves=max_leaves,
    )


def decimals(precision: int, scale: int) -> st.SearchStrategy[decimal.Decimal]:
    """Decimals that fit ``decimal(precision, scale)`` exactly."""
    bound = 10**precision - 1
    return st.integers(-bound, bound).map(lambda u: decimal.Decimal(u).scaleb(-scale, decimal.Context(prec=60)))
