# vpush: the two commands a user needs are `make demo` and `make test` (see README.md).
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
VPUSH := $(VENV)/bin/vpush
STAMP := $(VENV)/.installed
DEMO_DIR ?= build/demo/events
DEMO_ROWS ?= 200000
PYTEST_ARGS ?=

.PHONY: setup test test-full demo bench lint clean

$(STAMP): pyproject.toml setup.py codec/_native.c codec/strict_math.c codec/strict_math.h codec/spark_datetime.c codec/spark_datetime.h \
		codec/spark_datetime_format.c codec/spark_datetime_format.h codec/json_path.c codec/json_path.h codec/json_reader.h codec/from_json.c codec/from_json.h \
		codec/spark_hash.c codec/spark_hash.h codec/spark_conv.c codec/spark_conv.h codec/spark_hll.c codec/spark_hll.h \
		codec/spark_hll_tables.h codec/spark_aggregates.c codec/spark_aggregates.h
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[spark,test,bench]'
	touch $(STAMP)

setup: $(STAMP)

test: setup
	$(PY) -m pytest $(PYTEST_ARGS)

test-full: setup
	VPUSH_TEST_FULL=1 VPUSH_HYPOTHESIS_PROFILE=full VPUSH_FUZZ_EXAMPLES=300 $(PY) -m pytest $(PYTEST_ARGS)

demo: setup
	$(VPUSH) sample events $(DEMO_DIR) --rows $(DEMO_ROWS) --files 4 --overwrite
	$(VPUSH) query --table events=$(DEMO_DIR) \
	  "SELECT count(*) AS events, min(id) AS first_id, max(id) AS last_id FROM events"
	$(VPUSH) query --table events=$(DEMO_DIR) --limit 5 \
	  "SELECT id, event FROM events ORDER BY id LIMIT 5"
	$(VPUSH) query --table events=$(DEMO_DIR) \
	  "SELECT event:type::string AS type, count(*) AS events, sum(event:amount::decimal(10,2)) AS revenue \
	   FROM events GROUP BY event:type::string ORDER BY events DESC"
	$(VPUSH) explain --table events=$(DEMO_DIR) \
	  "SELECT count(*) FROM events WHERE event:ts::timestamp < TIMESTAMP '2024-01-01 01:00:00'"

# The benchmark suite (README, "Benchmarks"): every part runs even if an earlier one misses its
# target; the target fails if any does. Data are generated once under build/bench and reused.
# bench/queries.py runs twice: on the log with the unshredded payload (the full matrix, with the
# JSON-text baseline; targets against the lower bound) and without it (where DuckDB's own fast
# path works; targets against DuckDB too). bench/pruning.py reads the 5M log of bench/queries.py.
# bench/scale.py times a few queries at each size with each engine's peak memory, and writes the
# README's table and chart. bench/delta.py registers a sample log as a Delta table (Delta files
# skipped by the log's statistics).
BENCH_ROWS ?= 5000000
BENCH_SIZES ?= 1000000,5000000,20000000
CODEC_ROWS ?= 1000000

bench: setup
	status=0; began=$$(date +%s); \
	$(PY) bench/codec.py --rows $(CODEC_ROWS) || status=1; \
	$(PY) bench/scale.py --sizes $(BENCH_SIZES) || status=1; \
	$(PY) bench/pruning.py --rows $(BENCH_ROWS) --files 10 --row-group-rows $$(( $(BENCH_ROWS) / 50 )) \
	  --dir build/bench/queries --repeat 3 || status=1; \
	$(PY) bench/queries.py --rows $(BENCH_ROWS) || status=1; \
	$(PY) bench/queries.py --rows $(BENCH_ROWS) --no-payload --skip-json || status=1; \
	test -d build/bench/delta-events || $(VPUSH) sample events build/bench/delta-events --rows $(BENCH_ROWS) --files 10 \
	  || status=1; \
	$(PY) bench/delta.py --events build/bench/delta-events --table build/bench/delta --out docs/bench || status=1; \
	echo "make bench: $$(( $$(date +%s) - began )) s, load average $$(cut -d' ' -f1-3 /proc/loadavg)"; \
	exit $$status

# mypy reads the installed layout (vpush.codec is codec/, ...) from links, so that imports across
# the folders are typed rather than Any
TYPECHECK := build/typecheck
lint: setup
	rm -rf $(TYPECHECK)/vpush && mkdir -p $(TYPECHECK)/vpush
	for f in vpush/*.py; do ln -s "$(CURDIR)/$$f" $(TYPECHECK)/vpush/; done
	for d in codec optimizer exec; do ln -s "$(CURDIR)/$$d" $(TYPECHECK)/vpush/$$d; done
	cd $(TYPECHECK) && "$(CURDIR)/$(PY)" -m mypy --config-file "$(CURDIR)/pyproject.toml" -p vpush
	$(PY) -m mypy bench  # a run of its own: bench/codec.py would clash with the codec package

clean:
	rm -rf build .pytest_cache .mypy_cache .hypothesis
