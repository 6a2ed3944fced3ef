#!/usr/bin/env bash
# Makes a headless Chromium available to the browser tests (test/browser). Idempotent: nothing
# is installed when one is found ($CHROMIUM_PATH, or chromium / chromium-browser on PATH);
# otherwise Debian's `chromium` package and a font are installed with apt-get (as root, or with
# passwordless sudo). Prints the browser's path and version.
set -euo pipefail

find_browser() {
  if [ -n "${CHROMIUM_PATH:-}" ]; then
    [ -x "$CHROMIUM_PATH" ] && echo "$CHROMIUM_PATH" && return 0
    echo "install-chromium: CHROMIUM_PATH=$CHROMIUM_PATH is not an executable" >&2
    return 1
  fi
  local name
  for name in chromium chromium-browser; do
    if command -v "$name" >/dev/null 2>&1; then
      command -v "$name"
      return 0
    fi
  done
  return 1
}

if browser="$(find_browser)"; then
  echo "install-chromium: using $browser ($("$browser" --version 2>/dev/null || echo 'version unknown'))"
  exit 0
fi
if [ -n "${CHROMIUM_PATH:-}" ]; then exit 1; fi

if [ "$(id -u)" -eq 0 ]; then
  sudo=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  sudo=(sudo)
else
  echo "install-chromium: no Chromium found and cannot install one (not root, no passwordless sudo)." >&2
  echo "Install Debian's 'chromium' package, or set CHROMIUM_PATH to a Chromium or Chrome binary." >&2
  exit 1
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "install-chromium: no Chromium found and no apt-get; set CHROMIUM_PATH to a Chromium binary." >&2
  exit 1
fi

echo "install-chromium: installing Debian's chromium package" >&2
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
# A font so that the page and its screenshot have readable text.
"${sudo[@]}" apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >&2
browser="$(find_browser)"
echo "install-chromium: installed $browser ($("$browser" --version 2>/dev/null || echo 'version unknown'))"
