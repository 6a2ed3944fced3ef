#!/usr/bin/env bash
# Compiles re2's native addon in a node_modules installed with `npm ci --ignore-scripts`. re2 is
# the only dependency with an install script (package-lock.json: hasInstallScript), and that
# script first tries to download a prebuilt binary from GitHub (install-artifact-from-github);
# here node-gyp compiles it from the vendored sources instead, and no other package's install
# script runs. Used by the release workflow and scripts/build-artifact.sh.
#
# node-gyp reads npm_config_nodedir (the target Node's headers) and npm_config_arch (a cross
# build) from the environment, as under npm.
#
# Usage: bash scripts/release/build-re2.sh <node_modules dir>
set -euo pipefail

modules="$(cd "${1:?usage: build-re2.sh <node_modules dir>}" && pwd)"
re2="$modules/re2"
[ -f "$re2/binding.gyp" ] || {
  echo "build-re2: $re2/binding.gyp is missing (was npm ci run?)" >&2
  exit 1
}
# Without npm_config_nodedir node-gyp downloads the headers from nodejs.org; the running Node's own
# headers (setup-node, the node-linux-* packages and Debian's nodejs all ship include/node) are the
# same files and need no network.
if [ -z "${npm_config_nodedir:-}" ]; then
  prefix="$(dirname "$(dirname "$(command -v node)")")"
  if [ -f "$prefix/include/node/node_api.h" ]; then export npm_config_nodedir="$prefix"; fi
fi
# node-gyp is re2's own dependency: hoisted to the top or nested under re2.
gyp="$(node -p 'require.resolve("node-gyp/bin/node-gyp.js", { paths: [process.argv[1]] })' "$re2")"
echo "build-re2: node-gyp rebuild in $re2 (node $(node --version))" >&2
(cd "$re2" && node "$gyp" rebuild --jobs max >&2)
[ -f "$re2/build/Release/re2.node" ] || {
  echo "build-re2: node-gyp wrote no $re2/build/Release/re2.node" >&2
  exit 1
}
