"""Sample data: a realistic, deterministic event log with a shredded Variant column.

``vpush sample events OUT`` writes Parquet files with two columns, ``id`` (bigint, increasing)
and ``event`` (an annotated, shredded Variant). One row is one web or app event:

```
event = {
  ts:      timestamp (UTC), increasing with id          shredded as timestamp
  type:    view 60% | click 25% | purchase 8% | ...     shredded as string
  user:    {id: bigint, country: string, plan: string}  shredded as an object
  device:  {os: string, browser: string, mobile: bool}  shredded as an object
  amount:  decimal(10,2), purchases only                shredded as decimal(10,2)
  tags:    array of 0-3 strings                         shredded as a list of strings
  status:  bigint, or a string in a few short windows   shredded as bigint
  payload: object whose keys depend on type             not shredded: top-level `value`
}
```

The footers therefore show every situation the optimizer meets: leaves whose ``value`` is all-null
(perfectly shredded), a leaf (``status``) whose ``value`` is non-null in a few row groups only, a
field missing in most rows (``amount``), and a top-level ``value`` that is never all-null (unless
``payload=False``). Timestamps grow with ``id`` across row groups and files, so a time window
maps to few row groups.

The data is a pure function of (row id, seed): every pseudo-random draw is an integer hash of the
two, written once as SQL that DuckDB and Spark evaluate the same way, so both writers produce the
same logical rows. Nothing loops over rows in Python.
"""

from __future__ import annotations

import random
import shutil
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from vpush.codec.errors import VpushError

if TYPE_CHECKING:
    import duckdb
    from pyarrow.parquet import RowGroupMetaData
    from pyspark.sql import SparkSession

Writer = Literal["duckdb", "spark"]
Dialect = Literal["duckdb", "spark"]

WRITERS: tuple[Writer, ...] = ("duckdb", "spark")
DEFAULT_ROW_GROUP_ROWS = 122_880
# DuckDB's Parquet writer cuts row groups at whole vectors: ROW_GROUP_SIZE 10000 gives 10,240 rows.
DUCKDB_VECTOR_ROWS = 2048
# Keeps every intermediate of the row hash below 2**63 (id * HASH_MULTIPLIER < 2**63).
MAX_ROWS = 2**31
MAX_SEED = 2**31 - 1
HASH_PRIME = 2_147_483_647  # 2**31 - 1, so squares of residues fit in a signed 64-bit integer
HASH_MULTIPLIER = 2_654_435_761
START_MICROS = 1_704_067_200_000_000  # 2024-01-01T00:00:00Z
STEP_MICROS = 250_000  # mean gap between two events; each event is jittered within its step
MAX_INCIDENT_ROWS = 50  # string statuses per incident window: rare, inside one row group

EVENT_TYPES: tuple[tuple[str, int], ...] = (
    ("view", 60),
    ("click", 25),
    ("purchase", 8),
    ("signup", 5),
    ("error", 2),
)
COUNTRIES: tuple[tuple[str, int], ...] = (
    ("US", 35),
    ("IN", 15),
    ("DE", 10),
    ("GB", 10),
    ("BR", 8),
    ("FR", 7),
    ("JP", 6),
    ("CA", 5),
    ("AU", 4),
)
PLANS: tuple[tuple[str, int], ...] = (("free", 70), ("pro", 25), ("enterprise", 5))
OPERATING_SYSTEMS: tuple[tuple[str, int], ...] = (
    ("android", 40),
    ("ios", 30),
    ("windows", 18),
    ("macos", 9),
    ("linux", 3),
)
# Apple devices always get safari; these are the others'.
BROWSERS: tuple[tuple[str, int], ...] = (("chrome", 65), ("firefox", 20), ("edge", 15))
TAGS: tuple[str, ...] = (
    "promo",
    "returning",
    "newsletter",
    "beta",
    "vip",
    "ab-test:a",
    "ab-test:b",
    "mobile-app",
)
TAG_COUNTS: tuple[tuple[int, int], ...] = ((0, 15), (1, 40), (2, 30), (3, 15))
STATUS_CODES: tuple[tuple[int, int], ...] = ((200, 88), (201, 3), (301, 1), (404, 5), (429, 1), (500, 2))
STATUS_STRINGS: tuple[str, ...] = ("n/a", "timeout")
REFERRERS: tuple[str, ...] = ("direct", "google", "newsletter", "twitter")
ELEMENTS: tuple[str, ...] = ("button#buy", "a.nav-home", "img.hero", "button#signup")
CURRENCIES: tuple[str, ...] = ("USD", "EUR", "GBP")
SIGNUP_METHODS: tuple[str, ...] = ("email", "google", "github")
ERROR_MESSAGES: tuple[str, ...] = ("upstream timeout", "card declined", "rate limited", "internal error")

