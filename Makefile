# piopt — the README's two set-up commands are `make demo` and `make test`.
GO      ?= go
BIN     := bin/piopt
SUDO    := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
DEMO    ?= demo-out
PKGS    := ./...

.PHONY: all deps build test bench demo lint fuzz clean

all: build

# deps installs what a bare Debian/Ubuntu machine with Go lacks: XGBoost's C
# library and headers for training (cgo), and Debian's python3-xgboost for
# XGBoost's tracker (train --workers, docs/distributed.md). Nothing else is
# needed.
deps:
	@if [ ! -f /usr/include/xgboost/c_api.h ]; then \
		echo "installing libxgboost-dev (XGBoost C API, needed for training)"; \
		$(SUDO) apt-get update -q && $(SUDO) DEBIAN_FRONTEND=noninteractive apt-get install -y -q libxgboost-dev; \
	fi
	@if ! /usr/bin/python3 -c 'import xgboost.tracker' 2>/dev/null; then \
		echo "installing python3-xgboost (XGBoost's tracker, for distributed training)"; \
		$(SUDO) apt-get update -q && $(SUDO) DEBIAN_FRONTEND=noninteractive apt-get install -y -q python3-xgboost; \
	fi
	@command -v gcc >/dev/null || { $(SUDO) apt-get update -q && $(SUDO) DEBIAN_FRONTEND=noninteractive apt-get install -y -q gcc; }

build: deps
	$(GO) build -buildvcs=auto -o $(BIN) ./cmd/piopt

test: deps
	$(GO) vet $(PKGS)
	$(GO) test -count=1 $(PKGS)

bench: deps
	$(GO) test -run '^$$' -bench . -benchmem -timeout 60m $(PKGS)

demo: build
	./$(BIN) synth --out $(DEMO)/folds
	./$(BIN) experiment --folds $(DEMO)/folds --out $(DEMO)/results

# fuzz runs each fuzzer of the parsers for FUZZTIME (go test runs one fuzz
# target at a time). Findings land in the package's testdata/fuzz.
FUZZTIME ?= 1m
fuzz:
	$(GO) test -run '^$$' -fuzz '^FuzzParseLine$$' -fuzztime $(FUZZTIME) ./data
	$(GO) test -run '^$$' -fuzz '^FuzzParseFloat32$$' -fuzztime $(FUZZTIME) ./data
	$(GO) test -run '^$$' -fuzz '^FuzzRead$$' -fuzztime $(FUZZTIME) ./data
	$(GO) test -run '^$$' -fuzz '^FuzzLogReader$$' -fuzztime $(FUZZTIME) ./data
	$(GO) test -run '^$$' -fuzz '^FuzzReadTargets$$' -fuzztime $(FUZZTIME) ./data
	$(GO) test -run '^$$' -fuzz '^FuzzTargetFiles$$' -fuzztime $(FUZZTIME) ./data
	$(GO) test -run '^$$' -fuzz '^FuzzQueryFile$$' -fuzztime $(FUZZTIME) ./data
	$(GO) test -run '^$$' -fuzz '^FuzzParseHeader$$' -fuzztime $(FUZZTIME) ./data
	$(GO) test -run '^$$' -fuzz '^FuzzReadPolicy$$' -fuzztime $(FUZZTIME) ./data
	$(GO) test -run '^$$' -fuzz '^FuzzReadJSONLog$$' -fuzztime $(FUZZTIME) ./data
	$(GO) test -run '^$$' -fuzz '^FuzzReadParquetLog$$' -fuzztime $(FUZZTIME) ./data
	$(GO) test -run '^$$' -fuzz '^FuzzParseModel$$' -fuzztime $(FUZZTIME) ./ranker
	$(GO) test -run '^$$' -fuzz '^FuzzDecode$$' -fuzztime $(FUZZTIME) ./data/xgbmodel
	$(GO) test -run '^$$' -fuzz '^FuzzReadPartial$$' -fuzztime $(FUZZTIME) ./internal/pipeline
	$(GO) test -run '^$$' -fuzz '^FuzzParse$$' -fuzztime $(FUZZTIME) ./internal/xsum
	$(GO) test -run '^$$' -fuzz '^FuzzCacheEntry$$' -fuzztime $(FUZZTIME) ./data
	$(GO) test -run '^$$' -fuzz '^FuzzReadResume$$' -fuzztime $(FUZZTIME) ./internal/atomicfile

# lint checks formatting, go vet and staticcheck, which it installs into
# $(go env GOPATH)/bin when missing (from the Go module proxy).
STATICCHECK ?= $(shell command -v staticcheck || echo "$$($(GO) env GOPATH)/bin/staticcheck")
lint:
	@out=$$(gofmt -l .); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet $(PKGS)
	@[ -x "$(STATICCHECK)" ] || { echo "installing staticcheck"; $(GO) install honnef.co/go/tools/cmd/staticcheck@latest; }
	$(STATICCHECK) $(PKGS)

clean:
	rm -rf bin $(DEMO)
