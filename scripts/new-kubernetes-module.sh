#!/usr/bin/env bash
# Writes test/cluster/kubernetes/<version>/go.mod and go.sum: the wrapper module from which
# scripts/build-control-plane.sh (kube-apiserver, kube-controller-manager, kube-scheduler) and
# scripts/build-node.sh (kubelet, kube-proxy) build one Kubernetes version. k8s.io/kubernetes
# replaces its staging modules (k8s.io/api, ...) with ./staging paths, which a module that
# requires it cannot follow, so each is pinned here to the matching v0.<minor>.<patch> release.
# Run once per new version, commit the result, add the version to test/cluster/kubernetes-versions.ts.
#
# Usage: bash scripts/new-kubernetes-module.sh v1.37.2
set -euo pipefail

version="${1:?usage: $0 v1.<minor>.<patch>}"
[[ "$version" =~ ^v1\.[0-9]+\.[0-9]+$ ]] || { echo "not a release version: $version" >&2; exit 1; }
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dir="$repo/test/cluster/kubernetes/$version"
staging_version="v0.${version#v1.}"

. "$repo/scripts/go-toolchain.sh"
require_go new-kubernetes-module 1.26 || exit 1

upstream_mod="$(go mod download -json "k8s.io/kubernetes@$version" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')"
go_line="$(awk '$1 == "go" { print $2; exit }' "$upstream_mod")"
mapfile -t staged < <(sed -n '/^replace (/,/^)/p' "$upstream_mod" | awk '$2 == "=>" && $3 ~ /^\.\/staging/ { print $1 }')

mkdir -p "$dir"
{
  echo "// Wrapper module that builds Kubernetes $version for the e2e harness: the control plane"
  echo "// (scripts/build-control-plane.sh) and the real node's kubelet and kube-proxy"
  echo "// (scripts/build-node.sh). Written by scripts/new-kubernetes-module.sh."
  echo "module github.com/kubemod-ts/kubemod-ts/test/cluster/kubernetes/$version"
  echo
  echo "go $go_line"
  echo
  echo "tool ("
  for cmd in kube-apiserver kube-controller-manager kube-scheduler kubelet kube-proxy; do
    echo "	k8s.io/kubernetes/cmd/$cmd"
  done
  echo ")"
  echo
  echo "require k8s.io/kubernetes $version"
  echo
  echo "replace ("
  for module in "${staged[@]}"; do echo "	$module => $module $staging_version"; done
  echo ")"
} > "$dir/go.mod"
(cd "$dir" && go mod tidy)
echo "$dir"
