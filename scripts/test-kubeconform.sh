#!/usr/bin/env bash
# The published ModRule schema as kubeconform uses it (docs/testing-rules.md): kubeconform, built
# from its Go module (pinned, cached by scripts/release/go-install.sh), finds
# schemas/modrule-api-v1beta1.json through its `{{ .ResourceKind }}{{ .KindSuffix }}` template,
# accepts every ModRule file of samples/ (rules and recipes), and refuses a misspelt field.
# (Unit tests check the same with ajv, as editors read the schema: test/unit/schema/.)
#
# Usage: bash scripts/test-kubeconform.sh
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
log() { echo "test-kubeconform: $*" >&2; }
kubeconform="$(bash "$repo/scripts/release/go-install.sh" kubeconform \
  github.com/yannh/kubeconform/cmd/kubeconform v0.7.0)"
location="$repo/schemas/{{ .ResourceKind }}{{ .KindSuffix }}.json"

cd "$repo"
mapfile -t files < <(grep -rl --include='*.yaml' '^kind: ModRule' samples | sort)
[ "${#files[@]}" -gt 10 ] || {
  log "found only ${#files[@]} ModRule files in samples/"
  exit 1
}
"$kubeconform" -strict -summary -schema-location "$location" "${files[@]}"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cat > "$work/misspelt.yaml" << 'YAML'
apiVersion: api.kubemod.io/v1beta1
kind: ModRule
metadata:
  name: misspelt
spec:
  type: Reject
  match:
    - select: $.kind
      matchValeu: Pod
YAML
if out="$("$kubeconform" -strict -schema-location "$location" "$work/misspelt.yaml" 2>&1)"; then
  log "kubeconform accepted a ModRule with the misspelt field matchValeu"
  exit 1
fi
grep -q "additional properties 'matchValeu' not allowed" <<< "$out" || {
  log "kubeconform refused the misspelt ModRule for another reason: $out"
  exit 1
}
log "OK: ${#files[@]} ModRule files valid, the misspelt field refused"
