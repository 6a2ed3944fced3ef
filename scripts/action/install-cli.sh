#!/usr/bin/env bash
# Installs the kubemod-ts CLI for the GitHub Action (action.yml) and sets KUBEMOD_TS (the command
# that runs it) in $GITHUB_ENV for the next step.
#
# KUBEMOD_TS_VERSION=source (the default): builds the CLI from the action's own checkout
# ($ACTION_PATH, at the ref the workflow named) as the release does: npm ci without install
# scripts, re2's addon compiled from its vendored sources (scripts/release/build-re2.sh), tsc.
# KUBEMOD_TS_VERSION=<x.y.z>: installs that version of the kubemod-ts npm package instead.
set -euo pipefail

log() { echo "kubemod-ts action: $*" >&2; }
: "${ACTION_PATH:?}" "${GITHUB_ENV:?}"
version="${KUBEMOD_TS_VERSION:-source}"

if [ "$version" = source ]; then
  log "building the CLI from $ACTION_PATH"
  cd "$ACTION_PATH"
  npm ci --ignore-scripts --no-audit --no-fund > /dev/null
  bash scripts/release/build-re2.sh node_modules
  npx --no-install tsc -p tsconfig.build.json
  main="$ACTION_PATH/dist/src/cli/main.js"
elif [[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+([-+][0-9A-Za-z.-]+)?$ ]]; then
  prefix="${RUNNER_TEMP:-/tmp}/kubemod-ts-cli"
  log "installing kubemod-ts@$version from npm"
  npm install --prefix "$prefix" --no-audit --no-fund --no-save "kubemod-ts@$version" > /dev/null
  main="$prefix/node_modules/kubemod-ts/dist/src/cli/main.js"
else
  echo "::error title=kubemod-ts action::version must be source or a version number (x.y.z), got ${version//[$'\r\n']/ }"
  exit 2
fi
[ -f "$main" ] || {
  log "$main is missing after the install"
  exit 1
}
echo "KUBEMOD_TS=node $main" >> "$GITHUB_ENV"
log "installed: KUBEMOD_TS=node $main"