DUCKDB_SHREDDING = (
    'STRUCT(ts TIMESTAMPTZ, type VARCHAR, "user" STRUCT(id BIGINT, country VARCHAR, plan VARCHAR), '
    "device STRUCT(os VARCHAR, browser VARCHAR, mobile BOOLEAN), amount DECIMAL(10,2), "
    "tags VARCHAR[], status BIGINT)"
)
SPARK_SHREDDING = (
    "ts timestamp, type string, user struct<id: bigint, country: string, plan: string>, "
    "device struct<os: string, browser: string, mobile: boolean>, amount decimal(10,2), "
    "tags array<string>, status bigint"
)

# Leaves under `event.typed_value`, named by their Parquet path without the final
# `.typed_value` / `.value`. Every row has the DENSE ones; `amount` only purchases; `tags`
# counts list elements.
DENSE_FIELDS: tuple[str, ...] = (
    "ts",
    "type",
    "user.typed_value.id",
    "user.typed_value.country",
    "user.typed_value.plan",
    "device.typed_value.os",
    "device.typed_value.browser",
    "device.typed_value.mobile",
    "status",
)
SPARSE_FIELDS: tuple[str, ...] = ("amount", "tags.typed_value.list.element")
GROUP_FIELDS: tuple[str, ...] = ("user", "device", "tags")

# One pseudo-random stream per draw, each hashed from (id, seed, stream number).
_STREAMS: tuple[str, ...] = (
    "jitter",
    "type",
    "tier",
    "user",
    "os",
    "browser",
    "ntags",
    "tag",
    "tagstep",
    "amount",
    "status",
    "p1",
    "p2",
    "p3",
)


class SampleError(VpushError):
    """Sample data that could not be written, or that is not shredded as promised."""


