#!/usr/bin/env bash
# Builds what the harness's real node (test/cluster/real-node.ts) needs beyond Debian's packages
# (containerd, runc, CNI plugins, iptables: scripts/install-node-tools.sh):
#   bin/kubelet, bin/kube-proxy  from test/cluster/kubernetes/<version>/go.mod (the wrapper module
#                                the control plane is built from too). The version:
#                                $KUBEMOD_NODE_K8S_VERSION, else $KUBEMOD_K8S_VERSION, else the
#                                newest module (scripts/kubernetes-version.sh)
#   pause.tar                    the Pod sandbox image: test/cluster/node/pause (a static Go
#                                program, module test/cluster/node) in an OCI archive made with umoci, named
#                                localhost/kubemod-ts/pause:harness for `ctr images import`
#
# Cached under ${XDG_CACHE_HOME:-~/.cache}/kubemod-ts/node/<k8s-version>-<inputs>/, keyed by the
# pinned version plus a hash of the inputs (the modules' go.mod/go.sum, the pause program and this
# script), like scripts/build-control-plane.sh. The last line printed on stdout is that directory.
#
# Usage: [KUBEMOD_NODE_K8S_VERSION=v1.x.y] bash scripts/build-node.sh [--force]
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
node_mod="$repo/test/cluster/node"
. "$repo/scripts/kubernetes-version.sh"
kube_mod="$(kubernetes_module_dir build-node "${KUBEMOD_NODE_K8S_VERSION:-}")" || exit 1
force=false
if [ "${1:-}" = "--force" ]; then force=true; fi

log() { echo "build-node: $*" >&2; }

# The Debian packages the node runs (idempotent, quiet when present), so that `npm run test:all`
# needs no step of its own on a fresh machine.
bash "$repo/scripts/install-node-tools.sh"

PAUSE_IMAGE=localhost/kubemod-ts/pause:harness
k8s_version="$(awk '$1 == "k8s.io/kubernetes" && $2 ~ /^v/ { print $2; exit }' "$kube_mod/go.mod")"
[ -n "$k8s_version" ] || {
  log "cannot read the pinned k8s.io/kubernetes version from $kube_mod/go.mod"
  exit 1
}
inputs_hash="$(cat "$kube_mod/go.mod" "$kube_mod/go.sum" "$node_mod/go.mod" "$node_mod/pause/main.go" \
  "${BASH_SOURCE[0]}" | sha256sum | cut -c1-16)"
target="${XDG_CACHE_HOME:-$HOME/.cache}/kubemod-ts/node/$k8s_version-$inputs_hash"
stamp="$target/inputs.sha256"

if ! $force && [ -x "$target/bin/kubelet" ] && [ -x "$target/bin/kube-proxy" ] \
  && [ -f "$target/pause.tar" ] && [ "$(cat "$stamp" 2> /dev/null || true)" = "$inputs_hash" ]; then
  log "cached kubelet, kube-proxy $k8s_version and the pause image"
  echo "$target"
  exit 0
fi

command -v umoci > /dev/null || {
  log "umoci is missing (bash scripts/image/install-tools.sh installs it)"
  exit 1
}
. "$repo/scripts/go-toolchain.sh"
require_go build-node 1.24 || exit 1
export CGO_ENABLED=0

mkdir -p "$target"
staging="$(mktemp -d "$target/tmp.XXXXXX")"
trap 'rm -rf "$staging"' EXIT
mkdir -p "$staging/bin"

minor="${k8s_version#v1.}"
minor="${minor%%.*}"
pkg=k8s.io/component-base/version
ldflags="-s -w -X $pkg.gitVersion=$k8s_version -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor"
ldflags="$ldflags -X $pkg.gitTreeState=clean -X $pkg.buildDate=$(date -u +%Y-%m-%dT%H:%M:%SZ)"

log "building kubelet, kube-proxy $k8s_version ($(go version | cut -d' ' -f3))"
start=$SECONDS
(cd "$kube_mod" && go build -mod=readonly -trimpath -ldflags "$ldflags" -o "$staging/bin/" \
  k8s.io/kubernetes/cmd/kubelet k8s.io/kubernetes/cmd/kube-proxy)
log "kubelet, kube-proxy built in $((SECONDS - start))s"

log "building the pause image ($PAUSE_IMAGE)"
(cd "$node_mod" && go build -mod=readonly -trimpath -ldflags "-s -w" -o "$staging/pause" ./pause)
layout="$staging/oci"
tag="${PAUSE_IMAGE##*:}"
umoci init --layout "$layout"
umoci new --image "$layout:$tag"
umoci unpack --image "$layout:$tag" "$staging/bundle" > /dev/null
install -m 0755 "$staging/pause" "$staging/bundle/rootfs/pause"
umoci repack --image "$layout:$tag" "$staging/bundle"
umoci config --image "$layout:$tag" --config.entrypoint /pause --config.user 65535:65535 \
  --architecture "$(go env GOARCH)" --os linux
umoci gc --layout "$layout"
# containerd names an imported image after this annotation of the index entry.
node -e '
  const fs = require("fs");
  const [file, name] = process.argv.slice(1);
  const index = JSON.parse(fs.readFileSync(file, "utf8"));
  for (const m of index.manifests) m.annotations = { ...m.annotations, "io.containerd.image.name": name };
  fs.writeFileSync(file, JSON.stringify(index));
' "$layout/index.json" "$PAUSE_IMAGE"
tar -C "$layout" -cf "$staging/pause.tar" .

rm -rf "${target:?}/bin" "${target:?}/pause.tar"
mv "$staging/bin" "$target/bin"
mv "$staging/pause.tar" "$target/pause.tar"
echo "$inputs_hash" > "$stamp"
"$target/bin/kubelet" --version >&2
"$target/bin/kube-proxy" --version >&2
echo "$target"
