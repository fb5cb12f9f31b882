#!/usr/bin/env bash
# Builds, without any image registry, a Docker image holding Verilator, g++ and make, and
# imports it under $LLMNPU_VERILATOR_IMAGE (default llmnpu/verilator:bookworm). The root
# file system is made by debootstrap (Debian bookworm, minbase) from the Debian mirror this
# machine's apt uses, then imported with `docker import`; the image is then checked by
# building and running a tiny Verilator model inside it.
# Cold: about 2 minutes (debootstrap ≈ 80 s, import and checks ≈ 30 s; image ≈ 510 MB), about
# 3.5 minutes on a machine that first has to install docker.io and debootstrap.
# Warm: about a second — an image with the same recipe label is reused unless --force.
#   sudo scripts/build-verilator-image.sh [--force]
#   --force  rebuild even if the image already exists
#   LLMNPU_VERILATOR_IMAGE  image tag (default llmnpu/verilator:bookworm)
#   LLMNPU_DEBIAN_MIRROR    Debian mirror (default: the first one apt is configured with)
# Needs root: it installs docker.io and debootstrap if missing and starts dockerd if no
# daemon answers (through scripts/setup-tools.sh --docker).
set -euo pipefail

say() { echo "build-verilator-image: $*"; }
die() { echo "build-verilator-image: $*" >&2; exit 1; }

force=0
for a in "$@"; do
  case "$a" in
    --force) force=1 ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "${BASH_SOURCE[0]}"; exit 0 ;;
    *) echo "build-verilator-image: unknown option '$a' (allowed: --force)" >&2; exit 2 ;;
  esac
done

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
self="$root/scripts/build-verilator-image.sh"
tag="${LLMNPU_VERILATOR_IMAGE:-llmnpu/verilator:bookworm}"
suite=bookworm
packages=verilator,g++,make
# Changing what goes into the image must change this, so that old images get rebuilt.
recipe="v1 $suite minbase $packages"
label=org.llmnpu.verilator-image.recipe

if [ "$(id -u)" != 0 ]; then
  echo "build-verilator-image: must run as root; run:" >&2
  printf '  sudo' >&2
  [ -n "${LLMNPU_VERILATOR_IMAGE:-}" ] && printf ' LLMNPU_VERILATOR_IMAGE=%q' "$tag" >&2
  [ -n "${LLMNPU_DEBIAN_MIRROR:-}" ] && printf ' LLMNPU_DEBIAN_MIRROR=%q' "$LLMNPU_DEBIAN_MIRROR" >&2
  printf ' %q' "$self" "$@" >&2
  echo >&2
  exit 1
fi

start=$SECONDS
"$root/scripts/setup-tools.sh" --docker --quiet

verilator_version() { docker run --rm "$tag" verilator --version; }

