#!/usr/bin/env bash
# Builds actionlint, the GitHub Actions workflow linter, from Go modules (pinned below) and prints
# the path of the cached binary. The release workflow cannot run on this machine, so linting it is
# what CI checks here (`npm run lint:workflows`).
#
# Usage: bash scripts/build-actionlint.sh [--force]
set -euo pipefail
exec bash "$(dirname "${BASH_SOURCE[0]}")/release/go-install.sh" actionlint \
  github.com/rhysd/actionlint/cmd/actionlint v1.7.12 "$@"
