#!/usr/bin/env bash
# Builds the kubemod-ts container image without a container daemon, reproducibly
# (docs/image-build.md). Three layers, each a tarball with sorted entries, fixed mtimes (0 for the
# first two, SOURCE_DATE_EPOCH = the commit time for /app), numeric owners and no atime/ctime,
# compressed with gzip -n:
#
#   1. Debian runtime libraries (libc6, libstdc++6, libgcc-s1, ca-certificates, tzdata and their
#      dependencies) unpacked by `mmdebstrap --variant=extract`, plus /etc/passwd with the
#      nonroot user 65532, the CA bundle and dpkg metadata under /var/lib/dpkg/status.d;
#   2. Node (pinned below) from the npm registry package node-linux-<arch>, as /usr/local/bin/node,
#      checked against the SHA-256 values in scripts/image/node-sha256.txt;
#   3. /app from scripts/build-artifact.sh, run with that Node so the re2 addon matches its ABI.
#
# scripts/image/write-oci-layout.ts then writes the OCI layout and docker's manifest.json.
#
# Outputs (under --out, default dist/image):
#   oci/               OCI image layout, index.json tags the image <version> (ref.name)
#   kubemod-ts.tar     the layout plus manifest.json, for `docker load` / `kind load image-archive`
#   digest.txt         the manifest digest (sha256:...)
#   packages.txt       the Debian packages in layer 1 (name version architecture)
#   sbom.cdx.json      CycloneDX SBOM of the production npm dependencies
#
# Usage: bash scripts/image/build-image.sh [--arch amd64|arm64] [--out DIR]
#          [--debian-packages FILE] [--no-debian-cache] [--no-cache] [--check-reproducible]
#
#   --arch                 target architecture (default: the host's)
#   --out                  output directory (default dist/image)
#   --debian-packages      pin the Debian packages to a previous build's packages.txt
#   --no-debian-cache      rebuild the Debian layer instead of taking it from the cache
#   --no-cache             also rebuild node_modules (re2) instead of taking them from the cache
#   --check-reproducible   build, then build again into a temporary directory with the Debian
#                          layer rebuilt (pinned to the first build's packages.txt; with
#                          --no-cache node_modules too) and fail unless the digests match
set -euo pipefail
umask 022 # directories the build creates get the same modes everywhere

NODE_VERSION=24.21.0 # Node 24 LTS ("Krypton"); bump together with the Dockerfile's comment
DEBIAN_SUITE=bookworm
DEBIAN_MIRROR="${KUBEMOD_IMAGE_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
DEBIAN_PACKAGES=(libc6 libstdc++6 libgcc-s1 ca-certificates tzdata)
DEBIAN_KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg # from the debian-archive-keyring package
IMAGE_NAME=kubemod-ts
# The Debian and Node layers do not change with the commit, so their files get a fixed mtime
# rather than the commit time: the same packages give the same layer digest in every release,
# which registries and nodes then store and pull once.
BASE_LAYER_MTIME=0
SOURCE_URL=https://github.com/kubemod-ts/kubemod-ts

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
self="$repo/scripts/image/build-image.sh"
cache_root="${XDG_CACHE_HOME:-$HOME/.cache}/kubemod-ts/image"

log() { echo "image: $*" >&2; }
die() {
  log "$*"
  exit 1
}

usage() {
  sed -n '/^# Usage:/,/^set /p' "$self" | sed '$d; s/^# \{0,1\}//' >&2
  exit 2
}

host_arch() {
  case "$(uname -m)" in
    x86_64) echo amd64 ;;
    aarch64 | arm64) echo arm64 ;;
    *) die "unsupported host architecture $(uname -m)" ;;
  esac
}

arch="$(host_arch)"
out="$repo/dist/image"
pins=""
debian_cache=true
modules_cache=true
check=false
while [ $# -gt 0 ]; do
  case "$1" in
    --arch) arch="${2:?--arch needs amd64 or arm64}" && shift 2 ;;
    --out) out="${2:?--out needs a directory}" && shift 2 ;;
    --debian-packages) pins="${2:?--debian-packages needs a packages.txt}" && shift 2 ;;
    --no-debian-cache) debian_cache=false && shift ;;
    --no-cache) debian_cache=false modules_cache=false && shift ;;
    --check-reproducible) check=true && shift ;;
    -h | --help) usage ;;
    *) log "unknown argument $1" && usage ;;
  esac
