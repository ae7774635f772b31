# Etude — two commands on a fresh Debian/Ubuntu machine:  make demo   and   make test
SHELL := /bin/bash
SWIFT ?= swift
CORPUS ?= ../shared/corpus/jazz-soft
FUZZ_SECONDS ?= 180
DEMO_LESSON ?= Lessons/level4/ode-to-joy.mid
# Tests that check real-time audio for underruns: run on their own after the main suite.
# `make test` ends with the tests skipped (a tool or the corpus missing) and why: Tests/skipped.awk.
LIVE_TESTS := playsThroughPulseAudioForReal

.PHONY: all deps deps-test build release demo test crosscheck fuzz bench clean

all: build

deps:
	@bash scripts/install-deps.sh

deps-test:
	@bash scripts/install-deps.sh --test

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release

demo: build
	@lesson="$(DEMO_LESSON)"; [ -f "$$lesson" ] || lesson=$$(ls Lessons/*/*.mid Lessons/*.mid 2>/dev/null | head -n 1); \
	echo "Playing $$lesson (q quits)"; \
	.build/debug/etude play "$$lesson"

test: deps-test
	$(SWIFT) build --build-tests
	@py=$$(bash scripts/peer-venv.sh); \
	ETUDE_PEER_PYTHON="$$py" ETUDE_CORPUS="$(abspath $(CORPUS))" $(SWIFT) test --skip-build --skip "$(LIVE_TESTS)" 2>&1 | tee .build/test.log; \
	status=$${PIPESTATUS[0]}; [ $$status -eq 0 ] || exit $$status; \
	echo "== live audio tests, alone so a busy machine cannot cause underruns =="; \
	$(SWIFT) test --skip-build --filter "$(LIVE_TESTS)" 2>&1 | tee .build/test-live.log; \
	status=$${PIPESTATUS[0]}; [ $$status -eq 0 ] || exit $$status; \
	if [ -n "$$py" ]; then "$$py" Tests/peers/mido_crosscheck.py .build/debug/etude $(CORPUS)/*.mid | tail -n 25; \
	else echo "mido cross-check skipped: no peer venv (see the reason above)"; fi; \
	awk -f Tests/skipped.awk .build/test.log .build/test-live.log

crosscheck: build
	@py=$$(bash scripts/peer-venv.sh); [ -n "$$py" ] && "$$py" Tests/peers/mido_crosscheck.py .build/debug/etude $(CORPUS)/*.mid

fuzz: deps
	@bash scripts/fuzz.sh $(FUZZ_SECONDS) $(CORPUS)

bench: deps-test
	@bash scripts/bench.sh $(CORPUS)

clean:
	rm -rf .build .build-* .fuzz
