"""Hypothesis strategies for Variant values of every type (the Python value model of
``vpush.codec.scalars``)."""
from __future__ import annotations

import datetime as dt
import decimal
import uuid
from typing import Any

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


def as_uuid(value: Any) -> Any:
    """``uuid.UUID`` values stay themselves (a hook for strategies that build UUIDs from bytes)."""
    return value if isinstance(value, uuid.UUID) else value
