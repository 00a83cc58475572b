# Presence: the two commands a fresh Debian machine with Swift needs.
#   make demo   bulk-fetch a generated follower list from the built-in local avatar server
#   make test   build and run every test
# Both install the Debian packages they need first (libcurl4-openssl-dev libpng-dev libjpeg-dev).

SWIFT ?= swift
JOBS ?= 2

.PHONY: all deps build test test-tsan demo bench release clean

all: build

deps:
	@bash scripts/install-deps.sh

build: deps
	$(SWIFT) build -j $(JOBS)

release: deps
	$(SWIFT) build -c release -j $(JOBS) --product presence

# Each test target runs in turn (see scripts/run-tests.sh), ending with "N passed, N failed".
test: deps
	$(SWIFT) build --build-tests -j $(JOBS)
	SWIFT=$(SWIFT) bash scripts/run-tests.sh

# The concurrency-heavy modules under ThreadSanitizer, in their own build folder.
test-tsan: deps
	$(SWIFT) test --sanitize=thread --scratch-path .build-tsan -j $(JOBS) --filter 'PresenceTransferTests|PresenceTests'

demo: release
	.build/release/presence demo

bench: release
	.build/release/presence bench

clean:
	rm -rf .build .build-tsan presence-demo
