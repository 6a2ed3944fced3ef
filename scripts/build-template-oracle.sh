#!/usr/bin/env bash
# Builds the Go text/template + Sprig oracle of the template comparison
# (test/upstream-compare/oracle: the Go standard library's text/template with Sprig v3.2.2, the
# Sprig version KubeMod uses) and prints the absolute path of the binary as its only stdout line;
# build logs go to stderr. Sprig and its dependencies come from the Go module proxy, pinned by the
# committed go.sum (-mod=readonly: a go.mod/go.sum that does not match fails instead of changing).
#
# The binary is cached as
#   ${XDG_CACHE_HOME:-~/.cache}/kubemod-ts/bin/template-oracle-<hash>
# where <hash> covers go.mod, go.sum, the .go files and the Go version, like build-loadgen.sh.
#
# Usage: bash scripts/build-template-oracle.sh [--force]
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
src="$repo/test/upstream-compare/oracle"
force=false
if [ "${1:-}" = "--force" ]; then force=true; fi

log() { echo "build-template-oracle: $*" >&2; }

. "$(dirname "${BASH_SOURCE[0]}")/go-toolchain.sh"
require_go build-template-oracle 1.22 || exit 1

go_version="$(go version)"
hash="$( {
  echo "$go_version"
  for f in "$src/go.mod" "$src/go.sum" "$src"/*.go; do
    echo "== $(basename "$f")"
    cat "$f"
  done
} | sha256sum | cut -c1-16)"

bin_dir="${XDG_CACHE_HOME:-$HOME/.cache}/kubemod-ts/bin"
binary="$bin_dir/template-oracle-$hash"
if ! $force && [ -x "$binary" ]; then
  log "cached $binary"
  echo "$binary"
  exit 0
fi

mkdir -p "$bin_dir"
staging="$(mktemp "$bin_dir/template-oracle.tmp.XXXXXX")"
trap 'rm -f "$staging"' EXIT
log "building test/upstream-compare/oracle ($(echo "$go_version" | cut -d' ' -f3))"
start=$SECONDS
(cd "$src" && CGO_ENABLED=0 GOTOOLCHAIN=local \
  go build -mod=readonly -buildvcs=false -trimpath -ldflags "-s -w" -o "$staging" . >&2)
chmod 755 "$staging"
mv -f "$staging" "$binary"
log "built in $((SECONDS - start))s"
echo "$binary"
