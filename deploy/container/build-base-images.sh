#!/usr/bin/env bash
# Builds the two Node 20 base images the Containerfile takes as arguments, from Debian packages and this machine's
# Node 20, for hosts that cannot pull from a registry (CI here, air-gapped sites):
#   localhost/vigil-node-runtime:20  Debian bookworm minbase + node          (the final image's base)
#   localhost/vigil-node-build:20    the same + npm, node headers, g++, make, python3 (to build native modules)
# With registry access, the Containerfile's defaults (node:20-bookworm, node:20-bookworm-slim) serve instead.
# Needs root, mmdebstrap and podman; Node 20 installed at $NODE_PREFIX (default /usr, as Debian-style packages do).
set -euo pipefail
NODE_PREFIX=${NODE_PREFIX:-/usr}
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
node_version=$("$NODE_PREFIX/bin/node" --version)
case "$node_version" in v20.*) ;; *) echo "build-base-images: $NODE_PREFIX/bin/node is $node_version, not Node 20" >&2; exit 1 ;; esac
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# $1 tag, $2 extra packages (comma list, may be empty), $3 "with-npm" to add npm and the headers.
build() {
  local tag=$1 packages=$2 with_npm=${3:-}
  local root="$work/${tag//[:\/]/_}"
  mmdebstrap --quiet --variant=minbase --include="ca-certificates${packages:+,$packages}" \
    --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/locale/*' \
    --customize-hook='rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/*' \
    bookworm "$root" "$MIRROR"
  install -m 0755 "$NODE_PREFIX/bin/node" "$root/usr/bin/node"
  if [ "$with_npm" = with-npm ]; then
    mkdir -p "$root/usr/lib/node_modules" "$root/usr/include"
    cp -a "$NODE_PREFIX/lib/node_modules/npm" "$root/usr/lib/node_modules/npm"
    ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/bin/npm"
    ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/bin/npx"
    # node-gyp builds native modules (better-sqlite3) against these headers instead of downloading them.
    cp -a "$NODE_PREFIX/include/node" "$root/usr/include/node"
  fi
  tar -C "$root" -c . | podman import --quiet --change 'CMD ["node"]' --change "ENV NODE_VERSION=$node_version" - "$tag" >/dev/null
  echo "built $tag (Node $node_version)"
}

build localhost/vigil-node-runtime:20 ''
build localhost/vigil-node-build:20 'g++,make,python3' with-npm
