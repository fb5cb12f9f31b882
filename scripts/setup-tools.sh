#!/usr/bin/env bash
# Installs the real tools the toolkit runs, from Debian's packages, when they are missing:
# verilator, yosys, opensta (sta), qflow-tech-osu018 (the osu018 liberty), g++, make, ccache
# (compiles the Verilator runtime once per model cache, not once per model),
# chromium (report rendering). As root it runs apt-get; otherwise it prints the command.
#   scripts/setup-tools.sh [--quiet] [--docker]
#   --docker  also install docker.io and debootstrap and start dockerd if no daemon answers
set -euo pipefail
quiet=0; docker=0
for a in "$@"; do
  case "$a" in
    --quiet) quiet=1 ;;
    --docker) docker=1 ;;
    *) echo "setup-tools: unknown option '$a' (allowed: --quiet, --docker)" >&2; exit 2 ;;
  esac
done
say() { [ "$quiet" = 1 ] || echo "setup-tools: $*"; }

missing=()
need() { # command package
  if ! command -v "$1" >/dev/null 2>&1; then missing+=("$2"); fi
}
need verilator verilator
need yosys yosys
need sta opensta
need g++ g++
need make make
need ccache ccache
need chromium chromium
[ -f /usr/share/qflow/tech/osu018/osu018_stdcells.lib ] || missing+=(qflow-tech-osu018)
if [ "$docker" = 1 ]; then
  need dockerd docker.io
  need debootstrap debootstrap
fi

if [ "${#missing[@]}" -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    say "installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  else
    echo "setup-tools: missing ${missing[*]}; run as root:" >&2
    echo "  apt-get update && apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
fi

if [ "$docker" = 1 ] && ! docker info >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then
    say "starting dockerd"
    setsid nohup dockerd >/tmp/dockerd.log 2>&1 < /dev/null &
    for _ in $(seq 1 60); do docker info >/dev/null 2>&1 && break; sleep 1; done
    docker info >/dev/null 2>&1 || { echo "setup-tools: dockerd did not start, see /tmp/dockerd.log" >&2; exit 1; }
  else
    echo "setup-tools: no Docker daemon answers; start one as root: dockerd &" >&2
    exit 1
  fi
fi
say "tools ready: $(verilator --version | head -1); $(yosys -V | head -1)"