if [ "$force" = 0 ] && docker image inspect "$tag" >/dev/null 2>&1; then
  have="$(docker image inspect --format "{{ index .Config.Labels \"$label\" }}" "$tag" 2>/dev/null || true)"
  if [ "$have" = "$recipe" ]; then
    say "$tag is up to date: $(verilator_version) (use --force to rebuild)"
    exit 0
  fi
  say "$tag exists but was built by another recipe ('${have:-none}', want '$recipe'); rebuilding"
fi

# The mirror apt uses here: first URIs: of the deb822 sources, else the first deb line.
mirror="${LLMNPU_DEBIAN_MIRROR:-}"
if [ -z "$mirror" ]; then
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    mirror="$(awk 'tolower($1) == "uris:" { print $2; exit }' "$f")"
    [ -n "$mirror" ] && break
  done
fi
if [ -z "$mirror" ] && [ -f /etc/apt/sources.list ]; then
  mirror="$(sed -n -E 's/^[[:space:]]*deb[[:space:]]+(\[[^]]*\][[:space:]]+)?([^[:space:]]+).*/\2/p' \
    /etc/apt/sources.list | head -n 1)"
fi
mirror="${mirror:-http://deb.debian.org/debian}"

tmp="$(mktemp -d /var/tmp/llmnpu-verilator-rootfs.XXXXXX)"
cleanup() {
  # debootstrap may leave /proc, /sys or a bind of /dev mounted if interrupted: unmount
  # everything below the root file system (deepest first) before deleting it.
  local m
  for m in $(awk -v p="$tmp/" 'index($2, p) == 1 { print $2 }' /proc/mounts | sort -r); do
    umount -l "$m" 2>/dev/null || true
  done
  rm -rf --one-file-system "$tmp"
}
trap cleanup EXIT

say "debootstrap $suite ($packages) from $mirror into $tmp (about 80 s)"
rootfs="$tmp/rootfs"
if ! debootstrap --variant=minbase --include="$packages" "$suite" "$rootfs" "$mirror" \
    >"$tmp/debootstrap.log" 2>&1; then
  tail -n 30 "$tmp/debootstrap.log" >&2
  [ -f "$rootfs/debootstrap/debootstrap.log" ] && tail -n 30 "$rootfs/debootstrap/debootstrap.log" >&2
  die "debootstrap failed"
fi

say "cleaning apt caches in the root file system"
rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/cache/apt/archives/partial/* \
  "$rootfs"/var/cache/apt/*.bin "$rootfs"/var/lib/apt/lists/* "$rootfs"/tmp/* "$rootfs"/var/tmp/*
mkdir -p "$rootfs/var/lib/apt/lists/partial" "$rootfs/work"
echo "$recipe" >"$rootfs/etc/llmnpu-verilator-image"
say "root file system: $(du -sh --one-file-system "$rootfs" | cut -f1)"

say "importing as $tag"
previous="$(docker image inspect --format '{{.Id}}' "$tag" 2>/dev/null || true)"
tar --numeric-owner -C "$rootfs" -c . | docker import \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'WORKDIR /work' \
  --change "LABEL $label=\"$recipe\"" \
  - "$tag" >/dev/null

say "checking the image"
fail() { docker image rm "$tag" >/dev/null 2>&1 || true; die "$1 (image removed)"; }
version="$(verilator_version)" || fail "verilator --version failed in $tag"
out="$(docker run --rm -i "$tag" sh -eu -s 2>&1 <<'EOF'
mkdir -p /tmp/t && cd /tmp/t
cat > top.v <<'V'
module top(input [7:0] a, input [7:0] b, output [7:0] y); assign y = a + b; endmodule
V
cat > main.cpp <<'C'
#include "Vtop.h"
#include "verilated.h"
#include <cstdio>
int main(int argc, char** argv) {
  VerilatedContext ctx; ctx.commandArgs(argc, argv);
  Vtop top{&ctx}; top.a = 3; top.b = 4; top.eval();
  std::printf("sum=%d\n", int(top.y)); top.final(); return top.y == 7 ? 0 : 1;
}
C
verilator --cc --exe --build -j 2 top.v main.cpp -o sim >build.log 2>&1 || { cat build.log; exit 1; }
obj_dir/sim
EOF
)" || { echo "$out" >&2; fail "a test model did not build or run in $tag"; }
[ "$(echo "$out" | tail -n 1)" = "sum=7" ] || { echo "$out" >&2; fail "the test model gave a wrong answer"; }
if [ -n "$previous" ] && [ "$previous" != "$(docker image inspect --format '{{.Id}}' "$tag")" ]; then
  docker image rm "$previous" >/dev/null 2>&1 && say "removed the previous image ${previous:7:12}" || true
fi
size="$(docker image inspect --format '{{.Size}}' "$tag" | awk '{ printf "%.0f MB", $1 / 1e6 }')"
say "built $tag ($size) in $((SECONDS - start)) s: $version; a test model built and ran (3 + 4 = 7)"
