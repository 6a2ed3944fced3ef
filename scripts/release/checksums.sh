#!/usr/bin/env bash
# Writes <dir>/checksums.txt: the SHA-256 of every regular file directly in <dir> (the release
# assets), one `<hex>  <name>` line each in `sha256sum` format, sorted by name, so users check a
# download with `sha256sum --check --ignore-missing checksums.txt`. Fails on an empty directory
# or a subdirectory (release assets are flat; a directory would silently go unchecked).
#
# Usage: bash scripts/release/checksums.sh <dir>
set -euo pipefail

dir="${1:?usage: checksums.sh <dir>}"
[ -d "$dir" ] || { echo "checksums: $dir is not a directory" >&2; exit 1; }
cd "$dir"
files=()
while IFS= read -r -d '' entry; do
  name="${entry#./}"
  [ "$name" = checksums.txt ] && continue
  if [ ! -f "$name" ] || [ -L "$name" ]; then
    echo "checksums: $dir/$name is not a regular file (release assets must be plain files)" >&2
    exit 1
  fi
  files+=("$name")
done < <(find . -mindepth 1 -maxdepth 1 -print0 | LC_ALL=C sort -z)
if [ "${#files[@]}" -eq 0 ]; then
  echo "checksums: no files in $dir" >&2
  exit 1
fi
sha256sum -- "${files[@]}" > checksums.txt.tmp
mv checksums.txt.tmp checksums.txt
echo "checksums: wrote $dir/checksums.txt (${#files[@]} files)" >&2
