#!/bin/sh
# Builds the top-level Dockerfile, unchanged, on a machine without Docker Hub
# or a docker daemon: only deb.debian.org and the Go module proxy reachable.
# Not part of CI; a way to check the Dockerfile by hand. Run as root on Debian
# with buildah and mmdebstrap installed:
#
#   apt-get install buildah mmdebstrap crun
#   deploy/build-local.sh [tag]
#
# It makes the two base images the Dockerfile names, locally and equal in
# content to the official ones as far as the build can tell:
#   docker.io/library/debian:trixie-slim  a minbase trixie rootfs from
#       mmdebstrap with the slim image's dpkg excludes and apt settings;
#   docker.io/library/golang:1.26-trixie  that, plus the Go toolchain
#       installed here (`go env GOROOT`, must be 1.26) at /usr/local/go, the
#       official image's GOPATH, PATH and GOTOOLCHAIN, and what its
#       buildpack-deps base brings for a cgo build (gcc, libc6-dev, make,
#       pkg-config, git, ca-certificates).
# Then `buildah bud` on a clean copy of the committed tree (git archive HEAD).
# Storage is vfs (no overlay needed); BUILDAH_ISOLATION=chroot if the
# machine cannot make namespaces for the default OCI runtime.
set -eu

TAG=${1:-localhost/ramabana-mcp:local}
MIRROR=${MIRROR:-http://deb.debian.org/debian}
SECURITY=${SECURITY:-http://deb.debian.org/debian-security}
export BUILDAH_ISOLATION=${BUILDAH_ISOLATION:-oci}
# runc first: crun 1.8 (bookworm) refuses hosts with hybrid cgroups.
BUILDAH_RUNTIME=${BUILDAH_RUNTIME:-$(command -v runc || command -v crun)}
export BUILDAH_RUNTIME

repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /tmp/ramabana-image.XXXXXX)
c=
trap 'if [ -n "$c" ]; then buildah rm "$c" >/dev/null; fi; rm -rf "$work"' EXIT
# vfs: plain copies, no overlay mounts needed; buildah and podman both read it.
printf '[storage]\ndriver = "vfs"\nrunroot = "/run/containers/storage"\ngraphroot = "/var/lib/containers/storage"\n' >"$work/storage.conf"
export CONTAINERS_STORAGE_CONF="$work/storage.conf"

goroot=$(go env GOROOT)
gover=$(go env GOVERSION)
case $gover in
go1.26*) ;;
*) echo "build-local: the golang:1.26 image needs Go 1.26 here, found $gover" >&2; exit 1 ;;
esac

# debian:trixie-slim. The official image is debuerreotype's minbase with
# these dpkg path excludes and apt.conf.d files, deb822 sources and no lists.
# mmdebstrap extracts the essential packages before dpkg reads the excludes,
# so the hooks below remove those paths afterwards, as debuerreotype does.
mkdir "$work/etc"
printf '%s\n' 'path-exclude /usr/share/doc/*' 'path-include /usr/share/doc/*/copyright' \
  'path-exclude /usr/share/groff/*' 'path-exclude /usr/share/info/*' \
  'path-exclude /usr/share/linda/*' 'path-exclude /usr/share/lintian/overrides/*' \
  'path-exclude /usr/share/locale/*' 'path-exclude /usr/share/man/*' >"$work/etc/dpkg-docker"
printf '%s\n' 'Types: deb' "URIs: $MIRROR" 'Suites: trixie trixie-updates' 'Components: main' \
  'Signed-By: /usr/share/keyrings/debian-archive-keyring.pgp' '' \
  'Types: deb' "URIs: $SECURITY" 'Suites: trixie-security' 'Components: main' \
  'Signed-By: /usr/share/keyrings/debian-archive-keyring.pgp' >"$work/etc/debian.sources"
clean='"rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true";'
printf '%s\n' "DPkg::Post-Invoke { $clean };" "APT::Update::Post-Invoke { $clean };" \
  'Dir::Cache::pkgcache "";' 'Dir::Cache::srcpkgcache "";' >"$work/etc/docker-clean"