@dataclass(frozen=True)
class EventsSpec:
    """What to generate: a pure description, so that the same spec gives the same rows.

    Example:
        >>> spec = EventsSpec(rows=10_000, files=2, row_group_rows=2000, seed=7)
        >>> spec.file_bounds()
        [(0, 5000), (5000, 10000)]
        >>> spec.effective_row_group_rows()
        2048
        >>> spec.expected_row_groups()[:3]
        [(0, 2048), (2048, 4096), (4096, 5000)]
        >>> spec.incident_windows()
        ((4523, 4573),)
    """

    rows: int
    files: int = 1
    row_group_rows: int = DEFAULT_ROW_GROUP_ROWS
    writer: Writer = "duckdb"
    seed: int = 0
    payload: bool = True

    def __post_init__(self) -> None:
        if not 1 <= self.rows <= MAX_ROWS:
            raise SampleError(f"--rows must be between 1 and {MAX_ROWS:,}, got {self.rows:,}")
        if not 1 <= self.files <= self.rows:
            raise SampleError(f"--files must be between 1 and --rows ({self.rows:,}), got {self.files:,}")
        if self.row_group_rows < 1:
            raise SampleError(f"--row-group-rows must be positive, got {self.row_group_rows:,}")
        if not 0 <= self.seed <= MAX_SEED:
            raise SampleError(f"--seed must be between 0 and {MAX_SEED:,}, got {self.seed:,}")
        if self.writer not in WRITERS:
            raise SampleError(f"unknown writer {self.writer!r}; choose one of {', '.join(WRITERS)}")

    def file_bounds(self) -> list[tuple[int, int]]:
        """The ``[start, stop)`` id range of each file; Spark's ``range`` splits the same way."""
        return [(i * self.rows // self.files, (i + 1) * self.rows // self.files) for i in range(self.files)]

    def effective_row_group_rows(self) -> int:
        """Rows per full row group that the writer will really produce."""
        if self.writer == "duckdb":
            return -(-self.row_group_rows // DUCKDB_VECTOR_ROWS) * DUCKDB_VECTOR_ROWS
        return self.row_group_rows

    def expected_row_groups(self) -> list[tuple[int, int]]:
        """The ``[start, stop)`` id range of every row group, file after file."""
        size = self.effective_row_group_rows()
        return [
            (lo, min(lo + size, stop))
            for start, stop in self.file_bounds()
            for lo in range(start, stop, size)
        ]

    def incident_windows(self) -> tuple[tuple[int, int], ...]:
        """Id ranges ``[start, stop)`` whose ``status`` is a string instead of an integer.

        One to three windows, each in the middle of a seed-chosen row group and at most a tenth of
        it wide, so that the strings land in that row group's residual ``status.value`` only.
        """
        groups = self.expected_row_groups()
        count = min(3, max(1, len(groups) // 8))
        chosen = sorted(random.Random(self.seed).sample(range(len(groups)), count))
        windows = []
        for index in chosen:
            lo, hi = groups[index]
            width = max(1, min(MAX_INCIDENT_ROWS, (hi - lo) // 10))
            start = lo + (hi - lo - width) // 2
            windows.append((start, start + width))
        return tuple(windows)


@dataclass(frozen=True)
class LeafCounts:
    """Non-null and null slots of one Parquet leaf, summed over row groups (footer statistics)."""

    non_null: int
    nulls: int


@dataclass(frozen=True)
class ShreddingReport:
    """What the footers say about how well ``event`` is shredded.

    ``leaves`` maps each leaf path (``event.typed_value.ts.typed_value`` ...) to its counts;
    ``status_row_groups`` lists the ``(file name, row_group)`` pairs whose ``status.value`` holds
    residual strings.
    """

    row_groups: int
    leaves: dict[str, LeafCounts]
    status_row_groups: tuple[tuple[str, int], ...]


@dataclass(frozen=True)
class SampleResult:
    """Files written by :func:`write_events`, with the checks made on them."""

    spec: EventsSpec
    files: tuple[Path, ...]
    seconds: float
    report: ShreddingReport


# ----------------------------------------------------------------------------- SQL generation


def _sql_string(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _choice(expr: str, weighted: Sequence[tuple[str, int]]) -> str:
    """A CASE picking among weighted SQL expressions by ``expr % 100`` (weights sum to 100)."""
    total = sum(weight for _, weight in weighted)
    if total != 100:
        raise ValueError(f"weights must add up to 100, got {total}")
    parts = []
    bound = 0
    for sql, weight in weighted[:-1]:
        bound += weight
        parts.append(f"WHEN {expr} % 100 < {bound} THEN {sql}")
    return f"CASE {' '.join(parts)} ELSE {weighted[-1][0]} END"


def _pick(expr: str, options: Sequence[str]) -> str:
    """A CASE picking among string literals uniformly by ``expr % len(options)``."""
    whens = " ".join(f"WHEN {i} THEN {_sql_string(o)}" for i, o in enumerate(options[:-1]))
    return f"CASE {expr} % {len(options)} {whens} ELSE {_sql_string(options[-1])} END"


def _strings(weighted: Sequence[tuple[str, int]]) -> list[tuple[str, int]]:
    return [(_sql_string(name), weight) for name, weight in weighted]


def _struct(dialect: Dialect, fields: Sequence[tuple[str, str]]) -> str:
    if dialect == "duckdb":
        return "{" + ", ".join(f"{_sql_string(k)}: {v}" for k, v in fields) + "}"
    return "named_struct(" + ", ".join(f"{_sql_string(k)}, {v}" for k, v in fields) + ")"


def _object(dialect: Dialect, fields: Sequence[tuple[str, str]]) -> str:
    """A Variant object with exactly these keys (a NULL field would become a variant null)."""
    if dialect == "duckdb":
        return f"CAST({_struct(dialect, fields)} AS VARIANT)"
    return f"to_variant_object({_struct(dialect, fields)})"


def _string_list(dialect: Dialect, items: Sequence[str]) -> str:
    if dialect == "duckdb":
        return f"list_value({', '.join(items)})" if items else "CAST([] AS VARCHAR[])"
    return f"array({', '.join(items)})" if items else "CAST(array() AS ARRAY<STRING>)"


def _hash_rounds(key: str, seed: int) -> list[str]:
    """Three SELECT lists that turn ``key`` into one 31-bit hash per stream.

    Round one is affine in the key; rounds two and three square modulo a prime, which makes the
    streams nonlinear in the key so that draws of neighbouring rows, and of different streams of
    one row, do not line up. Every intermediate stays below 2**63 (see MAX_ROWS).
    """
    first = []
    for number, name in enumerate(_STREAMS):
        offset = (seed * 40_503 + (number + 1) * 97_531 + 1) % HASH_PRIME
        first.append(f"({key} * {HASH_MULTIPLIER} + {offset}) % {HASH_PRIME} AS r_{name}")
    second = [f"(r_{n} * r_{n} + 12345) % {HASH_PRIME} AS r_{n}" for n in _STREAMS]
    third = [f"(r_{n} * r_{n} + 67891) % {HASH_PRIME} AS r_{n}" for n in _STREAMS]
    return [", ".join(first), ", ".join(second), ", ".join(third)]


def _user_hash(expr: str, salt: int) -> str:
    # Country and plan belong to the user, not to the event: hash the user id.
    return f"(((({expr}) * {HASH_MULTIPLIER} + {salt}) % {HASH_PRIME}) % 100)"


def events_sql(spec: EventsSpec, dialect: Dialect, start: int, stop: int) -> str:
    """The SELECT that yields rows ``start <= id < stop`` of the event log, as ``(id, event)``.

    The same text runs on DuckDB and Spark but for the few spellings that differ (struct and list
    builders, the timestamp constructor, the row source), so both produce the same values.

    Example:
        >>> import duckdb
        >>> spec = EventsSpec(rows=100, seed=3)
        >>> duckdb.sql(events_sql(spec, "duckdb", 0, 100)).aggregate(
        ...     "count(*), min(id), max(id), any_value(typeof(event))").fetchall()
        [(100, 0, 99, 'VARIANT')]

    Args:
        spec: What to generate; ``seed``, ``payload`` and the incident windows matter here.
        dialect: ``"duckdb"`` or ``"spark"``.
        start: First id (inclusive).
        stop: Last id (exclusive).

    Returns:
        SQL text.
    """
    hashed = _hash_rounds("id", spec.seed)
    if dialect == "duckdb":
        source = f"range({start}, {stop}) AS r(id)"
        timestamp = "make_timestamptz(ts_us)"
    else:
        source = f"range({start}, {stop}, 1, {spec.files})"
        timestamp = "timestamp_micros(ts_us)"
    windows = spec.incident_windows()
    in_incident = " OR ".join(f"(id >= {lo} AND id < {hi})" for lo, hi in windows) or "FALSE"

    user_id = "CASE WHEN r_tier % 10 < 3 THEN 100000 + r_user % 500 ELSE 100000 + r_user % 50000 END"
    stage_scalars = f"""
        SELECT id,
          {START_MICROS} + id * {STEP_MICROS} + r_jitter % {STEP_MICROS} AS ts_us,
          {_choice("r_type", _strings(EVENT_TYPES))} AS event_type,
          CAST({user_id} AS BIGINT) AS user_id,
          {_choice("r_os", _strings(OPERATING_SYSTEMS))} AS os,
          {_choice("r_browser", _strings(BROWSERS))} AS other_browser,
          {_choice("r_ntags", [(str(n), w) for n, w in TAG_COUNTS])} AS ntags,
          r_tag % {len(TAGS)} AS tag0,
          CASE r_tagstep % 4 WHEN 0 THEN 1 WHEN 1 THEN 3 WHEN 2 THEN 5 ELSE 7 END AS tagstep,
          99 + r_amount % 49900 AS cents,
          r_status, r_p1, r_p2, r_p3,
          {in_incident} AS in_incident
        FROM (SELECT id, {hashed[2]} FROM (SELECT id, {hashed[1]} FROM (
          SELECT id, {hashed[0]} FROM {source}) AS h1) AS h2) AS h3"""

    tags = [_pick(f"(tag0 + {k} * tagstep)", TAGS) for k in range(3)]
    status_int = (
        "CASE WHEN event_type = 'error' THEN CASE WHEN r_status % 2 = 0 THEN 500 ELSE 503 END "
        f"ELSE {_choice('r_status', [(str(c), w) for c, w in STATUS_CODES])} END"
    )
    payload_by_type = {
        "view": [
            ("referrer", _pick("r_p1", REFERRERS)),
            ("page", "'/products/' || CAST(r_p2 % 500 AS STRING)"),
            ("duration_ms", "r_p3 % 30000"),
        ],
        "click": [("element", _pick("r_p1", ELEMENTS)), ("x", "r_p2 % 1920"), ("y", "r_p3 % 1080")],
        "purchase": [
            ("sku", "'SKU-' || lpad(CAST(r_p1 % 100000 AS STRING), 5, '0')"),
            ("qty", "1 + r_p2 % 5"),
            ("currency", _pick("r_p3", CURRENCIES)),
        ],
        "signup": [("method", _pick("r_p1", SIGNUP_METHODS)), ("newsletter", "r_p2 % 2 = 0")],
        "error": [
            ("code", "'E' || CAST(1000 + r_p1 % 50 AS STRING)"),
            ("message", _pick("r_p2", ERROR_MESSAGES)),
            ("retryable", "r_p3 % 3 = 0"),
        ],
    }
    payload_whens = " ".join(
        f"WHEN {_sql_string(name)} THEN {_object(dialect, fields)}"
        for name, fields in payload_by_type.items()
    )
    stage_values = f"""
        SELECT id, event_type,
          {timestamp} AS ts,
          user_id,
          {_choice(_user_hash("user_id", 11), _strings(COUNTRIES))} AS country,
          {_choice(_user_hash("user_id", 29), _strings(PLANS))} AS plan,
          os,
          CASE WHEN os IN ('ios', 'macos') THEN 'safari' ELSE other_browser END AS browser,
          os IN ('android', 'ios') AS mobile,
          CASE ntags WHEN 0 THEN {_string_list(dialect, [])}
            WHEN 1 THEN {_string_list(dialect, tags[:1])}
            WHEN 2 THEN {_string_list(dialect, tags[:2])}
            ELSE {_string_list(dialect, tags)} END AS tags,
          CAST(CAST(cents AS DECIMAL(10,0)) * 0.01 AS DECIMAL(10,2)) AS amount,
          CASE WHEN in_incident THEN CAST({_pick("r_status", STATUS_STRINGS)} AS VARIANT)
            ELSE CAST(CAST({status_int} AS BIGINT) AS VARIANT) END AS status,
          CASE event_type {payload_whens} END AS payload
        FROM ({stage_scalars}) AS s"""

    common = [
        ("ts", "ts"),
        ("type", "event_type"),
        ("user", _struct(dialect, [("id", "user_id"), ("country", "country"), ("plan", "plan")])),
        ("device", _struct(dialect, [("os", "os"), ("browser", "browser"), ("mobile", "mobile")])),
        ("tags", "tags"),
        ("status", "status"),
    ]
    if spec.payload:
        common.append(("payload", "payload"))
    # Two shapes, so that `amount` is missing (not a variant null) outside purchases.
    purchase = _object(dialect, [*common[:2], ("amount", "amount"), *common[2:]])
    other = _object(dialect, common)
    return f"""SELECT id,
          CASE WHEN event_type = 'purchase' THEN {purchase} ELSE {other} END AS event
        FROM ({stage_values}) AS v"""


# ----------------------------------------------------------------------------- writers


_SPARK_STAGING = "_spark_staging"


def _is_ours(entry: Path) -> bool:
    if entry.name == _SPARK_STAGING:
        return entry.is_dir()
    return entry.is_file() and entry.name.startswith("part-") and entry.name.endswith(".parquet")


def _prepare_folder(out: Path, overwrite: bool) -> None:
    if out.exists() and not out.is_dir():
        raise SampleError("output exists and is not a folder", file=str(out))
    if not out.exists():
        out.mkdir(parents=True)
        return
    entries = list(out.iterdir())
    if not entries:
        return
    if not overwrite:
        raise SampleError(f"output folder {out} is not empty; pass --overwrite to replace its sample files")
    others = sorted(entry.name for entry in entries if not _is_ours(entry))
    if others:
        # Never delete what we did not write: only part-*.parquet files (and Spark's staging
        # folder, left by an interrupted run) are ours.
        raise SampleError(
            f"output folder {out} holds files that are not sample parts: {', '.join(others[:3])}"
        )
    for entry in entries:
        if entry.is_dir():
            shutil.rmtree(entry)
        else:
            entry.unlink()


def _part_name(index: int) -> str:
    return f"part-{index:05d}.parquet"


def _write_duckdb(
    spec: EventsSpec,
    out: Path,
    connection: duckdb.DuckDBPyConnection | None,
    on_file_written: Callable[[int, int], None] | None,
) -> list[Path]:
    import duckdb

    con = connection if connection is not None else duckdb.connect()
    if connection is None:
        try:
            con.execute("SET enable_progress_bar = false")
        except duckdb.Error:
            pass  # in Jupyter without ipywidgets DuckDB refuses to touch the setting; no bar then
    files = []
    try:
        for index, (start, stop) in enumerate(spec.file_bounds()):
            path = out / _part_name(index)
            options = (
                f"FORMAT parquet, SHREDDING {{event: {_sql_string(DUCKDB_SHREDDING)}}}, "
                f"ROW_GROUP_SIZE {spec.row_group_rows}"
            )
            con.execute(
                f"COPY ({events_sql(spec, 'duckdb', start, stop)}) TO {_sql_string(str(path))} ({options})"
            )
            files.append(path)
            if on_file_written is not None:
                on_file_written(index + 1, spec.files)
    except duckdb.Error as exc:
        raise SampleError(f"DuckDB could not write the sample: {exc}", file=str(out)) from exc
    finally:
        if connection is None:
            con.close()
    return files


# The session settings the Spark writer changes, restored afterwards: a caller's (or a test's)
# shared session must not keep writing every variant with our schema.
_SPARK_WRITE_CONF = {
    "spark.sql.variant.writeShredding.enabled": "true",
    "spark.sql.variant.forceShreddingSchemaForTest": SPARK_SHREDDING,
    "spark.sql.parquet.variant.annotateLogicalType.enabled": "true",
}


# Only errors from the JVM's logs reach the terminal: Spark's own default prints every WARN.
def local_spark(app_name: str = "vpush-sample", conf: Mapping[str, str] | None = None) -> SparkSession:
    """:func:`vpush.exec.spark_session.local_spark`, its failures as :class:`SampleError`."""
    from vpush.exec.errors import ExecutionError
    from vpush.exec.spark_session import local_spark as start

    try:
        return start(app_name, conf)
    except ExecutionError as exc:
        raise SampleError(exc.message) from exc.__cause__


def _write_spark(
    spec: EventsSpec,
    out: Path,
    spark: SparkSession | None,
    on_file_written: Callable[[int, int], None] | None,
) -> list[Path]:
    session = spark if spark is not None else local_spark()
    staging = out / _SPARK_STAGING
    saved = {key: session.conf.get(key, None) for key in _SPARK_WRITE_CONF}
    try:
        for key, value in _SPARK_WRITE_CONF.items():
            session.conf.set(key, value)
        frame = session.sql(events_sql(spec, "spark", 0, spec.rows))
        # Spark sizes row groups in bytes; parquet-java's row-count limit (read from the write
        # options, which reach the Hadoop configuration) cuts them at exactly this many rows.
        (
            frame.write.mode("overwrite")
            .option("parquet.block.row.count.limit", str(spec.row_group_rows))
            .parquet(str(staging))
        )
    except Exception as exc:  # AnalysisException, Py4JJavaError...: no common base class
        shutil.rmtree(staging, ignore_errors=True)
        first_line = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise SampleError(f"Spark could not write the sample: {first_line}", file=str(out)) from exc
    finally:
        for key, previous in saved.items():
            if previous is None:
                session.conf.unset(key)
            else:
                session.conf.set(key, previous)
    # range(0, rows, 1, files) makes one partition per file, in id order, and Spark names each
    # output after its partition number: sorting the names keeps the id order.
    parts = sorted(staging.glob("part-*.parquet"))
    if len(parts) != spec.files:
        shutil.rmtree(staging, ignore_errors=True)
        raise SampleError(f"Spark wrote {len(parts)} files, expected {spec.files}", file=str(out))
    files = []
    for index, part in enumerate(parts):
        target = out / _part_name(index)
        part.replace(target)
        files.append(target)
        if on_file_written is not None:
            on_file_written(index + 1, spec.files)
    shutil.rmtree(staging)
    return files


# ----------------------------------------------------------------------------- checks


def _id_range(group: RowGroupMetaData, path: Path, rg: int) -> tuple[int, int]:
    """The smallest and largest ``id`` of a row group, from its footer statistics."""
    for c in range(group.num_columns):
        column = group.column(c)
        if column.path_in_schema == "id":
            stats = column.statistics
            if stats is None or not stats.has_min_max:
                raise SampleError(
                    f"no min/max statistics in row_group {rg}", file=str(path), column_path="id"
                )
            return int(stats.min), int(stats.max)
    raise SampleError("column id is missing", file=str(path), column_path="id")


def _check_row_group(
    path: Path, rg: int, group: RowGroupMetaData, spec: EventsSpec, in_window: bool
) -> dict[str, tuple[int, int]]:
    """Per-leaf (non-null, null) counts of one row group, after checking the shredding rules."""
    counts: dict[str, tuple[int, int]] = {}
    for c in range(group.num_columns):
        column = group.column(c)
        stats = column.statistics
        if stats is None or not stats.has_null_count:
            raise SampleError(
                f"no null_count statistics in row_group {rg}",
                file=str(path),
                column_path=column.path_in_schema,
            )
        # statistics.num_values counts non-null slots (under a list: elements, not rows).
        counts[column.path_in_schema] = (int(stats.num_values), int(stats.null_count))

    def leaf(name: str) -> tuple[int, int]:
        if name not in counts:
            raise SampleError("leaf missing from the shredded schema", file=str(path), column_path=name)
        return counts[name]

    def fail(message: str, name: str) -> SampleError:
        return SampleError(f"{message} in row_group {rg}", file=str(path), column_path=name)

    for field in (*DENSE_FIELDS, *SPARSE_FIELDS, *GROUP_FIELDS):
        name = f"event.typed_value.{field}.value"
        non_null, _ = leaf(name)
        if field == "status":
            if in_window and not non_null:
                raise fail("status strings of an incident window are not in the residual", name)
            if non_null and not in_window:
                raise fail(f"{non_null} unexpected residual values", name)
        elif non_null:
            # DuckDB shreds only exact type matches: a value built with another SQL type lands here.
            raise fail(f"not shredded: {non_null} values fell back to the residual", name)
    for field in DENSE_FIELDS:
        name = f"event.typed_value.{field}.typed_value"
        _, nulls = leaf(name)
        if nulls and not (field == "status" and in_window):
            raise fail(f"{nulls} rows missing from a field every event has", name)
    for field in SPARSE_FIELDS:
        leaf(f"event.typed_value.{field}.typed_value")
    non_null, nulls = leaf("event.value")
    if spec.payload and nulls:
        raise fail(f"{nulls} rows have no payload in the residual", "event.value")
    if not spec.payload and non_null:
        raise fail(f"{non_null} rows have a residual though there is no payload", "event.value")
    return counts


def check_events(files: Sequence[Path], spec: EventsSpec) -> ShreddingReport:
    """Check from the footers that ``event`` is annotated and shredded as intended.

    Rules, per row group: every residual ``value`` leaf under ``typed_value`` is all-null except
    ``status.value``, which is non-null exactly where the ids meet an incident window; the leaves
    every event has (``ts``, ``type``, ``user.*``, ``device.*``, ``status``) have no null
    ``typed_value`` outside those windows; the top-level ``value`` is non-null in every row when
    there is a payload and null in every row when there is none.

    Example:
        >>> import tempfile
        >>> folder = Path(tempfile.mkdtemp())
        >>> spec = EventsSpec(rows=3000, seed=1)
        >>> files = write_events(folder, spec).files
        >>> check_events(files, spec).status_row_groups
        (('part-00000.parquet', 0),)
        >>> shutil.rmtree(folder)

    Args:
        files: Parquet files written for ``spec``, in id order.
        spec: What was asked for.

    Returns:
        Per-leaf counts summed over all row groups, and where the status residuals are.

    Raises:
        SampleError: naming the file, row group and leaf that breaks a rule.
    """
    import pyarrow.parquet as pq

    windows = spec.incident_windows()
    totals: dict[str, tuple[int, int]] = {}
    status_groups: list[tuple[str, int]] = []
    row_groups = 0
    for path in files:
        parquet = pq.ParquetFile(path)
        if "event (Variant(" not in str(parquet.schema):
            raise SampleError("not annotated as Variant", file=str(path), column_path="event")
        metadata = parquet.metadata
        for rg in range(metadata.num_row_groups):
            group = metadata.row_group(rg)
            lo, hi = _id_range(group, path, rg)
            in_window = any(start <= hi and lo < stop for start, stop in windows)
            counts = _check_row_group(path, rg, group, spec, in_window)
            for name, (non_null, nulls) in counts.items():
                seen = totals.get(name, (0, 0))
                totals[name] = (seen[0] + non_null, seen[1] + nulls)
            if counts["event.typed_value.status.value"][0]:
                status_groups.append((path.name, rg))
            row_groups += 1
    return ShreddingReport(
        row_groups=row_groups,
        leaves={name: LeafCounts(non_null=n, nulls=z) for name, (n, z) in totals.items()},
        status_row_groups=tuple(status_groups),
    )


def write_events(
    out: str | Path,
    spec: EventsSpec,
    *,
    overwrite: bool = False,
    connection: duckdb.DuckDBPyConnection | None = None,
    spark: SparkSession | None = None,
    on_file_written: Callable[[int, int], None] | None = None,
) -> SampleResult:
    """Write the event log described by ``spec`` into the folder ``out``, then check it.

    Example:
        >>> import tempfile
        >>> folder = Path(tempfile.mkdtemp()) / "events"
        >>> result = write_events(folder, EventsSpec(rows=5000, files=2, row_group_rows=2048))
        >>> [p.name for p in result.files], result.report.row_groups
        (['part-00000.parquet', 'part-00001.parquet'], 4)
        >>> result.report.leaves["event.typed_value.ts.value"]
        LeafCounts(non_null=0, nulls=5000)
        >>> shutil.rmtree(folder.parent)

    Args:
        out: Folder to create (or an empty one); files are named ``part-00000.parquet`` ...
        spec: What to generate.
        overwrite: Replace the ``part-*.parquet`` files of a non-empty ``out``.
        connection: DuckDB connection to use (DuckDB writer); a private one by default.
        spark: Spark session to use (Spark writer); a quiet local one by default.
        on_file_written: Called with (files done, files in all) after each file.

    Returns:
        The files, the time taken and the footer report.

    Raises:
        SampleError: bad arguments, a writer failure, or data that is not shredded as intended.
    """
    folder = Path(out)
    _prepare_folder(folder, overwrite)
    began = time.perf_counter()
    if spec.writer == "duckdb":
        files = _write_duckdb(spec, folder, connection, on_file_written)
    else:
        files = _write_spark(spec, folder, spark, on_file_written)
    seconds = time.perf_counter() - began
    report = check_events(files, spec)
    return SampleResult(spec=spec, files=tuple(files), seconds=seconds, report=report)
