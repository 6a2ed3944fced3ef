#!/usr/bin/env bash
# Installs the Debian packages the daemonless image build and its e2e test use, when missing:
# mmdebstrap (base layer), umoci (unpacks the OCI layout in the e2e test), runc (runs it),
# dpkg-deb (reads the .deb metadata), binutils (readelf), debian-archive-keyring (the keys
# build-image.sh passes to mmdebstrap with --keyring), plus any packages named as arguments
# (build-image.sh asks for a cross compiler that way). Quiet and idempotent; root or sudo.
#
# Usage: bash scripts/image/install-tools.sh [debian-package...]
set -euo pipefail

missing=()
for tool in mmdebstrap:mmdebstrap umoci:umoci runc:runc dpkg-deb:dpkg readelf:binutils; do
  command -v "${tool%%:*}" > /dev/null || missing+=("${tool#*:}")
done
[ -f /usr/share/keyrings/debian-archive-keyring.gpg ] || missing+=(debian-archive-keyring)
for package in "$@"; do
  dpkg-query -W -f='${Status}' "$package" 2> /dev/null | grep -q 'ok installed' \
    || missing+=("$package")
done
[ ${#missing[@]} -eq 0 ] && exit 0

sudo=""
if [ "$(id -u)" != 0 ]; then
  command -v sudo > /dev/null || {
    echo "install-tools: missing ${missing[*]}; run apt-get install ${missing[*]} as root" >&2
    exit 1
  }
  sudo=sudo
fi
echo "install-tools: apt-get install ${missing[*]}" >&2
$sudo apt-get update -qq > /dev/null
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
  "${missing[@]}" > /dev/null
