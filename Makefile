# triage — build, set up, demo, test.
#   make demo   set up prerequisites, build, run the main job on the embedded default
#   make test   set up prerequisites, vet, run every test (Go, and the sandbox harness's pytest tests)
SHELL := /bin/bash
GO ?= go
PYTHON ?= /usr/bin/python3
BIN := bin/triage
OUT ?= out/demo
CKPT_CORPUS ?= out/full
export GOMLX_BACKEND ?= go:ops_sequential
export GOMLX_NO_AUTO_INSTALL := 1

.PHONY: all build demo test checkpoint prereqs check-go check-python check-node check-chromium check-postgres check-slurm check-uidmap bench generate clean

all: build

# The commit goes into the binary (and every checkpoint it trains) even where
# Go stamps no VCS information (GOFLAGS=-buildvcs=false, git worktrees).
LDFLAGS := -X main.buildCommit=$(shell git rev-parse HEAD 2>/dev/null) -X main.buildModified=$(shell git diff --quiet HEAD 2>/dev/null && echo false || echo true)

build: check-go
	$(GO) build -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/triage

# prereqs installs what can be installed (as root, through apt) and explains
# the rest.
prereqs: check-go check-python check-node check-chromium check-postgres check-slurm check-uidmap

check-go:
	@command -v $(GO) >/dev/null || { echo "Go >= 1.26 is required: https://go.dev/doc/install" >&2; exit 1; }
	@v=$$($(GO) env GOVERSION | sed 's/^go//'); major=$${v%%.*}; rest=$${v#*.}; minor=$${rest%%.*}; \
	 if [ "$$major" -lt 1 ] || { [ "$$major" -eq 1 ] && [ "$$minor" -lt 26 ]; }; then \
	   echo "Go >= 1.26 is required, found $$v" >&2; exit 1; fi

check-python:
	@if ! $(PYTHON) -c 'import pytest' 2>/dev/null; then \
	   if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	     echo "installing python3-pytest with apt-get" >&2; \
	     (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3 python3-pytest) >/dev/null || exit 1; \
	   else \
	     echo "$(PYTHON) with pytest is required: run 'apt-get install python3-pytest' as root, or set PYTHON=/path/to/python3 that has pytest" >&2; exit 1; \
	   fi; \
	 fi

# Node and npm read corpora back with DuckDB in the interop test; tests that
# need them skip with a reason when they are missing.
check-node:
	@command -v npm >/dev/null || { \
	   if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	     (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm) >/dev/null || echo "could not install nodejs/npm; DuckDB interop tests will skip" >&2; \
	   else echo "npm not found: DuckDB interop tests will skip" >&2; fi; }

# Chromium renders the HTML report in a test; that test skips without it.
check-chromium:
	@command -v chromium >/dev/null || { \
	   if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	     (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium) >/dev/null || echo "could not install chromium; the report render test will skip" >&2; \
	   else echo "chromium not found: the report render test will skip" >&2; fi; }

# PostgreSQL backs the session store's replica tests (each test starts its
# own server as the postgres user); they skip with a reason without it.
check-postgres:
	@ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || { \
	   if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	     (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql) >/dev/null || echo "could not install postgresql; the PostgreSQL store tests will skip" >&2; \
	   else echo "PostgreSQL (Debian's postgresql package) not found: the PostgreSQL store tests will skip" >&2; fi; }

# Slurm and munge run the Slurm cluster test (cmd/triage/deploy_slurm_test.go),
# which starts its own munged, slurmctld and slurmd in a temporary folder;
# it skips with a reason without them. Debian's packages enable (and, where
# services may start, start) system services: a fresh install stops and
# disables them, so nothing of theirs runs or starts at boot.
check-slurm:
	@command -v slurmctld >/dev/null && command -v slurmd >/dev/null && command -v munged >/dev/null || { \
	   if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	     if (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurm-wlm munge) >/dev/null; then \
	       for s in slurmctld slurmd munge; do \
	         if [ -d /run/systemd/system ]; then systemctl stop $$s.service >/dev/null 2>&1; \
	         else invoke-rc.d $$s stop >/dev/null 2>&1; fi; \
	         systemctl disable $$s.service >/dev/null 2>&1 || update-rc.d $$s disable >/dev/null 2>&1; \
	       done; true; \
	     else echo "could not install slurm-wlm/munge; the Slurm cluster test will skip" >&2; fi; \
	   else echo "slurm-wlm and munge not found: the Slurm cluster test will skip" >&2; fi; }

# The sandbox's Unprivileged test (search/sandbox/unprivileged_test.go) runs
# the hostile-program suites without privilege: as an account whose workers
# get user namespaces with a range of uids mapped by Debian's uidmap
# (newuidmap/newgidmap), and as root of a user namespace like a build pod,
# both under the shipped seccomp profile, which it installs with Debian's
# python3-seccomp. The account, triage-unpriv (no login, no home), gets
# 65536 subordinate uids and gids from 1500000000, far above the uids the
# sandbox gives runs as root. The test skips with a reason without them.
UNPRIV_USER := triage-unpriv
UNPRIV_SUBIDS := 1500000000-1500065535
check-uidmap:
	@{ command -v newuidmap && command -v newgidmap && /usr/bin/python3 -c 'import seccomp' && id -u $(UNPRIV_USER) && grep -q '^$(UNPRIV_USER):' /etc/subuid && grep -q '^$(UNPRIV_USER):' /etc/subgid; } >/dev/null 2>&1 || { \
	   if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	     (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq uidmap python3-seccomp) >/dev/null && \
	     { id -u $(UNPRIV_USER) >/dev/null 2>&1 || useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin $(UNPRIV_USER); } && \
	     { grep -q '^$(UNPRIV_USER):' /etc/subuid 2>/dev/null || usermod --add-subuids $(UNPRIV_SUBIDS) $(UNPRIV_USER); } && \
	     { grep -q '^$(UNPRIV_USER):' /etc/subgid 2>/dev/null || usermod --add-subgids $(UNPRIV_SUBIDS) $(UNPRIV_USER); } || \
	     echo "could not set up uidmap, python3-seccomp and the $(UNPRIV_USER) account; the sandbox's Unprivileged test will skip" >&2; \
	   else echo "uidmap, python3-seccomp or the $(UNPRIV_USER) account with subordinate ids missing (make prereqs as root sets them up): the sandbox's Unprivileged test will skip" >&2; fi; }

demo: prereqs build
	./scripts/demo.sh $(BIN) $(OUT)

# checkpoint remakes the embedded default checkpoint (checkpoints/default):
# builds the 5-root bundled corpus and MBPP's train and val corpus, and
# trains the CPU model on both, seed 1, on the parent's numbers only
# (CKPT_TRAIN_FLAGS=... for other inputs; scripts/checkpoint.sh).
checkpoint: prereqs build
	./scripts/checkpoint.sh $(BIN) $(CKPT_CORPUS)
	$(GO) build -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/triage

# The sandbox's Python harness has unit tests of its own, run by pytest.
test: prereqs
	$(GO) vet ./...
	$(PYTHON) -m pytest -q -p no:cacheprovider search/sandbox/harness_test
	$(GO) test -timeout 30m ./...

bench: build
	$(GO) test -run '^$$' -bench . -benchtime 1x ./... 

generate:
	$(GO) generate ./corpus/bundled

clean:
	rm -rf bin out
