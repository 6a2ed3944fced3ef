#!/usr/bin/env bash
# Packages the Helm chart for a release: regenerates it from config/ into a scratch directory with
# the release's version as chart version and appVersion (the default image tag) and the image
# digest as the default image.digest (a digest wins over the tag), lints it (--strict), and writes
# dist/chart/kubemod-ts-<version>.tgz. Prints the .tgz path as its only stdout line; logs go to
# stderr. The committed chart under charts/ is not touched.
#
# Usage: bash scripts/chart/package.sh <version> <image-digest> [<out-dir>]
#   <version>       semver without a leading v, e.g. 0.2.0 (a leading v is dropped)
#   <image-digest>  sha256:<64 hex> of the released image index
#   <out-dir>       default dist/chart
# Then, e.g.: helm push dist/chart/kubemod-ts-0.2.0.tgz oci://ghcr.io/kubemod-ts/charts
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
log() { echo "chart/package: $*" >&2; }

if [ "$#" -lt 2 ] || [ "$#" -gt 3 ]; then
  echo "usage: scripts/chart/package.sh <version> <image-digest> [<out-dir>]" >&2
  exit 2
fi
version="${1#v}"
digest="$2"
out="${3:-$repo/dist/chart}"
if ! [[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$ ]]; then
  log "version must be semver (e.g. 0.2.0), got '$1'"
  exit 2
fi
if ! [[ "$digest" =~ ^sha256:[a-f0-9]{64}$ ]]; then
  log "image digest must be sha256:<64 lowercase hex>, got '$digest'"
  exit 2
fi

helm="$(bash "$repo/scripts/build-helm.sh")"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
(cd "$repo" && node_modules/.bin/tsx scripts/chart/generate-chart.ts --out "$scratch/kubemod-ts" \
  --version "$version" --app-version "$version" --image-digest "$digest" >&2)
"$helm" lint --strict "$scratch/kubemod-ts" >&2
mkdir -p "$out"
"$helm" package "$scratch/kubemod-ts" --destination "$out" >&2
package="$(cd "$out" && pwd)/kubemod-ts-$version.tgz"
[ -f "$package" ] || { log "helm package did not write $package"; exit 1; }
echo "$package"
