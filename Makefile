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

$(STAMP): pyproject.toml setup.py codec/_native.c
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[spark,test]'
	touch $(STAMP)

setup: $(STAMP)

test: setup
	$(PY) -m pytest $(PYTEST_ARGS)

test-full: setup
	VPUSH_HYPOTHESIS_PROFILE=full $(PY) -m pytest $(PYTEST_ARGS)

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

# Every benchmark runs even if an earlier one misses its target; the target fails if any does.
# bench/queries.py runs twice: on the log with the unshredded payload (targets against the lower
# bound) and without it (where DuckDB's own fast path works; targets against DuckDB too).
bench: setup
	status=0; \
	$(PY) bench/unshred_throughput.py || status=1; \
	$(PY) bench/pruning.py || status=1; \
	$(PY) bench/queries.py || status=1; \
	$(PY) bench/queries.py --no-payload || status=1; \
	exit $$status

lint: setup
	$(PY) -m mypy vpush codec optimizer exec

clean:
	rm -rf build .pytest_cache .mypy_cache .hypothesis
