#!/usr/bin/env bash
# Runs the unit tests on Node 24 LTS (the runtime of the container image), next to the Node 20
# run that .ci/run does. Everything comes from the npm registry:
#
#   - Node 24 itself is the `node` npm package, installed once under
#     ${XDG_CACHE_HOME:-~/.cache}/kubemod-ts/node24/ by scripts/fetch-node.sh (its arch package
#     `node-<os>-<arch>` carries both bin/node and include/node, the headers node-gyp needs).
#   - The repo is copied (without node_modules/dist) into a temporary directory and `npm ci` runs
#     there with Node 24 first on PATH, so the native `re2` addon is compiled for Node 24's ABI from
#     those headers. The Node 20 install in the repo is never touched. re2's prebuilt-binary
#     download from GitHub is skipped (DEVELOPMENT_SKIP_GETTING_ASSET) so it always builds locally.
#   - The resulting node_modules is cached by (Node version, package-lock.json hash) and hard-linked
#     into the next run's copy, so a warm run costs only the copy and the tests.
#
# Usage: bash scripts/ci-node24.sh [extra vitest args]
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cache_root="${XDG_CACHE_HOME:-$HOME/.cache}/kubemod-ts"
node_major=24

log() { echo "ci-node24: $*" >&2; }

node_dist="$(bash "$repo/scripts/fetch-node.sh" "$node_major")"

export PATH="$node_dist/bin:$PATH"
export npm_config_nodedir="$node_dist"
export DEVELOPMENT_SKIP_GETTING_ASSET=1
node_version="$(node --version)"
log "using node $node_version ($(command -v node)), headers from $npm_config_nodedir"

work="$(mktemp -d "${TMPDIR:-/tmp}/kubemod-ts-node24.XXXXXX")"
cleanup() { rm -rf "$work"; }
trap cleanup EXIT

tar -C "$repo" --exclude=./node_modules --exclude=./dist --exclude=./test-results \
  --exclude=./.git --exclude=./coverage -cf - . | tar -C "$work" -xf -

lock_hash="$(sha256sum "$repo/package-lock.json" | cut -c1-16)"
modules_cache="$cache_root/node24-modules/$node_version-$lock_hash"
if [ -d "$modules_cache/node_modules" ]; then
  log "reusing node_modules from $modules_cache"
  cp -al "$modules_cache/node_modules" "$work/node_modules" 2>/dev/null \
    || cp -a "$modules_cache/node_modules" "$work/node_modules"
else
  log "npm ci (builds re2 for $node_version)"
  (cd "$work" && npm ci --no-audit --no-fund >&2)
  rm -rf "$cache_root/node24-modules"
  mkdir -p "$modules_cache"
  cp -a "$work/node_modules" "$modules_cache/node_modules"
fi

# Fail loudly if re2 was not built for this Node (an ABI mismatch would otherwise surface as
# confusing test failures).
(cd "$work" && node -e "require('re2')") || {
  log "re2 does not load under node $node_version"
  exit 1
}

log "unit tests on node $node_version"
cd "$work"
status=0
npx vitest run --project unit "$@" || status=$?
# Keep the JSON report (CI=true) where .ci/run's summary looks for it.
if [ -d "$work/test-results" ]; then
  mkdir -p "$repo/test-results"
  cp "$work"/test-results/*.json "$repo/test-results/" 2>/dev/null || true
fi
exit "$status"
