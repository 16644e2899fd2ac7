"""Write one commit of a Delta table: the next log version, created only if it does not exist.

Delta's commit protocol on a file system: version ``n`` is the file ``_delta_log/<n>.json``, and a
writer that wants version ``n`` must create it atomically, failing when it exists
("put-if-absent"). Here the commit is written to a temporary file in the log folder and then
hard-linked to its final name: ``link`` fails with ``EEXIST`` when another writer got there first,
and a reader never sees a half-written commit. The loser gets :class:`ConcurrentCommitError`; its
data files are not in any commit, so the table is unchanged.

Writing a table is an act of the face (:func:`vpush.write_delta`), not of query planning: this
module sits on the ``vpush`` floor and uses the optimizer's catalog and statistics from below.
"""
from __future__ import annotations

import json
import os
import urllib.parse
import uuid
from collections.abc import Mapping, Sequence
from typing import Any

from vpush.optimizer.catalog import FileInfo
from vpush.optimizer.collect_delta_statistics import collect_delta_statistics
from vpush.optimizer.delta_log import DELTA_LOG_FOLDER
from vpush.optimizer.errors import CatalogError

__all__ = ["ConcurrentCommitError", "add_action", "commit_delta", "next_version"]

ENGINE_INFO = "vpush"


class ConcurrentCommitError(CatalogError):
    """Another writer committed the version this writer wanted."""


def next_version(location: str | os.PathLike[str]) -> int:
    """The version the next commit takes: one past the newest commit in the log (0 when none).

    Example:
        >>> import tempfile
        >>> next_version(tempfile.mkdtemp())
        0
    """
    log = os.path.join(os.fspath(location), DELTA_LOG_FOLDER)
    try:
        names = os.listdir(log)
    except FileNotFoundError:
        return 0
    versions = [int(n[:20]) for n in names if len(n) == 25 and n.endswith(".json") and n[:20].isdigit()]
    return max(versions, default=-1) + 1


def add_action(
    location: str | os.PathLike[str],
    info: FileInfo,
    schema: Mapping[str, Any],
    partition_values: Mapping[str, str | None] | None = None,
) -> dict[str, Any]:
    """An ``add`` action for a data file under the table folder, with its footer's statistics
    (:func:`~vpush.optimizer.collect_delta_statistics.collect_delta_statistics`)."""
    relative = os.path.relpath(info.path, os.fspath(location)).replace(os.sep, "/")
    if relative.startswith("../"):
        raise CatalogError("a data file must be inside the table folder", file=info.path)
    return {
        "add": {
            "path": urllib.parse.quote(relative),
            "partitionValues": dict(partition_values or {}),
            "size": info.size,
            "modificationTime": info.mtime_ns // 1_000_000,
            "dataChange": True,
            "stats": collect_delta_statistics(info, schema),
        }
    }


def commit_delta(location: str | os.PathLike[str], version: int, actions: Sequence[Mapping[str, Any]]) -> str:
    """Write ``actions`` as version ``version`` of the table at ``location``, atomically.

    Example:
        >>> import tempfile
        >>> folder = tempfile.mkdtemp()
        >>> _ = commit_delta(folder, 0, [{"protocol": {"minReaderVersion": 1, "minWriterVersion": 2}}])
        >>> commit_delta(folder, 0, [])
        Traceback (most recent call last):
        ...
        vpush.commit_delta.ConcurrentCommitError: version 0 is already committed (file ...)

    Returns:
        The commit file's path.

    Raises:
        ConcurrentCommitError: version ``version`` exists (another writer won).
    """
    log = os.path.join(os.fspath(location), DELTA_LOG_FOLDER)
    os.makedirs(log, exist_ok=True)
    target = os.path.join(log, f"{version:020d}.json")
    lines = [json.dumps({"commitInfo": {"operation": "WRITE", "engineInfo": ENGINE_INFO}}, ensure_ascii=False)]
    lines += [json.dumps(a, ensure_ascii=False) for a in actions]
    temporary = os.path.join(log, f".{version:020d}.json.{uuid.uuid4().hex}.tmp")
    with open(temporary, "w", encoding="utf-8") as handle:
        handle.write("\n".join(lines) + "\n")
        handle.flush()
        os.fsync(handle.fileno())
    try:
        os.link(temporary, target)
    except FileExistsError:
        raise ConcurrentCommitError(f"version {version} is already committed", file=target) from None
    except OSError as exc:
        # No hard links here (some network or object-store mounts): no put-if-absent either.
        raise CatalogError(f"cannot commit version {version}: {exc.strerror}", file=target) from exc
    finally:
        os.remove(temporary)
    return target