done
case "$arch" in
  amd64) node_arch=x64 debian_arch=amd64 ;;
  arm64) node_arch=arm64 debian_arch=arm64 ;;
  *) die "--arch $arch: expected amd64 or arm64" ;;
esac
mkdir -p "$out"
out="$(cd "$out" && pwd)"

ensure_tools() {
  bash "$repo/scripts/image/install-tools.sh"
  tar --version | grep -q 'GNU tar' || die "GNU tar is required (--sort=name)"
}

# make_layer <dir> <out.tar.gz> <owners: keep|root> <mtime>: a deterministic tarball of the
# directory's contents, every entry's mtime set to <mtime> (seconds since the epoch); prints the
# diff id (sha256 of the uncompressed tar).
make_layer() {
  local dir="$1" dest="$2" owners="$3" mtime="$4" flags=() entries=()
  if [ "$owners" = root ]; then
    # Files we copy in (Node, /app) get root ownership and umask-independent modes.
    flags=(--owner=0 --group=0 --mode=u+rwX,go+rX,go-w)
  fi
  mapfile -t entries < <(cd "$dir" && LC_ALL=C ls -A)
  (cd "$dir" && LC_ALL=C tar --create --file=- --sort=name --format=posix \
    --pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime \
    --mtime="@$mtime" --numeric-owner "${flags[@]}" -- "${entries[@]}") > "$dest.tar"
  echo "sha256:$(sha256sum "$dest.tar" | cut -d' ' -f1)"
  gzip -n -6 < "$dest.tar" > "$dest"
  rm "$dest.tar"
}

# fetch_node <npm arch>: Node from the npm registry package node-linux-<arch> (a third party's
# repackaging of nodejs.org's archive), cached by version and architecture; prints its directory.
# npm pack checks only the registry's own integrity hash, so the tarball, and bin/node on every
# use of the cache, are checked against the SHA-256 values recorded in scripts/image/node-sha256.txt
# (scripts/image/verify-node.sh).
fetch_node() {
  local npm_arch="$1" dir verify="$repo/scripts/image/verify-node.sh"
  dir="$cache_root/node/node-linux-$npm_arch-$NODE_VERSION"
  if [ ! -f "$dir/package/bin/node" ]; then
    log "downloading node-linux-$npm_arch@$NODE_VERSION (npm registry)"
    rm -rf "$dir" && mkdir -p "$dir"
    (cd "$dir" && npm pack --silent --ignore-scripts "node-linux-$npm_arch@$NODE_VERSION" > /dev/null)
    bash "$verify" --version "$NODE_VERSION" --arch "$npm_arch" \
      --tarball "$dir/node-linux-$npm_arch-$NODE_VERSION.tgz" || {
      rm -rf "$dir"
      die "node-linux-$npm_arch@$NODE_VERSION does not match scripts/image/node-sha256.txt"
    }
    tar -xzf "$dir/node-linux-$npm_arch-$NODE_VERSION.tgz" -C "$dir"
    rm "$dir/node-linux-$npm_arch-$NODE_VERSION.tgz"
  fi
  bash "$verify" --version "$NODE_VERSION" --arch "$npm_arch" --binary "$dir/package/bin/node" \
    || die "$dir/package/bin/node does not match scripts/image/node-sha256.txt (delete $dir)"
  [ -f "$dir/package/include/node/node_api.h" ] || die "$dir has no include/node headers"
  echo "$dir/package"
}

