# Sourced by scripts/build-control-plane.sh and scripts/build-node.sh: which Kubernetes version
# the harness builds. Each supported version has a wrapper module test/cluster/kubernetes/<version>/
# (scripts/new-kubernetes-module.sh writes one); $KUBEMOD_K8S_VERSION picks one, and without it the
# newest is taken. test/cluster/kubernetes-versions.ts makes the same choice for the TypeScript side.
#   kubernetes_module_dir <caller> [<version>]   prints the module directory of <version> (default:
#   $KUBEMOD_K8S_VERSION, else the newest), or fails naming the versions there
kubernetes_module_dir() {
  local root requested newest available
  root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/test/cluster/kubernetes"
  newest="$(find "$root" -mindepth 1 -maxdepth 1 -type d -name 'v1.*' -printf '%f\n' | sort -V | tail -n 1)"
  requested="${2:-${KUBEMOD_K8S_VERSION:-$newest}}"
  if [ -z "$requested" ] || [ ! -f "$root/$requested/go.mod" ]; then
    available="$(find "$root" -mindepth 1 -maxdepth 1 -type d -printf '%f\n' | sort -V | tr '\n' ' ')"
    echo "$1: no wrapper module for Kubernetes '$requested'; available: $available" >&2
    return 1
  fi
  echo "$root/$requested"
}
