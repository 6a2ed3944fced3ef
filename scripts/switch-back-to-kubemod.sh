#!/usr/bin/env bash
# Rolls a switch from KubeMod back: removes kubemod-ts (installed from its bundle or its Helm
# chart) and applies KubeMod's bundle.yaml, keeping every ModRule. The ModRule CRD and the
# kubemod-system namespace are never deleted and no ModRule is written. docs/install.md#rollback
# explains each step.
#
#   1. Delete kubemod-ts's webhook configurations (KubeMod's have the same names; its bundle
#      creates them afresh).
#   2. Delete every other kubemod-ts object, found by the labels the bundle and the chart put on
#      them (app.kubernetes.io/part-of=kubemod with an app.kubernetes.io/component), the
#      certificate Secret and the leader Lease the operator created, and, for a Helm install, the
#      release record. Not `helm uninstall`: a release of an older chart would delete the
#      namespace it created, and with it the cluster-wide ModRules.
#   3. Apply KubeMod's bundle (unless --remove-only: then install KubeMod your way, e.g.
#      `helm install kubemod kubemod/kubemod -n kubemod-system`).
#   The ExternalDataProvider CRD stays (KubeMod has none; deleting it would delete its objects).
#
# Usage: bash switch-back-to-kubemod.sh [--server-side] <KubeMod's bundle.yaml>
#        bash switch-back-to-kubemod.sh --remove-only
#   KUBECONFIG / the current kubectl context select the cluster.
set -euo pipefail

apply=(apply)
bundle=""
remove_only=false
while [ $# -gt 0 ]; do
  case "$1" in
    --server-side) apply=(apply --server-side) && shift ;;
    --remove-only) remove_only=true && shift ;;
    -h | --help) sed -n '2,/^set /p' "$0" | sed '$d; s/^# \{0,1\}//' && exit 0 ;;
    -*) echo "switch-back-to-kubemod: unknown option $1" >&2 && exit 2 ;;
    *) bundle="$1" && shift ;;
  esac
done
if ! $remove_only; then
  [ -n "$bundle" ] || { echo "switch-back-to-kubemod: name KubeMod's bundle.yaml (or --remove-only)" >&2; exit 2; }
  [ -f "$bundle" ] || { echo "switch-back-to-kubemod: $bundle not found" >&2; exit 1; }
fi

ns=kubemod-system
ours='app.kubernetes.io/part-of=kubemod,app.kubernetes.io/component'
meta='{.metadata.annotations.meta\.helm\.sh/release-name} {.metadata.labels.helm\.sh/chart}'
release=""
# The Service and the webhook configuration too, for a run that stopped half-way.
for object in "-n $ns deployment kubemod-operator" "-n $ns service kubemod-webhook-service" \
  "mutatingwebhookconfiguration kubemod-mutating-webhook-configuration"; do
  # shellcheck disable=SC2086 # $object is several words on purpose
  read -r release chart < <(
    kubectl get $object --ignore-not-found -o jsonpath="$meta"
    echo
  ) || true
  case "${chart:-}" in kubemod-ts-*) break ;; *) release="" ;; esac
done
# Kinds that exist only with the Prometheus Operator (the chart's monitoring.* values).
monitoring=$(kubectl api-resources --api-group=monitoring.coreos.com -o name 2> /dev/null \
  | grep -E '^(podmonitors|prometheusrules)\.' | paste -sd, -) || true

set -x
kubectl delete mutatingwebhookconfiguration,validatingwebhookconfiguration -l "$ours" --ignore-not-found
kubectl -n "$ns" delete deployment,service,serviceaccount,role,rolebinding,poddisruptionbudget,networkpolicy,configmap \
  -l "$ours" --ignore-not-found
kubectl delete clusterrole,clusterrolebinding,validatingadmissionpolicy,validatingadmissionpolicybinding \
  -l "$ours" --ignore-not-found
if [ -n "$monitoring" ]; then kubectl -n "$ns" delete "$monitoring" -l "$ours" --ignore-not-found; fi
kubectl -n "$ns" delete secret kubemod-webhook-server-cert --ignore-not-found
kubectl -n "$ns" delete lease kubemod-operator-leader --ignore-not-found
if [ -n "$release" ]; then
  kubectl -n "$ns" delete secret,configmap -l "owner=helm,name=$release" --ignore-not-found
fi
if ! $remove_only; then kubectl "${apply[@]}" -f "$bundle"; fi
