#!/usr/bin/env bash
# The e2e tests whose outcome can depend on the Kubernetes version, against the OLDEST supported
# version (the oldest wrapper module under test/cluster/kubernetes/); `npm run test:e2e` runs
# every e2e file against the newest (the default). The control plane of the oldest is built and
# cached like the newest's (scripts/build-control-plane.sh, ~25 CPU-minutes cold).
#
# The subset: the files where the API server or its controllers decide the outcome — the served
# version and CRDs, the AdmissionReview the webhooks get (userInfo, oldObject, dry-run, warnings),
# webhook, CRD and ValidatingAdmissionPolicy validation of the bundle and the chart, RBAC and
# SubjectAccessReview, Deployments/ReplicaSets/Pods made by kube-controller-manager and bound by
# kube-scheduler. Left out: the files about the operator process and its artifacts (image,
# artifact, lifecycle, restart, in-cluster config, external data, lookups, audit, report tenancy,
# switching from KubeMod), which use the same API calls whatever the version.
#
# Usage: bash scripts/test-e2e-oldest-kubernetes.sh [extra vitest args]
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
oldest="$(find test/cluster/kubernetes -mindepth 1 -maxdepth 1 -type d -name 'v1.*' -printf '%f\n' \
  | sort -V | head -n 1)"
[ -n "$oldest" ] || { echo "test-e2e-oldest-kubernetes: no module in test/cluster/kubernetes" >&2; exit 1; }
export KUBEMOD_K8S_VERSION="$oldest"
echo "test-e2e-oldest-kubernetes: Kubernetes $oldest" >&2
bash scripts/build-control-plane.sh > /dev/null
VITEST_REPORT_NAME="e2e-$oldest" npx vitest run --project e2e \
  test/e2e/control-plane.e2e.test.ts \
  test/e2e/operator.e2e.test.ts \
  test/e2e/enforcement.e2e.test.ts \
  test/e2e/workloads.e2e.test.ts \
  test/e2e/bundle.e2e.test.ts \
  test/e2e/helm.e2e.test.ts \
  test/e2e/namespace-label-guard.e2e.test.ts \
  test/e2e/apply-existing-authz.e2e.test.ts \
  test/e2e/author-record.e2e.test.ts \
  test/e2e/forged-binding.e2e.test.ts \
  test/e2e/policy-reports.e2e.test.ts \
  "$@"
