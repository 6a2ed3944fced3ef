#!/usr/bin/env bash
# Derives the release's names from the pushed tag and the repository owner and prints them as
# `key=value` lines (the format of $GITHUB_OUTPUT):
#   version=0.2.0                         the tag without its v; must equal package.json's version,
#                                         which names the image in bundle.yaml and the chart
#   image=ghcr.io/<owner>/kubemod-ts      the image repository (registry paths are lowercase)
#   charts=oci://ghcr.io/<owner>/charts   where `helm push` puts the chart
#
# Usage: bash scripts/release/release-env.sh <tag> <owner>
set -euo pipefail

tag="${1:?usage: release-env.sh <tag> <owner>}"
owner="${2:?usage: release-env.sh <tag> <owner>}"
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"

if ! [[ "$tag" =~ ^v(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z.-]+)?$ ]]; then
  echo "release-env: tag $tag is not v<major>.<minor>.<patch>[-<prerelease>]" >&2
  exit 1
fi
version="${tag#v}"
package_version="$(node -p 'require(process.argv[1]).version' "$repo/package.json")"
if [ "$version" != "$package_version" ]; then
  echo "release-env: tag $tag does not match package.json version $package_version" \
    "(bump package.json and config/manager/deployment.yaml, run npm run bundle, then tag)" >&2
  exit 1
fi
owner="$(printf '%s' "$owner" | tr '[:upper:]' '[:lower:]')"
echo "version=$version"
echo "image=ghcr.io/$owner/kubemod-ts"
echo "charts=oci://ghcr.io/$owner/charts"
