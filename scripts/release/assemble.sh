#!/usr/bin/env bash
# Assembles the GitHub release assets from images already built by `npm run image` (one directory
# per architecture) and the digest the images are published under:
#
#   bundle.yaml                                   the install manifest, image pinned by digest
#   kubemod-ts-<version>.tgz                      the Helm chart (scripts/chart/package.sh)
#   kubemod-ts-<version>-linux-<arch>.tar         docker-archive of the image, for air-gapped installs
#   kubemod-ts-<version>-linux-<arch>.sbom.cdx.json    CycloneDX SBOM of the npm dependencies
#   kubemod-ts-<version>-linux-<arch>.debian-packages.txt  Debian packages in the image
#   switch-from-kubemod.sh                        the switch from KubeMod, applying only a bundle
#                                                 pinned by digest (this release's bundle.yaml)
#   switch-back-to-kubemod.sh                     its rollback
#   kubemod-ts-cli-<version>.tgz                  the CLI's npm package (`npm pack`), for
#                                                 `npm install -g <its URL>` without a checkout
#   modrule-api-v1beta1.json, externaldataprovider-api-v1beta1.json, kubemod-test.json
#                                                 JSON Schemas (schemas/, npm run schema) for
#                                                 editors and kubeconform (docs/testing-rules.md)
#   checksums.txt                                 SHA-256 of all of the above
#
# The release workflow runs it with the multi-arch index digest; scripts/release/dry-run.sh runs it
# here with the single image's manifest digest. Every input is checked: a missing file, a digest
# that is not the image's, or a chart script that writes nothing fails the run.
#
# Usage: bash scripts/release/assemble.sh --version <v> --image <registry/path> --digest <sha256:…>
#          --images <dir with <arch>/ subdirectories> --cli-package <npm pack tarball> --out <dir>
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
log() { echo "assemble: $*" >&2; }
die() {
  log "$*"
  exit 1
}

version="" image="" digest="" images="" cli_package="" out=""
while [ $# -gt 0 ]; do
  case "$1" in
    --version) version="${2:?}" && shift 2 ;;
    --image) image="${2:?}" && shift 2 ;;
    --digest) digest="${2:?}" && shift 2 ;;
    --images) images="${2:?}" && shift 2 ;;
    --cli-package) cli_package="${2:?}" && shift 2 ;;
    --out) out="${2:?}" && shift 2 ;;
    *) die "unknown argument $1 (see the header of $0)" ;;
  esac
done
if [ -z "$version" ] || [ -z "$image" ] || [ -z "$digest" ] || [ -z "$images" ] \
  || [ -z "$cli_package" ] || [ -z "$out" ]; then
  die "--version, --image, --digest, --images, --cli-package and --out are all required"
fi
[[ "$digest" =~ ^sha256:[0-9a-f]{64}$ ]] || die "--digest $digest is not sha256:<64 hex digits>"
[ -d "$images" ] || die "--images $images is not a directory"

# verify_image <dir>: digest.txt names a manifest that the OCI layout's index.json lists and whose
# blob hashes to it; the archive and SBOM exist.
verify_image() {
  local dir="$1" manifest_digest blob
  for f in digest.txt kubemod-ts.tar sbom.cdx.json packages.txt oci/index.json; do
    [ -f "$dir/$f" ] || die "$dir/$f is missing (was the image built with npm run image?)"
  done
  manifest_digest="$(tr -d '[:space:]' < "$dir/digest.txt")"
  [[ "$manifest_digest" =~ ^sha256:[0-9a-f]{64}$ ]] || die "$dir/digest.txt: not a sha256 digest"
  grep -q "\"$manifest_digest\"" "$dir/oci/index.json" \
    || die "$dir/oci/index.json does not list $manifest_digest"
  blob="$dir/oci/blobs/sha256/${manifest_digest#sha256:}"
  [ -f "$blob" ] || die "$dir/oci: manifest blob $manifest_digest is missing"
  [ "sha256:$(sha256sum "$blob" | cut -d' ' -f1)" = "$manifest_digest" ] \
    || die "$blob does not hash to its name"
  node -e 'JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).bomFormat === "CycloneDX" || process.exit(1)' \
    "$dir/sbom.cdx.json" || die "$dir/sbom.cdx.json is not a CycloneDX document"
}

rm -rf "$out"
mkdir -p "$out"
archs=()
for dir in "$images"/*/; do
  arch="$(basename "$dir")"
  case "$arch" in amd64 | arm64) ;; *) die "$images/$arch: expected amd64 or arm64 directories" ;; esac
  verify_image "$dir"
  cp "$dir/kubemod-ts.tar" "$out/kubemod-ts-$version-linux-$arch.tar"
  cp "$dir/sbom.cdx.json" "$out/kubemod-ts-$version-linux-$arch.sbom.cdx.json"
  cp "$dir/packages.txt" "$out/kubemod-ts-$version-linux-$arch.debian-packages.txt"
  archs+=("$arch")
done
[ "${#archs[@]}" -gt 0 ] || die "no image directories under $images"
log "images: ${archs[*]}"

(cd "$repo" && npx --no-install tsx scripts/release/pin-bundle.ts "$digest" --repository "$image" \
  --in bundle.yaml --out "$out/bundle.yaml") >&2

# The switch scripts, for users without a checkout; the switch is stamped with the version, which
# makes it refuse a bundle that does not pin the image by digest.
sed "s/^release_version=\"\"\$/release_version=\"$version\"/" "$repo/scripts/switch-from-kubemod.sh" \
  > "$out/switch-from-kubemod.sh"
grep -qx "release_version=\"$version\"" "$out/switch-from-kubemod.sh" \
  || die "scripts/switch-from-kubemod.sh has no release_version=\"\" line to stamp"
cp "$repo/scripts/switch-back-to-kubemod.sh" "$out/switch-back-to-kubemod.sh"

chart_script="$repo/scripts/chart/package.sh"
[ -f "$chart_script" ] || die "$chart_script is missing: the release needs the Helm chart"
chart="$(bash "$chart_script" "$version" "$digest" | tail -n 1)"
if [ ! -f "$chart" ] || [[ "$chart" != *.tgz ]]; then
  die "scripts/chart/package.sh printed \"$chart\", expected the path of the chart .tgz"
fi
cp "$chart" "$out/kubemod-ts-$version.tgz"

# The CLI's npm package must be this release's: package/package.json names kubemod-ts <version>.
cli_manifest="$(tar -xzOf "$cli_package" package/package.json 2> /dev/null)" \
  || die "--cli-package $cli_package is not an npm package tarball (no package/package.json)"
cli_id="$(node -e 'const p = JSON.parse(process.argv[1]); console.log(p.name + "@" + p.version)' "$cli_manifest")"
[ "$cli_id" = "kubemod-ts@$version" ] || die "--cli-package $cli_package is $cli_id, not kubemod-ts@$version"
cp "$cli_package" "$out/kubemod-ts-cli-$version.tgz"

schemas=("$repo"/schemas/*.json)
[ -f "$repo/schemas/modrule-api-v1beta1.json" ] || die "$repo/schemas/modrule-api-v1beta1.json is missing (npm run schema)"
cp "${schemas[@]}" "$out/"

bash "$repo/scripts/release/checksums.sh" "$out"
log "wrote $out:"
ls -l "$out" >&2
