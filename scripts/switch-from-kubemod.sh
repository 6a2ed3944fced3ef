#!/usr/bin/env bash
# Replaces a running KubeMod (installed from kubemod/kubemod's bundle.yaml, or with KubeMod's own
# Helm chart kubemod/kubemod-helm) with kubemod-ts, keeping every ModRule: the CRD and the
# kubemod-system namespace (where cluster-wide rules live) are never deleted, and no ModRule is
# written. Read it before you run it; docs/install.md#switching-from-kubemod explains each step.
#
#   1. Delete KubeMod's two webhook configurations first. Its podbinding webhook fails closed, so
#      once KubeMod's operator is gone, leaving them would block every Pod binding; deleting them
#      also lets the bundle create its own cleanly, with one field owner, which is why the apply
#      then works server-side as well as client-side (no --force-conflicts anywhere).
#   2. KubeMod installed with its chart (found by the Helm annotations on its webhook
#      configuration): delete every object of that release (its Deployment, ServiceAccounts,
#      Services, certificate CronJob and Job, RBAC) except ModRules and the CRD, then its release
#      record, so a later `helm uninstall` of it finds nothing to delete (it would otherwise
#      delete our Service and webhook configurations, which have the same names).
#   3. Delete KubeMod's bundle objects: the Deployment (its selector differs and cannot be changed
#      in place), the monthly CronJob and its Job (they would rewrite the webhooks' caBundle with
#      KubeMod's CA), both Services, the certificate Secret, and the kubemod-crt /
#      kubemod-manager RBAC objects.
#   4. Apply the bundle, or with --helm install the chart (adopting the CRD and namespace
#      KubeMod created). From 1 until the new operator's Pods are Ready, resources are admitted
#      without rules; docs/install.md says what to check afterwards.
#
# Usage: bash switch-from-kubemod.sh [--server-side] [bundle.yaml]
#        bash switch-from-kubemod.sh --helm <chart> [--release <name>] [-- <helm install flags>]
#   bundle.yaml  default: bundle.yaml in the current directory. As a release asset, this script
#                applies only a bundle that pins the operator image by digest: the bundle.yaml of
#                the same release (check both with the release's checksums.txt).
#   --helm       `helm install <name> <chart> -n kubemod-system --take-ownership` (Helm >= 3.17)
#                instead of the bundle; flags after `--` go to helm (e.g. --version, --set).
#   --release    name of the kubemod-ts Helm release (default kubemod-ts).
#   KUBECONFIG / the current kubectl context select the cluster; $HELM names the helm binary.
set -euo pipefail

# Set by scripts/release/assemble.sh in the copy published with a release.
release_version=""

apply=(apply)
bundle=bundle.yaml
chart=""
release=kubemod-ts
helm_args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --server-side) apply=(apply --server-side) && shift ;;
    --helm) chart="${2:?--helm needs a chart}" && shift 2 ;;
    --release) release="${2:?--release needs a name}" && shift 2 ;;
    --) shift && helm_args=("$@") && break ;;
    -h | --help) sed -n '2,/^set /p' "$0" | sed '$d; s/^# \{0,1\}//' && exit 0 ;;
    -*) echo "switch-from-kubemod: unknown option $1" >&2 && exit 2 ;;
    *) bundle="$1" && shift ;;
  esac
done
helm="${HELM:-helm}"
if [ -n "$chart" ]; then
  command -v "$helm" > /dev/null || { echo "switch-from-kubemod: $helm not found" >&2; exit 1; }
else
  [ -f "$bundle" ] || { echo "switch-from-kubemod: $bundle not found" >&2; exit 1; }
  if [ -n "$release_version" ] && ! grep -Eq '^ +image: .+@sha256:[0-9a-f]{64}$' "$bundle"; then
    echo "switch-from-kubemod: $bundle does not pin the operator image by digest; use the" \
      "bundle.yaml of release v$release_version (sha256sum --check checksums.txt)" >&2
    exit 1
  fi
fi

ns=kubemod-system
mutating=kubemod-mutating-webhook-configuration
validating=kubemod-validating-webhook-configuration

# KubeMod's chart labels every object helm.sh/chart=kubemod-<version> and
# app.kubernetes.io/instance=<release>, and Helm annotates it with the release's name and
# namespace. Ours is kubemod-ts-<version>: a second run after a switch leaves ours alone. The
# Services are asked too, for a run that stopped after deleting the webhook configurations.
meta='{.metadata.annotations.meta\.helm\.sh/release-name} {.metadata.annotations.meta\.helm\.sh/release-namespace} {.metadata.labels.helm\.sh/chart}'
old_release=""
for object in "mutatingwebhookconfiguration $mutating" "validatingwebhookconfiguration $validating" \
  "-n $ns service kubemod-webhook-service" "-n $ns service kubemod-webapp-service"; do
  # shellcheck disable=SC2086 # $object is several words on purpose
  read -r old_release old_ns old_chart < <(
    kubectl get $object --ignore-not-found -o jsonpath="$meta"
    echo
  ) || true
  case "${old_chart:-}" in kubemod-[0-9]*) break ;; *) old_release="" ;; esac
done

set -x
kubectl delete mutatingwebhookconfiguration "$mutating" --ignore-not-found
kubectl delete validatingwebhookconfiguration "$validating" --ignore-not-found
if [ -n "$old_release" ]; then
  selector="helm.sh/chart=$old_chart,app.kubernetes.io/instance=$old_release"
  kubectl -n "$old_ns" delete deployment,service,serviceaccount,cronjob,job,role,rolebinding \
    -l "$selector" --ignore-not-found
  kubectl delete clusterrole,clusterrolebinding -l "$selector" --ignore-not-found
  kubectl -n "$old_ns" delete secret webhook-server-cert --ignore-not-found
  # Helm's release record (Secrets by default, ConfigMaps with HELM_DRIVER=configmap). ModRules
  # the chart's `modrules` value created stay, untouched, with Helm's labels on them.
  kubectl -n "$old_ns" delete secret,configmap -l "owner=helm,name=$old_release" --ignore-not-found
fi
kubectl -n "$ns" delete deployment kubemod-operator --ignore-not-found
kubectl -n "$ns" delete cronjob kubemod-crt-cron-job --ignore-not-found
kubectl -n "$ns" delete job kubemod-crt-job --ignore-not-found
kubectl -n "$ns" delete service kubemod-webapp-service kubemod-webhook-service --ignore-not-found
kubectl -n "$ns" delete secret webhook-server-cert --ignore-not-found
kubectl -n "$ns" delete role,rolebinding kubemod-crt --ignore-not-found
kubectl delete clusterrole,clusterrolebinding kubemod-crt kubemod-manager --ignore-not-found
kubectl label namespace kube-system admission.kubemod.io/ignore=true --overwrite
if [ -n "$chart" ]; then
  "$helm" install "$release" "$chart" -n "$ns" --take-ownership "${helm_args[@]}"
else
  kubectl "${apply[@]}" -f "$bundle"
fi
