#!/usr/bin/env bash
# Builds the native HTTPS load generator of the HTTP benchmark (bench/loadgen, Go standard library
# only: nothing is downloaded) and prints the absolute path of the binary as its only stdout line;
# build logs go to stderr.
#
# The binary is cached as
#   ${XDG_CACHE_HOME:-~/.cache}/kubemod-ts/bin/loadgen-<hash>
# where <hash> covers go.mod, the names and contents of the non-test .go files and the Go version,
# so a changed source or toolchain rebuilds and an unchanged one is reused (a warm run hashes a few
# files and runs `go version`).
#
# Usage: bash scripts/build-loadgen.sh [--force]
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
src="$repo/bench/loadgen"
force=false
if [ "${1:-}" = "--force" ]; then force=true; fi

log() { echo "build-loadgen: $*" >&2; }

. "$(dirname "${BASH_SOURCE[0]}")/go-toolchain.sh"
require_go build-loadgen 1.22 || exit 1

go_version="$(go version)"
sources=()
for f in "$src"/*.go; do
  case "$f" in *_test.go) ;; *) sources+=("$f") ;; esac
done
if [ "${#sources[@]}" -eq 0 ]; then
  log "no Go sources in $src"
  exit 1
fi
hash="$( {
  echo "$go_version"
  for f in "$src/go.mod" "${sources[@]}"; do
    echo "== $(basename "$f")"
    cat "$f"
  done
} | sha256sum | cut -c1-16)"

bin_dir="${XDG_CACHE_HOME:-$HOME/.cache}/kubemod-ts/bin"
binary="$bin_dir/loadgen-$hash"
if ! $force && [ -x "$binary" ]; then
  log "cached $binary"
  echo "$binary"
  exit 0
fi

mkdir -p "$bin_dir"
staging="$(mktemp "$bin_dir/loadgen.tmp.XXXXXX")"
trap 'rm -f "$staging"' EXIT
log "building bench/loadgen ($(echo "$go_version" | cut -d' ' -f3))"
start=$SECONDS
# Standard library only: GOPROXY=off and -mod=readonly make any attempt to download fail loudly,
# GOTOOLCHAIN=local keeps go.mod's `go` line from fetching another toolchain.
(cd "$src" && CGO_ENABLED=0 GOPROXY=off GOTOOLCHAIN=local \
  go build -mod=readonly -buildvcs=false -trimpath -ldflags "-s -w" -o "$staging" . >&2)
chmod 755 "$staging"
mv -f "$staging" "$binary"
log "built in $((SECONDS - start))s"
echo "$binary"
