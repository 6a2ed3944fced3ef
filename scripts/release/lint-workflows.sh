#!/usr/bin/env bash
# Lints the GitHub Actions workflows with actionlint (built from Go modules by
# scripts/build-actionlint.sh), including the shell of every `run:` step through shellcheck, and
# the release scripts themselves with shellcheck. shellcheck comes from Debian: installed with
# apt-get when missing and running as root, otherwise the lint fails and says how to install it.
#
# Usage: bash scripts/release/lint-workflows.sh   (npm run lint:workflows)
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
log() { echo "lint-workflows: $*" >&2; }

if ! command -v shellcheck > /dev/null; then
  if [ "$(id -u)" = 0 ] && command -v apt-get > /dev/null; then
    log "installing shellcheck (apt-get)"
    apt-get update -qq > /dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends shellcheck > /dev/null
  else
    log "shellcheck not found: install it (apt-get install shellcheck) and run again"
    exit 1
  fi
fi

actionlint="$(bash "$repo/scripts/build-actionlint.sh")"
cd "$repo"
"$actionlint" -shellcheck "$(command -v shellcheck)" -no-color
shellcheck --external-sources --source-path=SCRIPTDIR \
  scripts/release/*.sh scripts/build-actionlint.sh scripts/switch-from-kubemod.sh scripts/action/*.sh
log "clean: .github/workflows/*.yml ($(find .github/workflows -name '*.yml' | wc -l) files), scripts/release/*.sh"
