# cac-tmux — build, test and measure. `make help` lists the targets.
GO      ?= go
BIN     ?= bin/cac-tmux
FUZZTIME ?= 30s
# Release platforms of `make dist`.
PLATFORMS ?= linux/amd64 linux/arm64 darwin/amd64 darwin/arm64
# The version and revision `cac-tmux version` prints. The go command stamps them itself in a
# plain checkout; these -X stamps cover builds it cannot stamp (a linked git worktree,
# golang/go#58218, or GOFLAGS=-buildvcs=false).
VERSION  ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo unknown)
REVISION ?= $(shell git rev-parse HEAD 2>/dev/null)$(shell git rev-parse -q HEAD >/dev/null 2>&1 && ! git diff --quiet HEAD 2>/dev/null && echo +dirty)
# One static binary: no cgo (the standard library's pure-Go resolver and user lookup).
BUILDFLAGS = -trimpath -ldflags "-s -w -X main.version=$(VERSION) -X main.revision=$(REVISION)"

# The tmux versions users run, besides the system's (3.3a on Debian 12), built from ../shared by
# test-tmux; TMUX_PKGS are the packages that talk to tmux, which it tests on each.
TMUX_VERSIONS ?= 3.2a 3.4 3.5a 3.6b 3.7c next-3.8
TMUX_PKGS ?= ./tmuxctl/... ./watcher/... ./proc/... ./cmd/... ./doctor/... ./demo/...
SHARED ?= ../shared

.PHONY: help build dist run test test-tmux test-matrix e2e e2e-claude e2e-codex lint fuzz bench gobench clean

help:
	@echo "make build   build $(BIN), statically linked"
	@echo "make dist    release archives cac-tmux_VERSION_OS_ARCH.tar.gz and checksums.txt in dist/ ($(PLATFORMS))"
	@echo "make run     build and run 'cac-tmux watch' on the current tmux server"
	@echo "make test    lint, then every test (needs tmux for integration tests)"
	@echo "make test-tmux V=3.4   the tmux-facing tests on tmux V, built once from $(SHARED)/tmux"
	@echo "make test-matrix       test-tmux on each of $(TMUX_VERSIONS)"
	@echo "make e2e    opt-in: e2e-claude, then e2e-codex (~8 min)"
	@echo "make e2e-claude        the watcher against the real Claude Code and ../shared's mock API (~5 min)"
	@echo "make e2e-codex         the watcher against the real Codex CLI and ../shared's mock of its backend (~2 min)"
	@echo "make lint    gofmt + go vet"
	@echo "make fuzz    fuzz the detector for FUZZTIME (default $(FUZZTIME))"
	@echo "make bench   the cost harness: N=10,100,1000 Claude Code panes (BENCHFLAGS=-agent codex: Codex), watcher vs a naive poller (~32 min; BENCHFLAGS=-quick ~3 min)"
	@echo "make gobench Go benchmarks of the hot paths"

build:
	CGO_ENABLED=0 $(GO) build $(BUILDFLAGS) -o $(BIN) ./cmd/cac-tmux

# dist/cac-tmux_VERSION_OS_ARCH.tar.gz for each platform, holding cac-tmux, LICENSE and
# README.md at its top (VERSION without a leading v: the tag v0.1.0 makes 0.1.0), and
# dist/checksums.txt in sha256sum's format: the assets of a GitHub release, as the plugin's
# installer (scripts/install.sh) looks them up, and as TPM plugins and package managers name them.
DIST_VERSION = $(patsubst v%,%,$(VERSION))
DIST_FILES = $(wildcard LICENSE README.md)
dist:
	rm -rf dist && mkdir -p dist
	@test -f LICENSE || echo "make dist: no LICENSE file to put in the archives" >&2
	set -e; for p in $(PLATFORMS); do \
		os=$${p%/*}; arch=$${p#*/}; name=cac-tmux_$(DIST_VERSION)_$${os}_$${arch}; \
		mkdir dist/$$name; \
		CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch $(GO) build $(BUILDFLAGS) -o dist/$$name/cac-tmux ./cmd/cac-tmux; \
		cp $(DIST_FILES) dist/$$name/ && chmod 644 $(addprefix dist/$$name/,$(DIST_FILES)); \
		tar -C dist/$$name -czf dist/$$name.tar.gz cac-tmux $(DIST_FILES); \
		rm -r dist/$$name; \
	done
	cd dist && sha256sum cac-tmux_*.tar.gz > checksums.txt
	@ls -l dist

run: build
	./$(BIN) watch

lint:
	@out=$$(gofmt -l .); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

# -parallel 8: the fault tests mostly wait for a reset on the real clock, side by side.
test: lint
	$(GO) test -count=1 -parallel 8 ./...

# tmux V (one of TMUX_VERSIONS) built by $(SHARED)/tools/tmux-build.sh into a cache, first on
# PATH for the packages that talk to tmux.
test-tmux:
	@test -n "$(V)" || { echo "usage: make test-tmux V=VERSION (one of: $(TMUX_VERSIONS))"; exit 2; }
	@bin=$$($(SHARED)/tools/tmux-build.sh $(V)) && echo "test-tmux: $$bin/tmux ($$($$bin/tmux -V))" && \
		PATH="$$bin:$$PATH" $(GO) test -count=1 -parallel 8 $(TMUX_PKGS)

# Each version a target of its own, so that `make -j2 -O test-matrix` (CI) runs two at once:
# the tests mostly wait on the real clock.
test-matrix: $(addprefix test-tmux-,$(TMUX_VERSIONS))

test-tmux-%:
	@$(MAKE) --no-print-directory test-tmux V=$*

# Opt-in, not part of test or CI: the real Claude Code (CAC_CLAUDE_VERSION, fetched by
# ../shared/tools/real-claude.sh) against the loopback mock API, and the real Codex CLI
# (CAC_CODEX_VERSION, ../shared/tools/codex/real-codex.sh) against the loopback mock of its
# backend (CAC_SHARED), on the real clock. The Codex cases all run at once (-parallel 5): each
# waits about a minute for its reset.
e2e: e2e-claude e2e-codex

e2e-claude:
	$(GO) test -tags e2e -count=1 -v -timeout 20m -skip 'Codex' ./internal/e2e/

e2e-codex:
	$(GO) test -tags e2e -count=1 -v -timeout 15m -parallel 5 -run 'Codex' ./internal/e2e/

fuzz:
	$(GO) test ./detector -run '^$$' -fuzz FuzzDetect -fuzztime $(FUZZTIME)

bench:
	$(GO) run ./bench/watchcost $(BENCHFLAGS)

gobench:
	$(GO) test ./... -run '^$$' -bench . -benchmem -count 5

clean:
	rm -rf bin bench/results dist
