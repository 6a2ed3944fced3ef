#!/usr/bin/env bash
# Creates the multi-arch image index <repo>:<tag> from per-architecture images already in <repo>
# (crane reads each one's platform from its config) and prints the index digest. Fails unless the
# index lists exactly the given digests, each with its platform.
#
# Usage: bash scripts/release/push-index.sh <registry/repo> <tag> <sha256:digest>...
#   $CRANE: the crane binary (default: scripts/release/build-crane.sh builds it)
set -euo pipefail

repo="${1:?usage: push-index.sh <registry/repo> <tag> <digest>...}"
tag="${2:?usage: push-index.sh <registry/repo> <tag> <digest>...}"
shift 2
[ $# -gt 0 ] || { echo "push-index: no image digests given" >&2; exit 1; }
crane="${CRANE:-$(bash "$(dirname "${BASH_SOURCE[0]}")/build-crane.sh")}"

manifests=()
for digest in "$@"; do manifests+=(-m "$repo@$digest"); done
"$crane" index append "${manifests[@]}" -t "$repo:$tag" > /dev/null
# shellcheck disable=SC2016 # a JavaScript template literal, not shell
listed="$("$crane" manifest "$repo:$tag" \
  | node -e 'const m = JSON.parse(require("fs").readFileSync(0, "utf8")); console.log(m.manifests.map((d) => `${d.digest} ${d.platform?.os}/${d.platform?.architecture}`).sort().join("\n"))')"
expected="$(printf '%s\n' "$@" | sort)"
if [ "$(cut -d' ' -f1 <<< "$listed")" != "$expected" ]; then
  echo "push-index: $repo:$tag lists" "$listed" "instead of" "$@" >&2
  exit 1
fi
if grep -q undefined <<< "$listed"; then
  echo "push-index: an image in $repo:$tag has no os/architecture in its config:" "$listed" >&2
  exit 1
fi
index="$("$crane" digest "$repo:$tag")"
echo "push-index: $repo:$tag = $index: $(tr '\n' ' ' <<< "$listed")" >&2
echo "$index"
