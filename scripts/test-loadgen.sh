#!/usr/bin/env bash
# Runs the Go tests of the HTTP benchmark's load generator (bench/loadgen). The `go test -json`
# event stream is kept in test-results/loadgen.gotest.jsonl, where scripts/test-summary.ts counts
# it with the vitest reports; a failure is shown again in go test's plain output.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
. "$repo/scripts/go-toolchain.sh"
require_go test-loadgen 1.22 || exit 1
export GOTOOLCHAIN=local GOPROXY=off
mkdir -p "$repo/test-results"
report="$repo/test-results/loadgen.gotest.jsonl"
cd "$repo/bench/loadgen"
if go test -json -count=1 ./... > "$report"; then
  echo "loadgen: $(grep '"Test":' "$report" | grep -c '"Action":"pass"') Go tests passed"
else
  go test -count=1 ./... || true
  exit 1
fi
