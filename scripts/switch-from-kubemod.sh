#!/usr/bin/env bash
# Replaces a running KubeMod (kubemod/kubemod's bundle.yaml) with kubemod-ts, keeping every
# ModRule: the CRD and the kubemod-system namespace (where cluster-wide rules live) are never
# deleted, only updated by the apply. Read it before you run it; docs/install.md explains each step.
#
#   1. Delete KubeMod's two webhook configurations first. Its podbinding webhook fails closed, so
#      once KubeMod's operator is gone, leaving them would block every Pod binding; deleting them
#      also lets the bundle create its own cleanly, with one field owner, which is why the apply
#      then works server-side as well as client-side (no --force-conflicts anywhere).
#   2. Delete KubeMod's operator and certificate machinery: the Deployment (its selector differs
#      and cannot be changed in place), the monthly CronJob and its Job (they would rewrite the
#      webhooks' caBundle with KubeMod's CA), both Services, the certificate Secret, and the
#      kubemod-crt / kubemod-manager RBAC objects (bound to the namespace's default account).
#   3. Apply the bundle. Between 1 and the end of 3 resources are admitted without rules.
#
# Usage: bash scripts/switch-from-kubemod.sh [--server-side] [bundle.yaml]
#   KUBECONFIG / the current kubectl context select the cluster.
set -euo pipefail

apply=(apply)
bundle=bundle.yaml
for arg in "$@"; do
  case "$arg" in
    --server-side) apply=(apply --server-side) ;;
    -h | --help) sed -n '2,/^set /p' "$0" | sed '$d; s/^# \{0,1\}//' && exit 0 ;;
    -*) echo "switch-from-kubemod: unknown option $arg" >&2 && exit 2 ;;
    *) bundle="$arg" ;;
  esac
done
[ -f "$bundle" ] || { echo "switch-from-kubemod: $bundle not found" >&2; exit 1; }

ns=kubemod-system
set -x
kubectl delete mutatingwebhookconfiguration kubemod-mutating-webhook-configuration --ignore-not-found
kubectl delete validatingwebhookconfiguration kubemod-validating-webhook-configuration --ignore-not-found
kubectl -n "$ns" delete deployment kubemod-operator --ignore-not-found
kubectl -n "$ns" delete cronjob kubemod-crt-cron-job --ignore-not-found
kubectl -n "$ns" delete job kubemod-crt-job --ignore-not-found
kubectl -n "$ns" delete service kubemod-webapp-service kubemod-webhook-service --ignore-not-found
kubectl -n "$ns" delete secret webhook-server-cert --ignore-not-found
kubectl -n "$ns" delete role,rolebinding kubemod-crt --ignore-not-found
kubectl delete clusterrole,clusterrolebinding kubemod-crt kubemod-manager --ignore-not-found
kubectl label namespace kube-system admission.kubemod.io/ignore=true --overwrite
kubectl "${apply[@]}" -f "$bundle"
