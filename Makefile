# Etude — two commands on a fresh Debian/Ubuntu machine:  make demo   and   make test
SHELL := /bin/bash
SWIFT ?= swift
CORPUS ?= ../shared/corpus/jazz-soft
FUZZ_SECONDS ?= 180
DEMO_LESSON ?= Lessons/level4/ode-to-joy.mid
# Tests that check real-time audio for underruns: run on their own after the main suite.
# `make test` ends with the tests skipped (a tool or the corpus missing) and why: Tests/skipped.awk.
LIVE_TESTS := playsThroughPulseAudioForReal

# make install: where things go (DESTDIR is prepended to every path, for staging and packaging).
PREFIX ?= /usr/local
DESTDIR ?=
BINDIR ?= $(PREFIX)/bin
DATADIR ?= $(PREFIX)/share
MANDIR ?= $(DATADIR)/man
BASH_COMPLETION_DIR ?= $(DATADIR)/bash-completion/completions
ZSH_COMPLETION_DIR ?= $(DATADIR)/zsh/site-functions
FISH_COMPLETION_DIR ?= $(DATADIR)/fish/vendor_completions.d
# make deb writes dist/etude_VERSION_ARCH.deb, compressed by dpkg-deb with xz (gzip: 5 times faster, 50 % larger)
DEB_DIR ?= dist
DEB_COMPRESSION ?= xz
# The one release build install and deb copy from (scripts/stage.sh), redone only when a source changed.
STAGE := .build/stage
STAGE_INPUTS := Package.swift $(wildcard Package.resolved) scripts/stage.sh $(shell find Sources -type f)
INSTALL_ENV = DESTDIR="$(DESTDIR)" PREFIX="$(PREFIX)" BINDIR="$(BINDIR)" DATADIR="$(DATADIR)" MANDIR="$(MANDIR)" \
	BASH_COMPLETION_DIR="$(BASH_COMPLETION_DIR)" ZSH_COMPLETION_DIR="$(ZSH_COMPLETION_DIR)" \
	FISH_COMPLETION_DIR="$(FISH_COMPLETION_DIR)" STAGE="$(STAGE)"

.PHONY: all deps deps-test build release demo test crosscheck fuzz bench clean stage install uninstall deb

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
	@# InstallTests install and package this release build; staged here, as a test cannot build it.
	@$(MAKE) --no-print-directory stage
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

bench:
	@bash scripts/install-deps.sh --bench
	@bash scripts/bench.sh $(CORPUS)

stage: $(STAGE)/etude

$(STAGE)/etude: $(STAGE_INPUTS)
	@bash scripts/install-deps.sh
	@SWIFT="$(SWIFT)" bash scripts/stage.sh $(STAGE)

install: stage
	@$(INSTALL_ENV) bash scripts/install.sh install

uninstall:
	@$(INSTALL_ENV) bash scripts/install.sh uninstall

deb: stage
	@bash scripts/install-deps.sh --deb
	@STAGE="$(STAGE)" DEB_COMPRESSION="$(DEB_COMPRESSION)" bash scripts/deb.sh "$(DEB_DIR)"

clean:
	rm -rf .build .build-* .fuzz dist
