#!/usr/bin/env bash
# Builds the pinned kube-apiserver, kube-controller-manager, kube-scheduler and etcd used by the
# e2e control plane (test/cluster/*), the way controller-runtime's envtest ships them, but from Go
# modules instead of release tarballs. The three Kubernetes binaries come from the wrapper module
# of one Kubernetes version (test/cluster/kubernetes/<version>/go.mod, one `tool` line each; the
# real node's kubelet and kube-proxy come from the same module, scripts/build-node.sh).
#
# The version: $KUBEMOD_K8S_VERSION (e.g. v1.35.4) if set, else the newest module under
# test/cluster/kubernetes/ (scripts/kubernetes-version.sh).
#
# Binaries are cached under
#   ${XDG_CACHE_HOME:-~/.cache}/kubemod-ts/control-plane/<k8s-version>-<etcd-version>-<inputs>/bin/
# keyed by the pinned versions plus a hash of the inputs (the wrapper modules' go.mod/go.sum and
# the list of binaries), so a warm run only hashes four files, and checkouts with different
# inputs (branches, worktrees) keep separate builds instead of replacing each other's. The last line printed on stdout is the bin
# directory. (Go's own build cache also follows XDG_CACHE_HOME: pointing it at an empty
# directory measures a cold build.)
#
# Usage: [KUBEMOD_K8S_VERSION=v1.x.y] bash scripts/build-control-plane.sh [--force]
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
. "$repo/scripts/kubernetes-version.sh"
apiserver_mod="$(kubernetes_module_dir build-control-plane)" || exit 1
etcd_mod="$repo/test/cluster/etcd"
force=false
if [ "${1:-}" = "--force" ]; then force=true; fi

log() { echo "build-control-plane: $*" >&2; }

module_version() { # <go.mod> <module path>
  awk -v m="$2" '$1 == m && $2 ~ /^v/ { print $2; exit }' "$1"
}

k8s_version="$(module_version "$apiserver_mod/go.mod" k8s.io/kubernetes)"
etcd_version="$(module_version "$etcd_mod/go.mod" go.etcd.io/etcd/server/v3)"
if [ -z "$k8s_version" ] || [ -z "$etcd_version" ]; then
  log "cannot read pinned versions from $apiserver_mod/go.mod and $etcd_mod/go.mod"
  exit 1
fi

kube_binaries=(kube-apiserver kube-controller-manager kube-scheduler)
inputs_hash="$( (cat "$apiserver_mod/go.mod" "$apiserver_mod/go.sum" "$etcd_mod/go.mod" "$etcd_mod/go.sum"
  echo "binaries: ${kube_binaries[*]} etcd") | sha256sum | cut -c1-16)"
cache_root="${XDG_CACHE_HOME:-$HOME/.cache}/kubemod-ts/control-plane"
target="$cache_root/$k8s_version-$etcd_version-$inputs_hash"
bin_dir="$target/bin"
stamp="$target/inputs.sha256"

cached=true
for binary in "${kube_binaries[@]}" etcd; do
  [ -x "$bin_dir/$binary" ] || cached=false
done
if ! $force && $cached && [ "$(cat "$stamp" 2>/dev/null || true)" = "$inputs_hash" ]; then
  log "cached ${kube_binaries[*]} $k8s_version, etcd $etcd_version"
  echo "$bin_dir"
  exit 0
fi

. "$(dirname "${BASH_SOURCE[0]}")/go-toolchain.sh"
require_go build-control-plane 1.26 || exit 1
export CGO_ENABLED=0

mkdir -p "$target"
staging="$(mktemp -d "$target/bin.tmp.XXXXXX")"
chmod 755 "$staging"
trap 'rm -rf "$staging"' EXIT

minor="${k8s_version#v1.}"
minor="${minor%%.*}"
pkg=k8s.io/component-base/version
ldflags="-s -w -X $pkg.gitVersion=$k8s_version -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor"
ldflags="$ldflags -X $pkg.gitTreeState=clean -X $pkg.buildDate=$(date -u +%Y-%m-%dT%H:%M:%SZ)"

log "building ${kube_binaries[*]} $k8s_version ($(go version | cut -d' ' -f3))"
start=$SECONDS
# One `go build` for the three: the packages they share are compiled once.
packages=()
for binary in "${kube_binaries[@]}"; do packages+=("k8s.io/kubernetes/cmd/$binary"); done
(cd "$apiserver_mod" && go build -mod=readonly -trimpath -ldflags "$ldflags" \
  -o "$staging/" "${packages[@]}")
log "${kube_binaries[*]} built in $((SECONDS - start))s"

log "building etcd $etcd_version"
start=$SECONDS
(cd "$etcd_mod" && go build -mod=readonly -trimpath -ldflags "-s -w" \
  -o "$staging/etcd" go.etcd.io/etcd/server/v3)
log "etcd built in $((SECONDS - start))s"

rm -rf "$bin_dir"
mv "$staging" "$bin_dir"
echo "$inputs_hash" > "$stamp"
for binary in "${kube_binaries[@]}"; do "$bin_dir/$binary" --version >&2; done
"$bin_dir/etcd" --version | sed -n 1p >&2 # sed reads to the end: no SIGPIPE for etcd under pipefail
echo "$bin_dir"
