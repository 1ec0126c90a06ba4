# cac-tmux — build, test and measure. `make help` lists the targets.
GO      ?= go
BIN     ?= bin/cac-tmux
FUZZTIME ?= 30s

.PHONY: help build run test lint fuzz bench gobench clean

help:
	@echo "make build   build $(BIN)"
	@echo "make run     build and run 'cac-tmux watch' on the current tmux server"
	@echo "make test    lint, then every test (needs tmux for integration tests)"
	@echo "make lint    gofmt + go vet"
	@echo "make fuzz    fuzz the detector for FUZZTIME (default $(FUZZTIME))"
	@echo "make bench   the cost harness: N=10,100,500 Claude panes, watcher vs a naive poller (~27 min; BENCHFLAGS=-quick ~2 min)"
	@echo "make gobench Go benchmarks of the hot paths"

build:
	$(GO) build -o $(BIN) ./cmd/cac-tmux

run: build
	./$(BIN) watch

lint:
	@out=$$(gofmt -l .); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

# -parallel 8: the fault tests mostly wait for a reset on the real clock, side by side.
test: lint
	$(GO) test -count=1 -parallel 8 ./...

fuzz:
	$(GO) test ./detector -run '^$$' -fuzz FuzzDetect -fuzztime $(FUZZTIME)

bench:
	$(GO) run ./bench/watchcost $(BENCHFLAGS)

gobench:
	$(GO) test ./... -run '^$$' -bench . -benchmem -count 5

clean:
	rm -rf bin results
