#!/usr/bin/env bash
# Builds crane (github.com/google/go-containerregistry), which the release workflow uses to push
# the OCI layouts of `npm run image` and to assemble the multi-arch index, from Go modules (pinned
# below), and prints the path of the cached binary.
#
# Usage: bash scripts/release/build-crane.sh [--force]
set -euo pipefail
exec bash "$(dirname "${BASH_SOURCE[0]}")/go-install.sh" crane \
  github.com/google/go-containerregistry/cmd/crane v0.22.1 "$@"
