#!/usr/bin/env bash
# Pushes the OCI layout written by `npm run image` to <ref> with crane and checks that the
# registry serves exactly the built manifest (its digest equals the layout's digest.txt), so what
# gets signed and pinned is what was built. Prints the pushed digest.
#
# Usage: bash scripts/release/push-image.sh <image dir (oci/, digest.txt)> <registry/repo:tag>
#   $CRANE: the crane binary (default: scripts/release/build-crane.sh builds it)
set -euo pipefail

dir="${1:?usage: push-image.sh <image dir> <ref>}"
ref="${2:?usage: push-image.sh <image dir> <ref>}"
crane="${CRANE:-$(bash "$(dirname "${BASH_SOURCE[0]}")/build-crane.sh")}"

built="$(tr -d '[:space:]' < "$dir/digest.txt")"
"$crane" push "$dir/oci" "$ref" > /dev/null
pushed="$("$crane" digest "$ref")"
if [ "$pushed" != "$built" ]; then
  echo "push-image: $ref has digest $pushed, the built image is $built" >&2
  exit 1
fi
echo "push-image: $ref = $pushed" >&2
echo "$pushed"