echo 'Acquire::Languages "none";' >"$work/etc/docker-no-languages"
echo 'Acquire::GzipIndexes "true";' >"$work/etc/docker-gzip-indexes"
echo 'Apt::AutoRemove::SuggestsImportant "false";' >"$work/etc/docker-autoremove-suggests"
mmdebstrap --variant=minbase --format=tar \
  --dpkgopt="$work/etc/dpkg-docker" \
  --customize-hook='mv "$1/etc/dpkg/dpkg.cfg.d/99mmdebstrap" "$1/etc/dpkg/dpkg.cfg.d/docker"' \
  --customize-hook='rm -f "$1/etc/apt/sources.list"' \
  --customize-hook="upload $work/etc/debian.sources /etc/apt/sources.list.d/debian.sources" \
  --customize-hook="upload $work/etc/docker-clean /etc/apt/apt.conf.d/docker-clean" \
  --customize-hook="upload $work/etc/docker-no-languages /etc/apt/apt.conf.d/docker-no-languages" \
  --customize-hook="upload $work/etc/docker-gzip-indexes /etc/apt/apt.conf.d/docker-gzip-indexes" \
  --customize-hook="upload $work/etc/docker-autoremove-suggests /etc/apt/apt.conf.d/docker-autoremove-suggests" \
  --customize-hook='rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/*.bin' \
  --customize-hook='find "$1/usr/share/doc" -mindepth 1 ! -type d ! -name copyright -delete' \
  --customize-hook='find "$1/usr/share/doc" -mindepth 1 -type d -empty -delete' \
  --customize-hook='rm -rf "$1"/usr/share/groff/* "$1"/usr/share/info/* "$1"/usr/share/linda/* "$1"/usr/share/lintian/overrides/* "$1"/usr/share/locale/* "$1"/usr/share/man/*' \
  trixie "$work/rootfs.tar" \
  "deb $MIRROR trixie main" "deb $MIRROR trixie-updates main" "deb $SECURITY trixie-security main"

c=$(buildah from scratch)
buildah add "$c" "$work/rootfs.tar" /
buildah config --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  --cmd bash "$c"
buildah commit --rm "$c" docker.io/library/debian:trixie-slim
c=

# golang:1.26-trixie, as the official Dockerfile lays it out.
c=$(buildah from docker.io/library/debian:trixie-slim)
buildah run "$c" -- sh -c 'apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends ca-certificates curl git gcc libc6-dev make pkg-config && rm -rf /var/lib/apt/lists/*'
# A machine whose egress re-signs TLS (a proxy's CA in
# /usr/local/share/ca-certificates) needs that CA in the build stage too, or
# `go mod download` fails with "certificate signed by unknown authority".
# Only the golang image gets it; the runtime image stays as the Dockerfile
# makes it. EXTRA_CA_DIR= (empty) leaves it out.
EXTRA_CA_DIR=${EXTRA_CA_DIR-/usr/local/share/ca-certificates}
if [ -n "$EXTRA_CA_DIR" ] && ls "$EXTRA_CA_DIR"/*.crt >/dev/null 2>&1; then
  for crt in "$EXTRA_CA_DIR"/*.crt; do
    echo "build-local: adding $crt to the golang image's CA certificates" >&2
    buildah copy "$c" "$crt" /usr/local/share/ca-certificates/
  done
  buildah run "$c" -- update-ca-certificates
fi
buildah copy "$c" "$goroot" /usr/local/go
buildah config \
  --env GOLANG_VERSION="${gover#go}" --env GOTOOLCHAIN=local --env GOPATH=/go \
  --env PATH=/go/bin:/usr/local/go/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  --workingdir /go --cmd bash "$c"
buildah run "$c" -- sh -c 'mkdir -p /go/src /go/bin && chmod -R 1777 /go && go version'
buildah commit --rm "$c" docker.io/library/golang:1.26-trixie
c=

# The image itself, from what is committed (as CI would check it out).
mkdir "$work/src"
git -C "$repo" archive HEAD | tar -x -C "$work/src"
buildah bud --layers --force-rm -t "$TAG" -f "$work/src/Dockerfile" "$work/src"
buildah images "$TAG"
