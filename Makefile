# Everything a contributor runs; CI (.ci/run) runs the same targets.
GO      ?= go
TOOL    := $(GO) tool -modfile=tools/go.mod
BIN     := bin/ramabana-mcp

.PHONY: build test lint generate goplugin checkgenerate bench bench-stdio ci fuzz security-long nocgo release-snapshot publish-contract

build:
	$(GO) build -o $(BIN) ./cmd/ramabana-mcp

# The test command: unit, plugin and end-to-end tests under the race detector.
# The test binaries are linked without DWARF (-ldflags=-w), which no test
# reads (stack traces and race reports come from the runtime's own tables):
# linking the 60-odd race test binaries is a quarter of a full run's CPU,
# and DWARF a fifth of that. GORACE=atexit_sleep_ms=0: the race runtime
# otherwise sleeps a second at the exit of every test binary (for threads
# still running to report), a minute of a full run spent asleep; a test
# binary exits once its tests have ended, and a race a test's goroutines
# met is reported when it happens. Options set in GORACE still count.
test:
	GORACE="atexit_sleep_ms=0 $$GORACE" $(GO) test -race -ldflags=-w ./...

# A build without cgo, as a machine without a C compiler makes it and as
# the release archives are: vet for Linux, Windows and macOS, and test the
# one package whose behaviour differs, plugins/code (Go sources only).
# -trimpath as goreleaser builds, so that the two share the build cache.
nocgo:
	CGO_ENABLED=0 $(GO) vet -trimpath ./...
	CGO_ENABLED=0 GOOS=windows $(GO) vet -trimpath ./...
	CGO_ENABLED=0 GOOS=darwin $(GO) vet -trimpath ./...
	CGO_ENABLED=0 $(GO) test -trimpath ./plugins/code/...

# The release archives for every system, in dist/, published nowhere.
# goreleaser has its own module file: its ~300 modules (cloud SDKs among
# them) would otherwise raise the versions buf and staticcheck build with.
release-snapshot:
	$(GO) tool -modfile=tools/release/go.mod goreleaser release --snapshot --clean

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go' | grep -v '^internal/gen/')); \
	  if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(TOOL) staticcheck ./...
	$(TOOL) buf lint
	$(TOOL) buf breaking --against proto/published.json

# The plugin contract as published (proto/published.json, a buf image):
# make lint fails on a change third-party plugins would break on. Run this
# when a release publishes a new contract, and commit the file with it.
publish-contract:
	$(TOOL) buf build --exclude-source-info -o proto/published.json

# Regenerate internal/gen/ from proto/ with the pinned buf and protoc plugins.
generate:
	$(TOOL) buf generate

# Write internal/goplugin/ from the hashicorp/go-plugin release its
# update.sh pins, trimmed as its README.md says.
goplugin:
	internal/goplugin/update.sh

# Fail when internal/gen/ is not what the proto files generate, or
# internal/goplugin/ not what its update.sh writes.
checkgenerate: generate goplugin
	@if [ -n "$$(git status --porcelain -- internal/gen)" ]; then \
	  echo "internal/gen/ is out of date with proto/: run make generate and commit"; \
	  git status --porcelain -- internal/gen; exit 1; fi
	@if [ -n "$$(git status --porcelain -- internal/goplugin)" ]; then \
	  echo "internal/goplugin/ differs from what its update.sh writes: edit the script, not the files"; \
	  git status --porcelain -- internal/goplugin; exit 1; fi

# Fuzz targets, each for FUZZTIME (CI runs them briefly; their seed
# corpora in testdata/fuzz also run as plain tests under make test). A
# count, not a duration: with a duration, go test can end a run that found
# nothing with "context deadline exceeded" when the deadline interrupts a
# slow input, which failed CI once.
FUZZTIME ?= 10000x
FUZZ := \
	./internal/skills:FuzzParse \
	./sdk/roots:FuzzResolve \
	./plugins/files:FuzzHashlineEdit \
	./plugins/notebook:FuzzNotebookRoundTrip \
	./host/internal/transport:FuzzStdioFrame \
	./host/internal/transport:FuzzReadEnvelope \
	./internal/schema:FuzzValidateArgs
fuzz:
	@set -e; for t in $(FUZZ); do \
	  pkg=$${t%%:*}; name=$${t##*:}; \
	  echo "fuzz $$pkg $$name ($(FUZZTIME))"; \
	  $(GO) test -run '^$$' -fuzz "^$$name\$$" -fuzztime $(FUZZTIME) $$pkg; \
	done

# The trust-boundary race loops, run long (make test runs them for 1 s).
security-long:
	RAMABANA_RACE_SECONDS=10 $(GO) test -race -count=1 -run 'Race|Swap' ./sdk/... ./plugins/... ./host/e2e/

# Benchmarks: the Go benchmarks, then the side-by-side harness in bench/
# (bench-go), then the plugin hop against its floors (bench-hop).
bench: bench-go bench-hop

.PHONY: bench-go bench-hop
bench-go:
	$(GO) test -run '^$$' -bench . -skip 'HopInterleaved|PureHop' -benchmem ./...

# The plugin hop side by side with its floors, 10,000 calls per variant in
# $RAMABANA_BENCH_REPS interleaved rounds (5), with the summary tables (-v);
# bench/README.md, "The plugin hop", says how to read them.
bench-hop:
	$(GO) test -run '^$$' -bench 'HopInterleaved|PureHop' -benchtime 10000x -v ./bench/

# The HTTP load benchmark alone, 2,000 calls a sub-benchmark, with its
# summary against the floor (-v); more clients with
# RAMABANA_BENCH_CLIENTS=1,8,32,64,128 (bench/README.md).
.PHONY: bench-http
bench-http:
	$(GO) test -run '^$$' -bench HTTPLoad -benchtime 2000x -v ./bench/

ci: lint checkgenerate nocgo test fuzz
