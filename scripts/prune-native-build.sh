#!/usr/bin/env bash
# Removes native-addon build leftovers from a production node_modules: re2 needs only
# build/Release/re2.node at run time, not its object files (~70 MB) or vendored C++ sources.
# Used by the Dockerfile and scripts/build-artifact.sh so both ship the same tree.
#
# Usage: bash scripts/prune-native-build.sh <node_modules dir>
set -euo pipefail

modules="${1:?usage: $0 <node_modules dir>}"
re2="$modules/re2"
if [ ! -f "$re2/build/Release/re2.node" ]; then
  echo "prune-native-build: $re2/build/Release/re2.node is missing" >&2
  exit 1
fi
find "$re2/build" -mindepth 1 -maxdepth 1 ! -name Release -exec rm -rf {} +
find "$re2/build/Release" -mindepth 1 -maxdepth 1 ! -name re2.node -exec rm -rf {} +
rm -rf "$re2/vendor"