# Layer 1, cached by the package request and this script's text (which holds the fix-ups).
debian_layer() {
  local includes key dir root
  if [ -n "$pins" ]; then
    includes="$(awk 'NF >= 2 { printf "%s%s=%s", sep, $1, $2; sep="," }' "$pins")"
  else
    includes="$(
      IFS=,
      echo "${DEBIAN_PACKAGES[*]}"
    )"
  fi
  key="$(printf '%s\n' "$DEBIAN_SUITE" "$DEBIAN_MIRROR" "$debian_arch" "$includes" \
    | cat - "$self" | sha256sum | cut -c1-16)"
  dir="$cache_root/debian/$DEBIAN_SUITE-$debian_arch-$key"
  if $debian_cache && [ -f "$dir/layer.tar.gz" ]; then
    log "Debian layer from the cache ($dir)"
    echo "$dir"
    return
  fi
  # As root, mmdebstrap unpacks with the packages' owners, which the layer keeps (numeric); as
  # another user it would map them to that user's.
  [ "$(id -u)" = 0 ] || die "the Debian layer is built as root: sudo -E env \"PATH=\$PATH\" npm run image"
  log "mmdebstrap $DEBIAN_SUITE/$debian_arch: $includes"
  rm -rf "$dir" && mkdir -p "$dir"
  root="$dir/rootfs"
  # Only Debian's archive keyring is trusted for the package signatures (not whatever the build
  # host's /etc/apt/trusted.gpg.d holds); install-tools.sh installs debian-archive-keyring.
  [ -f "$DEBIAN_KEYRING" ] || die "$DEBIAN_KEYRING is missing (apt-get install debian-archive-keyring)"
  mmdebstrap --quiet --variant=extract --architectures="$debian_arch" --include="$includes" \
    --keyring="$DEBIAN_KEYRING" --skip=cleanup/apt/cache "$DEBIAN_SUITE" "$root" \
    "deb [signed-by=$DEBIAN_KEYRING] $DEBIAN_MIRROR $DEBIAN_SUITE main" >&2
  # dpkg metadata the way distroless images keep it (scanners such as trivy and syft read
  # status.d), and packages.txt, from the very .deb files that were unpacked.
  mkdir -p "$root/var/lib/dpkg/status.d"
  local deb name
  for deb in "$root"/var/cache/apt/archives/*.deb; do
    name="$(dpkg-deb -f "$deb" Package)"
    dpkg-deb -f "$deb" > "$root/var/lib/dpkg/status.d/$name"
    dpkg-deb -f "$deb" Package Version Architecture | awk -F': ' '{ printf "%s%s", sep, $2; sep=" " } END { print "" }'
  done | LC_ALL=C sort > "$dir/packages.txt"
  [ -s "$dir/packages.txt" ] || die "mmdebstrap unpacked no packages"
  # Runtime-provided or build-only files out; no shell, so no package maintainer scripts ran.
  rm -rf "$root"/dev/* "$root/etc/apt" "$root/var/cache/apt" "$root/var/lib/apt" \
    "$root/etc/resolv.conf" "$root/etc/hostname" "$root/etc/fstab" \
    "$root/usr/share/man" "$root/usr/share/lintian" "$root/usr/share/bash-completion" \
    "$root/var/lib/dpkg/arch" "$root/var/lib/dpkg/status" "$root/var/lib/dpkg/updates" \
    "$root/var/lib/dpkg/triggers" "$root/var/lib/dpkg/alternatives" "$root/var/lib/dpkg/info"
  find "$root/usr/share/doc" -type f ! -name copyright -delete
  # What ca-certificates' postinst (update-ca-certificates) would have generated.
  mkdir -p "$root/etc/ssl/certs"
  LC_ALL=C find "$root/usr/share/ca-certificates/mozilla" -name '*.crt' | LC_ALL=C sort \
    | xargs cat > "$root/etc/ssl/certs/ca-certificates.crt"
  printf '%s\n' 'root:x:0:0:root:/root:/sbin/nologin' \
    'nonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin' > "$root/etc/passwd"
  printf '%s\n' 'root:x:0:' 'nonroot:x:65532:' > "$root/etc/group"
  printf '%s\n' 'passwd: files' 'group: files' 'hosts: files dns' > "$root/etc/nsswitch.conf"
  mkdir -p "$root/home/nonroot" "$root/root" "$root/tmp"
  chown 65532:65532 "$root/home/nonroot" && chmod 0700 "$root/home/nonroot" "$root/root"
  chmod 1777 "$root/tmp"
  make_layer "$root" "$dir/layer.tar.gz" keep "$BASE_LAYER_MTIME" > "$dir/diffid"
  rm -rf "$root"
  echo "$dir"
}

# app_tree <target node dir> <dest>: the /app tree, built by scripts/build-artifact.sh with Node
# $NODE_VERSION first on PATH and the target Node's headers, so re2 is compiled for its ABI. For
# another architecture the host's Node runs the build and a cross compiler builds re2
# (npm_config_arch tells node-gyp the target).
app_tree() {
  local target_node="$1" dest="$2" run_node="$1" cross_env=()
  if [ "$arch" != "$(host_arch)" ]; then
    local host_npm_arch triplet
    host_npm_arch="$([ "$(host_arch)" = amd64 ] && echo x64 || echo arm64)"
    run_node="$(fetch_node "$host_npm_arch")"
    triplet="$([ "$arch" = arm64 ] && echo aarch64-linux-gnu || echo x86_64-linux-gnu)"
    command -v "$triplet-g++" > /dev/null || bash "$repo/scripts/image/install-tools.sh" "g++-$triplet"
    cross_env=(CC="$triplet-gcc" CXX="$triplet-g++" LINK="$triplet-g++" npm_config_arch="$node_arch")
    log "cross-compiling re2 for $arch with $triplet-g++"
  fi
  log "building /app with node $NODE_VERSION (scripts/build-artifact.sh)"
  local cache_dir=""
  $modules_cache && cache_dir="$cache_root/app-modules"
  env PATH="$run_node/bin:$PATH" npm_config_nodedir="$target_node" \
    BUILD_ARTIFACT_MODULES_CACHE="$cache_dir" "${cross_env[@]}" \
    bash "$repo/scripts/build-artifact.sh" "$dest" >&2
  # The addon must be a binary for the target architecture.
  local machine
  machine="$(LC_ALL=C readelf -h "$dest/node_modules/re2/build/Release/re2.node" | awk -F': *' '/Machine:/ { print $2 }')"
  case "$arch:$machine" in
    amd64:*X86-64* | arm64:*AArch64*) ;;
    *) die "re2.node is built for '$machine', not $arch" ;;
  esac
}

build() {
  local version revision created work debian node_dir
  version="$(node -p 'require(process.argv[1]).version' "$repo/package.json")"
  revision="$(git -C "$repo" rev-parse HEAD)"
  export SOURCE_DATE_EPOCH="${SOURCE_DATE_EPOCH:-$(git -C "$repo" log -1 --format=%ct)}"
  created="$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y-%m-%dT%H:%M:%SZ)"
  work="$(mktemp -d "${TMPDIR:-/tmp}/kubemod-ts-image.XXXXXX")"
  # shellcheck disable=SC2064 # expand now: work is local
  trap "rm -rf '$work'" EXIT

  local t0=$SECONDS t_debian t_node t_app
  ensure_tools
  node_dir="$(fetch_node "$node_arch")"
  debian="$(debian_layer)"
  t_debian=$SECONDS

  mkdir -p "$work/node/usr/local/bin" "$work/node/usr/local/share/doc/node"
  cp "$node_dir/bin/node" "$work/node/usr/local/bin/node"
  cp "$node_dir/LICENSE" "$work/node/usr/local/share/doc/node/LICENSE"
  local node_diff
  node_diff="$(make_layer "$work/node" "$work/node.tar.gz" root "$BASE_LAYER_MTIME")"
  t_node=$SECONDS

  mkdir -p "$work/app-root"
  app_tree "$node_dir" "$work/app-root/app"
  local app_diff
  app_diff="$(make_layer "$work/app-root" "$work/app.tar.gz" root "$SOURCE_DATE_EPOCH")"
  t_app=$SECONDS

  local packages_label
  packages_label="$(awk '{ printf "%s%s=%s", sep, $1, $2; sep="," }' "$debian/packages.txt")"
  mkdir -p "$work/layout"
  # Values are paths, versions and digests: nothing that needs JSON escaping.
  cat > "$work/build-info.json" << EOF
{
  "layoutDir": "$work/layout/oci",
  "dockerManifestPath": "$work/layout/manifest.json",
  "name": "$IMAGE_NAME",
  "version": "$version",
  "revision": "$revision",
  "created": "$created",
  "architecture": "$arch",
  "sourceUrl": "$SOURCE_URL",
  "nodeVersion": "$NODE_VERSION",
  "debianSuite": "$DEBIAN_SUITE",
  "debianPackages": "$packages_label",
  "layers": [
    { "path": "$debian/layer.tar.gz", "diffId": "$(cat "$debian/diffid")",
      "createdBy": "mmdebstrap --variant=extract $DEBIAN_SUITE $debian_arch (scripts/image/build-image.sh)" },
    { "path": "$work/node.tar.gz", "diffId": "$node_diff",
      "createdBy": "node-linux-$node_arch@$NODE_VERSION from the npm registry" },
    { "path": "$work/app.tar.gz", "diffId": "$app_diff",
      "createdBy": "scripts/build-artifact.sh with node $NODE_VERSION" }
  ]
}
EOF
  local digest
  digest="$(cd "$repo" && npx --no-install tsx scripts/image/assemble-image.ts "$work/build-info.json")"

  # The docker-load archive: the layout's files plus manifest.json, as `docker save` writes them.
  rm -rf "$out/oci" "$out/$IMAGE_NAME.tar"
  cp -R "$work/layout/oci" "$out/oci"
  cp "$work/layout/manifest.json" "$work/layout/oci/manifest.json"
  (cd "$work/layout/oci" && LC_ALL=C tar --create --file=- --sort=name --format=posix \
    --pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime \
    --mtime="@$SOURCE_DATE_EPOCH" --owner=0 --group=0 --numeric-owner --mode=a+r,go-w \
    oci-layout index.json manifest.json blobs) > "$out/$IMAGE_NAME.tar"

  echo "$digest" > "$out/digest.txt"
  cp "$debian/packages.txt" "$out/packages.txt"
  # From package-lock.json: the production dependencies /app holds (npm sbom checks a
  # node_modules tree against devDependencies too, which /app does not have).
  (cd "$repo" && npm sbom --sbom-format cyclonedx --omit dev --package-lock-only > "$out/sbom.cdx.json")
  log "$IMAGE_NAME:$version ($arch) $digest in $((SECONDS - t0)) s (Node and Debian layers $((t_debian - t0)) s, node layer $((t_node - t_debian)) s, /app layer $((t_app - t_node)) s)"
  log "  layers: debian $(du -h "$debian/layer.tar.gz" | cut -f1), node $(du -h "$work/node.tar.gz" | cut -f1), app $(du -h "$work/app.tar.gz" | cut -f1)"
  log "  wrote $out/{oci/,$IMAGE_NAME.tar,digest.txt,packages.txt,sbom.cdx.json}"
}

if $check; then
  # Build once, then again into another directory with the Debian layer made afresh (its packages
  # pinned to the first build's versions) and, with --no-cache, node_modules compiled afresh.
  first_flags=(--arch "$arch" --out "$out")
  [ -n "$pins" ] && first_flags+=(--debian-packages "$pins")
  $debian_cache || first_flags+=(--no-debian-cache)
  bash "$self" "${first_flags[@]}"
  second="$(mktemp -d "${TMPDIR:-/tmp}/kubemod-ts-image-check.XXXXXX")"
  trap 'rm -rf "$second"' EXIT
  second_flags=(--arch "$arch" --out "$second" --debian-packages "$out/packages.txt" --no-debian-cache)
  $modules_cache || second_flags+=(--no-cache)
  bash "$self" "${second_flags[@]}"
  first_digest="$(cat "$out/digest.txt")" second_digest="$(cat "$second/digest.txt")"
  if [ "$first_digest" != "$second_digest" ]; then
    log "NOT reproducible: $first_digest vs $second_digest; blobs only in one of the builds:"
    diff <(ls "$out/oci/blobs/sha256") <(ls "$second/oci/blobs/sha256") >&2 || true
    exit 1
  fi
  log "reproducible: both builds gave $first_digest"
  exit 0
fi
build
