"""The scan's read-ahead thread: batches in order, the source's error raised where it happened,
and an early stop (a LIMIT) that ends the thread and closes the source."""
from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

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

    before = set(threading.enumerate())  # (other tests' threads may end meanwhile: count only this one's)
    stream = prefetch(source(), depth=1)
    assert next(stream).column(0)[0].as_py() == 0
    started = [t for t in threading.enumerate() if t not in before and t.name == "vpush-scan"]
    assert len(started) == 1, "Should read ahead on one thread of its own"
    stream.close()
    assert closed.wait(5)
    started[0].join(5)
    assert not started[0].is_alive(), "Closing the stream should end its thread"


def test_closed_on_its_own_thread() -> None:
    """The last reference to a scan's stream may go on its reading thread (a failed query leaves
    it to the garbage collector there): closing it there must not try to join that thread."""
    held: dict[str, Any] = {}
    received, closed = threading.Event(), threading.Event()

    def source() -> Iterator[pa.RecordBatch]:
        yield _batch(0)
        received.wait(10)  # the consumer holds the first batch and waits in no call of the stream
        try:
            held["stream"].close()  # on the reading thread, as the garbage collector would
        except BaseException as exc:  # noqa: BLE001 - recorded for the assertion below
            held["error"] = exc
        finally:
            closed.set()
        yield _batch(1)

    stream = prefetch(source(), depth=1)
    held["stream"] = stream
    assert next(stream).column(0)[0].as_py() == 0, "The first batch arrives"
    received.set()
    assert closed.wait(10), "The reading thread reached the close"
    assert "error" not in held, f"Closing on the reading thread raised {held.get('error')!r}"
