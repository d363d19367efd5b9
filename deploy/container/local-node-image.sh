#!/usr/bin/env bash
# Builds `localhost/node-local`, a base image made of this machine's own Node.js and npm (the node binary, the
# shared libraries ldd lists for it and for /bin/sh, CA certificates): for machines that reach no image registry
# (CI here). Usage: deploy/container/local-node-image.sh [name]. Needs buildah (as root).
set -euo pipefail
name="${1:-localhost/node-local}"
node_bin="$(command -v node)"
npm_dir="$(dirname "$(readlink -f "$(command -v npm)")")/.."
ctr="$(buildah from scratch)"
trap 'buildah rm "$ctr" >/dev/null 2>&1 || true' EXIT
mnt="$(buildah mount "$ctr")"
copy() { mkdir -p "$mnt$(dirname "$1")"; cp -aL "$1" "$mnt$1"; }
copy "$node_bin"
mkdir -p "$mnt/usr/lib/node_modules"
cp -a "$(readlink -f "$npm_dir")" "$mnt/usr/lib/node_modules/npm"
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$mnt/usr/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$mnt/usr/bin/npx"
[ "$node_bin" = /usr/bin/node ] || ln -s "$node_bin" "$mnt/usr/bin/node"
# /bin/sh for RUN and npm's scripts; /usr/bin/env for npm's `#!/usr/bin/env node`.
copy /bin/sh
copy "$(readlink -f /bin/sh)"
copy /usr/bin/env
# The libraries of node, sh and env, and of the native addons npm installs (@node-rs/argon2 needs librt): the C
# runtime a Debian Node.js image has.
for bin in "$node_bin" "$(readlink -f /bin/sh)" /usr/bin/env; do
  for lib in $(ldd "$bin" | grep -o '/[^ ]*'); do copy "$lib"; done
done
for lib in /lib/x86_64-linux-gnu/librt.so.1 /lib/x86_64-linux-gnu/libpthread.so.0 /lib/x86_64-linux-gnu/libdl.so.2; do
  [ -e "$lib" ] && copy "$lib"
done
copy /etc/ssl/certs/ca-certificates.crt
mkdir -p "$mnt/tmp" "$mnt/var/lib/platform" "$mnt/etc"
chmod 1777 "$mnt/tmp"
chown 10001:10001 "$mnt/var/lib/platform"
printf 'root:x:0:0:root:/root:/bin/sh\nplatform:x:10001:10001:platform:/var/lib/platform:/bin/sh\n' > "$mnt/etc/passwd"
printf 'root:x:0:\nplatform:x:10001:\n' > "$mnt/etc/group"
buildah umount "$ctr" >/dev/null
buildah config --env PATH=/usr/local/bin:/usr/bin:/bin --env NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt "$ctr"
buildah commit --quiet "$ctr" "$name" >/dev/null
echo "$name"
