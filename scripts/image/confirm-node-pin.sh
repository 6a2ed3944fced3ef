#!/usr/bin/env bash
# Confirms scripts/image/node-sha256.txt against the Node project's signed release, on a machine
# that reaches nodejs.org and github.com (not the image build: run it when NODE_VERSION changes,
# then update the pins file's STATUS line). For each architecture it
#   1. verifies SHASUMS256.txt.asc with the Node release keyring (nodejs/release-keys, gpgv);
#   2. checks that the recorded node-v<V>-linux-<arch>.tar.gz line is the signed one;
#   3. downloads that archive, checks it against the signed line, and checks that its bin/node is
#      byte-identical to the pinned node-linux-<arch>-<V>/bin/node (what the npm package ships).
#
# Usage: bash scripts/image/confirm-node-pin.sh [version]   (default: build-image.sh's NODE_VERSION)
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
pins="$repo/scripts/image/node-sha256.txt"
version="${1:-$(sed -n 's/^NODE_VERSION=\([0-9.]*\).*/\1/p' "$repo/scripts/image/build-image.sh")}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
die() {
  echo "confirm-node-pin: $*" >&2
  exit 1
}

cd "$work"
curl -fsSLo nodejs-keyring.kbx https://github.com/nodejs/release-keys/raw/HEAD/gpg/pubring.kbx
curl -fsSLO "https://nodejs.org/dist/v$version/SHASUMS256.txt.asc"
# --output keeps only the signed text: nothing outside the signature is read below.
gpgv --keyring="$work/nodejs-keyring.kbx" --output SHASUMS256.txt SHASUMS256.txt.asc \
  || die "SHASUMS256.txt.asc for v$version: bad or unknown signature"
for arch in x64 arm64; do
  archive="node-v$version-linux-$arch.tar.gz"
  signed="$(grep -E "^[0-9a-f]{64}  $archive\$" SHASUMS256.txt)" \
    || die "the signed SHASUMS256.txt has no line for $archive"
  grep -qxF "$signed" "$pins" || die "$pins does not hold the signed line: $signed"
  curl -fsSLO "https://nodejs.org/dist/v$version/$archive"
  echo "$signed" | sha256sum --check --quiet - || die "$archive does not match the signed line"
  tar -xzf "$archive" "node-v$version-linux-$arch/bin/node"
  cp "node-v$version-linux-$arch/bin/node" "node-$arch"
  bash "$repo/scripts/image/verify-node.sh" --pins "$pins" --version "$version" --arch "$arch" \
    --binary "node-$arch" || die "the pinned bin/node for $arch is not the official one"
done
echo "confirm-node-pin: $pins matches the signed SHASUMS256.txt of v$version" >&2
