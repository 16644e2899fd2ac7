"""The scan's read-ahead thread: batches in order, the source's error raised where it happened,
and an early stop (a LIMIT) that ends the thread and closes the source."""
from __future__ import annotations

import threading
from collections.abc import Iterator

import pyarrow as pa
import pytest

from vpush.exec.read_scan import prefetch


def _batch(i: int) -> pa.RecordBatch:
    return pa.RecordBatch.from_pydict({"i": [i]})


def test_batches_arrive_in_order() -> None:
    got = [b.column(0)[0].as_py() for b in prefetch(iter([_batch(i) for i in range(10)]), depth=2)]
    assert got == list(range(10))


def test_an_error_of_the_source_is_raised_after_the_batches_before_it() -> None:
    def source() -> Iterator[pa.RecordBatch]:
        yield _batch(0)
        yield _batch(1)
        raise ValueError("bad row group")

    seen = []
    with pytest.raises(ValueError, match="bad row group"):
        for batch in prefetch(source()):
            seen.append(batch.column(0)[0].as_py())
    assert seen == [0, 1]


def test_stopping_early_ends_the_thread_and_closes_the_source() -> None:
    closed = threading.Event()

    def source() -> Iterator[pa.RecordBatch]:
        try:
            i = 0
            while True:
                yield _batch(i)
                i += 1
        finally:
            closed.set()

    before = threading.active_count()
    stream = prefetch(source(), depth=1)
    assert next(stream).column(0)[0].as_py() == 0
    stream.close()
    assert closed.wait(5)
    assert threading.active_count() == before
