#!/usr/bin/env bash
# Builds the pinned Helm CLI from Go modules (the module proxy serves helm.sh/helm/v3; no release
# tarball is downloaded) and prints the absolute path of the binary as its only stdout line; build
# logs go to stderr. The chart tests (test/unit/chart-helm.test.ts, test/e2e/helm.e2e.test.ts)
# and scripts/chart/package.sh use it.
#
# The binary is cached as
#   ${XDG_CACHE_HOME:-~/.cache}/kubemod-ts/helm/<helm-version>-<go-version>-r<recipe>/helm
# so a warm run only runs `go env GOVERSION` (bump RECIPE when the build flags change). `go install <module>@<version>` checks the module's
# go.sum entries against the checksum database, and GOTOOLCHAIN=local keeps Go from fetching
# another toolchain.
#
# Usage: bash scripts/build-helm.sh [--force]
set -euo pipefail

HELM_VERSION=v3.22.0
RECIPE=2
force=false
if [ "${1:-}" = "--force" ]; then force=true; fi

log() { echo "build-helm: $*" >&2; }

. "$(dirname "${BASH_SOURCE[0]}")/go-toolchain.sh"
require_go build-helm 1.24 || exit 1

go_version="$(go env GOVERSION)"
target="${XDG_CACHE_HOME:-$HOME/.cache}/kubemod-ts/helm/$HELM_VERSION-$go_version-r$RECIPE"
binary="$target/helm"
if ! $force && [ -x "$binary" ]; then
  log "cached helm $HELM_VERSION ($binary)"
  echo "$binary"
  exit 0
fi

mkdir -p "$target"
staging="$(mktemp -d "$target/bin.tmp.XXXXXX")"
trap 'rm -rf "$staging"' EXIT
log "building helm $HELM_VERSION ($go_version)"
start=$SECONDS
# The variables Helm's own Makefile sets: `helm version` reports the tag, and the Kubernetes
# version `helm template`/`helm lint` assume without a cluster follows the client-go module Helm
# is built with (v0.N.x -> 1.N), instead of the source's fallback of 1.20.
gomod="$(GOTOOLCHAIN=local go mod download -json "helm.sh/helm/v3@$HELM_VERSION" |
  sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",\{0,1\}$/\1/p')"
client_go="$(awk '$1 == "k8s.io/client-go" { print $2; exit }' "$gomod")"
k8s_minor="$(echo "$client_go" | cut -d. -f2)"
if [ -z "$k8s_minor" ]; then
  log "cannot read the k8s.io/client-go version from $gomod"
  exit 1
fi
pkg=helm.sh/helm/v3/internal/version
ldflags="-s -w -X $pkg.version=$HELM_VERSION -X $pkg.gitTreeState=clean"
for k8s in pkg/lint/rules pkg/chartutil; do
  ldflags="$ldflags -X helm.sh/helm/v3/$k8s.k8sVersionMajor=1 -X helm.sh/helm/v3/$k8s.k8sVersionMinor=$k8s_minor"
done
CGO_ENABLED=0 GOTOOLCHAIN=local GOBIN="$staging" \
  go install -trimpath -ldflags "$ldflags" "helm.sh/helm/v3/cmd/helm@$HELM_VERSION" >&2
log "helm built in $((SECONDS - start))s"
mv -f "$staging/helm" "$binary"
"$binary" version --short >&2
echo "$binary"
