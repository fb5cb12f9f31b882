#!/usr/bin/env bash
# Runs the whole test suite with the real tools: Verilator, Yosys, OpenSTA, Chromium, a
# single-node Slurm cluster (scripts/setup-slurm.sh), and Verilator inside a container
# (Docker engine + the image built by scripts/build-verilator-image.sh). As root it installs and starts whatever is missing
# first; the image (about 95 s once) builds in the background while Maven starts, and the
# container tests wait for it. In CI (CI=true) tests that need a
# tool fail when it is missing; elsewhere they are skipped with the command to install it.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
image_pid=""
if [ "$(id -u)" = 0 ]; then
  "$root/scripts/setup-tools.sh"
  # a single-node Slurm cluster for the flow's Slurm executor tests (about 35 s when not installed yet)
  if ! "$root/scripts/setup-slurm.sh" --quiet; then
    [ "${CI:-}" = true ] && exit 1
    echo "test.sh: continuing without Slurm; its tests will be skipped" >&2
  fi
  # The Verilator image (about 95 s cold) builds while Maven compiles and tests the first modules; the
  # container tests wait for the marker to go (PendingImageBuild) instead of finding no image.
  # (outside target/: a "clean" among the arguments must not delete them)
  image_dir="$(mktemp -d "${TMPDIR:-/tmp}/llmnpu-image-build.XXXXXX")"
  marker="$image_dir/building"
  image_log="$image_dir/build.log"
  : > "$marker"
  export LLMNPU_IMAGE_BUILDING="$marker"
  (
    trap 'rm -f "$marker"' EXIT
    rc=0
    "$root/scripts/build-verilator-image.sh" > "$image_log" 2>&1 || rc=$?
    # Container start-up is tested on whatever engine runs (ContainerStartupTest). On a fresh
    # machine the engine started by the image build is on its first boot, whose bridge network
    # reports no gateway: the state in which Testcontainers used to stall. Nothing here restarts it.
    if command -v docker >/dev/null 2>&1 && docker info >/dev/null 2>&1; then
      gw="$(docker network inspect bridge --format '{{range .IPAM.Config}}{{.Gateway}}{{end}}' 2>/dev/null || true)"
      echo "test.sh: Docker engine answers; bridge gateway: ${gw:-none reported (an engine on its first boot)}" \
        >> "$image_log"
    fi
    exit "$rc"
  ) &
  image_pid=$!
else
  "$root/scripts/setup-tools.sh" || echo "test.sh: continuing; tests needing missing tools will be skipped" >&2
fi
# The image build's log, once it has finished (printed whether Maven passed or not).
image_done() {
  [ -n "$image_pid" ] || return 0
  local rc=0
  wait "$image_pid" || rc=$?
  image_pid=""
  cat "$image_log"
  rm -rf "$image_dir"
  if [ "$rc" != 0 ]; then
    echo "test.sh: building the Verilator image failed (exit $rc); see above" >&2
    return "$rc"
  fi
}
trap 'image_done || true' EXIT
export TESTCONTAINERS_RYUK_DISABLED=true TESTCONTAINERS_CHECKS_DISABLE=true
# Two modules at a time (-T 2) where the reactor allows it: sw-stack (pure Java, one test JVM, about 3 min) runs
# beside verilator-harness, spinal-ip, pim-macro and npu-rtl instead of after them, using the core a one-JVM
# module leaves idle. From reports on the modules form a chain (reports, soc, cosim, flow, cli), one at a time.
mvn -B -q -T 2 install "$@"
trap - EXIT
image_done
echo "test.sh: all tests passed"
