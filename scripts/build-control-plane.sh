#!/usr/bin/env bash
# Builds the pinned kube-apiserver and etcd used by the e2e control plane (test/cluster/*), the
# way controller-runtime's envtest ships them, but from Go modules instead of release tarballs.
#
# Binaries are cached under
#   ${XDG_CACHE_HOME:-~/.cache}/kubemod-ts/control-plane/<k8s-version>-<etcd-version>/bin/
# keyed by the pinned versions plus a hash of the wrapper modules' go.mod/go.sum, so a warm run
# only hashes four files. The last line printed on stdout is the bin directory.
#
# Usage: bash scripts/build-control-plane.sh [--force]
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
apiserver_mod="$repo/test/cluster/kube-apiserver"
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
  log "cannot read pinned versions from test/cluster/*/go.mod"
  exit 1
fi

inputs_hash="$(cat "$apiserver_mod/go.mod" "$apiserver_mod/go.sum" "$etcd_mod/go.mod" "$etcd_mod/go.sum" \
  | sha256sum | cut -c1-16)"
cache_root="${XDG_CACHE_HOME:-$HOME/.cache}/kubemod-ts/control-plane"
target="$cache_root/$k8s_version-$etcd_version"
bin_dir="$target/bin"
stamp="$target/inputs.sha256"

if ! $force && [ -x "$bin_dir/kube-apiserver" ] && [ -x "$bin_dir/etcd" ] \
  && [ "$(cat "$stamp" 2>/dev/null || true)" = "$inputs_hash" ]; then
  log "cached kube-apiserver $k8s_version, etcd $etcd_version"
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

log "building kube-apiserver $k8s_version ($(go version | cut -d' ' -f3))"
start=$SECONDS
(cd "$apiserver_mod" && go build -mod=readonly -trimpath -ldflags "$ldflags" \
  -o "$staging/kube-apiserver" k8s.io/kubernetes/cmd/kube-apiserver)
log "kube-apiserver built in $((SECONDS - start))s"

log "building etcd $etcd_version"
start=$SECONDS
(cd "$etcd_mod" && go build -mod=readonly -trimpath -ldflags "-s -w" \
  -o "$staging/etcd" go.etcd.io/etcd/server/v3)
log "etcd built in $((SECONDS - start))s"

rm -rf "$bin_dir"
mv "$staging" "$bin_dir"
echo "$inputs_hash" > "$stamp"
"$bin_dir/kube-apiserver" --version >&2
"$bin_dir/etcd" --version | head -1 >&2
echo "$bin_dir"
