#!/usr/bin/env bash
# Builds a pinned Go command with `go install <package>@<version>` and prints the absolute path of
# the binary as its only stdout line; build logs go to stderr. Used for the release tools that
# come from Go modules (actionlint, crane). `go install module@version` checks every module
# against the Go checksum database, so the binary is built from the published source, and
# GOTOOLCHAIN=local keeps Go from downloading another toolchain.
#
# Binaries are cached as ${XDG_CACHE_HOME:-~/.cache}/kubemod-ts/bin/<name>-<version>-<go version>,
# so a warm run costs one `go env`.
#
# Usage: bash scripts/release/go-install.sh <name> <package> <version> [--force]
set -euo pipefail

name="${1:?usage: go-install.sh <name> <package> <version> [--force]}"
package="${2:?usage: go-install.sh <name> <package> <version> [--force]}"
version="${3:?usage: go-install.sh <name> <package> <version> [--force]}"
force=false
if [ "${4:-}" = "--force" ]; then force=true; fi

log() { echo "go-install $name: $*" >&2; }

. "$(dirname "${BASH_SOURCE[0]}")/../go-toolchain.sh"
require_go "go-install $name" 1.24 || exit 1

go_version="$(go env GOVERSION)"
bin_dir="${XDG_CACHE_HOME:-$HOME/.cache}/kubemod-ts/bin"
binary="$bin_dir/$name-$version-$go_version"
if ! $force && [ -x "$binary" ]; then
  log "cached $binary"
  echo "$binary"
  exit 0
fi

mkdir -p "$bin_dir"
staging="$(mktemp -d "$bin_dir/$name.tmp.XXXXXX")"
trap 'rm -rf "$staging"' EXIT
log "building $package@$version ($go_version)"
start=$SECONDS
GOBIN="$staging" CGO_ENABLED=0 GOTOOLCHAIN=local GOFLAGS=-mod=mod \
  go install -trimpath -ldflags "-s -w" "$package@$version" >&2
built="$staging/$(basename "$package")"
[ -x "$built" ] || { log "go install wrote no $(basename "$package")"; exit 1; }
mv -f "$built" "$binary"
log "built in $((SECONDS - start))s"
echo "$binary"
