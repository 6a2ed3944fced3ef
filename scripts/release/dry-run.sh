#!/usr/bin/env bash
# Runs every step of the release workflow (.github/workflows/release.yml) that needs no registry
# and no OIDC identity, on this machine, into dist/release/: the image build for the host
# architecture (`npm run image`), the checks on it, the pinned bundle, the chart package and the
# checksums; then verifies the result as a user would (sha256sum --check, the bundle's image, the
# chart archive). What it cannot do is printed at the end, never skipped quietly.
#
# The pushes run too, against a throwaway in-memory registry (`crane registry serve` on
# 127.0.0.1): the same push-image.sh and push-index.sh as the workflow, so the bundle is pinned to
# a real index digest (of one architecture here; the release's index has two).
#
# Usage: bash scripts/release/dry-run.sh [--out dist/release] [--image-dir DIR]
#   --image-dir  use an image `npm run image` already wrote to DIR (e.g. dist/image) instead of
#                building one; its architecture is read from its OCI index
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
out="$repo/dist/release"
image_dir=""
while [ $# -gt 0 ]; do
  case "$1" in
    --out) out="${2:?--out needs a directory}" && shift 2 ;;
    --image-dir) image_dir="${2:?--image-dir needs a directory}" && shift 2 ;;
    *) echo "release dry-run: unknown argument $1" >&2 && exit 2 ;;
  esac
done
work="$repo/dist/release-images"
log() { echo "release dry-run: $*" >&2; }
die() {
  log "$*"
  exit 1
}

case "$(uname -m)" in
  x86_64) arch=amd64 ;;
  aarch64 | arm64) arch=arm64 ;;
  *) die "unsupported host architecture $(uname -m)" ;;
esac
version="$(node -p 'require(process.argv[1]).version' "$repo/package.json")"
# The names a tag v<version> pushed to github.com/kubemod-ts/kubemod-ts would get.
image="$(bash "$repo/scripts/release/release-env.sh" "v$version" kubemod-ts | sed -n 's/^image=//p')"

rm -rf "$work"
if [ -n "$image_dir" ]; then
  [ -f "$image_dir/oci/index.json" ] || die "--image-dir $image_dir: no oci/index.json"
  arch="$(node -p 'JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).manifests[0].platform.architecture' "$image_dir/oci/index.json")"
  log "using the linux/$arch image in $image_dir (not rebuilding it)"
  mkdir -p "$work"
  cp -R "$image_dir" "$work/$arch"
else
  log "building the image for linux/$arch (npm run image)"
  (cd "$repo" && npm run --silent image -- --arch "$arch" --out "$work/$arch") >&2
fi

CRANE="$(bash "$repo/scripts/release/build-crane.sh")"
export CRANE
registry_log="$(mktemp)"
"$CRANE" registry serve --address 127.0.0.1:0 2> "$registry_log" &
registry_pid=$!
trap 'kill "$registry_pid" 2> /dev/null || true; rm -f "$registry_log"' EXIT
for _ in $(seq 50); do
  port="$(sed -n 's/.*serving on port \([0-9]*\).*/\1/p' "$registry_log")"
  [ -n "$port" ] && break
  sleep 0.1
done
[ -n "$port" ] || die "crane registry serve did not start: $(cat "$registry_log")"
local_repo="127.0.0.1:$port/kubemod-ts"
pushed="$(bash "$repo/scripts/release/push-image.sh" "$work/$arch" "$local_repo:$version-$arch")"
digest="$(bash "$repo/scripts/release/push-index.sh" "$local_repo" "$version" "$pushed")"

log "packing the CLI's npm package (npm pack, as the workflow's assemble job does)"
cli_dir="$repo/dist/release-cli"
rm -rf "$cli_dir" && mkdir -p "$cli_dir"
(cd "$repo" && npm pack --silent --pack-destination "$cli_dir") >&2
bash "$repo/scripts/release/assemble.sh" --version "$version" --image "$image" \
  --digest "$digest" --images "$work" --cli-package "$cli_dir/kubemod-ts-$version.tgz" --out "$out"

log "verifying $out"
(cd "$out" && sha256sum --check --strict --quiet checksums.txt) || die "checksums.txt does not verify"
grep -qx "          image: $image@$digest" "$out/bundle.yaml" \
  || die "$out/bundle.yaml does not pin the operator image to $image@$digest"
grep -qx "release_version=\"$version\"" "$out/switch-from-kubemod.sh" \
  || die "$out/switch-from-kubemod.sh is not stamped with release v$version"
bash -n "$out/switch-back-to-kubemod.sh" || die "$out/switch-back-to-kubemod.sh is not valid bash"
tar -xzOf "$out/kubemod-ts-$version.tgz" kubemod-ts/Chart.yaml | grep -q "^version: $version\$" \
  || die "the chart archive has no kubemod-ts/Chart.yaml with version $version"

log "done: $(wc -l < "$out/checksums.txt") assets in $out, image $image@$digest (linux/$arch)"
log "not done here (need GitHub's runners, ghcr.io and an OIDC token): the linux/$( [ "$arch" = amd64 ] && echo arm64 || echo amd64) image," \
  "the pushes to ghcr.io, cosign sign and attest, build provenance, helm push, gh release create"
