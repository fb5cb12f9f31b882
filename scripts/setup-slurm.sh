#!/usr/bin/env bash
# Starts a single-node Slurm cluster on this machine, for the flow's Slurm executor and its tests:
# installs Debian's slurm-wlm and munge when missing, makes the munge key, writes /etc/slurm/slurm.conf
# for this machine (node = `hostname -s`, its CPUs and memory; one partition `debug`; select/cons_tres;
# no cgroups, no accounting database), starts munged, slurmctld and slurmd, and waits until the node is
# idle. Run as root. Idempotent: daemons already running are kept (restarted only when slurm.conf changed).
#   scripts/setup-slurm.sh [--quiet] [--timeout SECONDS]
set -euo pipefail
quiet=0; timeout=60
while [ $# -gt 0 ]; do
  case "$1" in
    --quiet) quiet=1 ;;
    --timeout) shift; timeout="${1:-}"
      [[ "$timeout" =~ ^[0-9]+$ ]] || { echo "setup-slurm: --timeout needs a number of seconds, got '$timeout'" >&2; exit 2; } ;;
    *) echo "setup-slurm: unknown option '$1' (allowed: --quiet, --timeout SECONDS)" >&2; exit 2 ;;
  esac
  shift
done
say() { [ "$quiet" = 1 ] || echo "setup-slurm: $*"; }
die() { echo "setup-slurm: $*" >&2; exit 1; }

if [ "$(id -u)" != 0 ]; then
  die "must run as root (installs packages, starts daemons): sudo $0"
fi

missing=()
command -v slurmctld >/dev/null 2>&1 || missing+=(slurm-wlm)
command -v munged >/dev/null 2>&1 || missing+=(munge)
if [ "${#missing[@]}" -gt 0 ]; then
  say "installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# munge: the key (the package makes one; a stripped image may not have it) and the daemon
if [ ! -s /etc/munge/munge.key ]; then
  say "creating /etc/munge/munge.key"
  if command -v mungekey >/dev/null 2>&1; then
    mungekey --create --force
  else
    dd if=/dev/urandom of=/etc/munge/munge.key bs=1 count=1024 status=none
  fi
fi
chown munge:munge /etc/munge/munge.key
chmod 400 /etc/munge/munge.key
install -d -o munge -g munge -m 0755 /run/munge
install -d -o munge -g munge -m 0700 /var/lib/munge /var/log/munge
if ! munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
  say "starting munged"
  su -s /bin/sh munge -c /usr/sbin/munged
  for _ in $(seq 1 20); do munge -n 2>/dev/null | unmunge >/dev/null 2>&1 && break; sleep 0.5; done
  munge -n | unmunge >/dev/null || die "munged does not answer (see /var/log/munge/munged.log)"
fi

# slurm.conf for this machine
node="$(hostname -s)"
cpus="$(nproc --all)"
mem_mb=$(( $(awk '/^MemTotal:/ {print $2}' /proc/meminfo) / 1024 ))
# leave the OS some memory; slurmd refuses a node whose RealMemory exceeds what it finds
mem_mb=$(( mem_mb * 9 / 10 ))
install -d -o slurm -g slurm -m 0755 /var/spool/slurmctld /var/log/slurm
install -d -m 0755 /var/spool/slurmd /etc/slurm /run/slurm
conf="/etc/slurm/slurm.conf"
new_conf="$(mktemp)"
cat > "$new_conf" <<EOF
# Written by scripts/setup-slurm.sh for a single-node cluster on $node.
ClusterName=llmnpu
SlurmctldHost=$node
SlurmUser=slurm
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd
SlurmctldPidFile=/run/slurm/slurmctld.pid
SlurmdPidFile=/run/slurm/slurmd.pid
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
ReturnToService=2
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
# finished jobs stay visible to scontrol for 5 minutes
MinJobAge=300
SlurmctldTimeout=30
SlurmdTimeout=30
NodeName=$node NodeHostname=$(hostname) CPUs=$cpus RealMemory=$mem_mb State=UNKNOWN
PartitionName=debug Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF
changed=0
if ! cmp -s "$new_conf" "$conf"; then
  say "writing $conf (node $node, $cpus CPUs, $mem_mb MB)"
  install -m 0644 "$new_conf" "$conf"
  changed=1
fi
rm -f "$new_conf"

# a daemon is running when the process of its pid file lives (a zombie left by a daemon's fork does not count)
running() { # pidfile
  local pid stat
  [ -f "$1" ] && pid="$(cat "$1")" && stat="$(ps -o stat= -p "$pid" 2>/dev/null)" && [ "${stat#Z}" = "$stat" ]
}
stop() { # pidfile
  if running "$1"; then
    local pid
    pid="$(cat "$1")"
    kill "$pid"
    for _ in $(seq 1 20); do running "$1" || break; sleep 0.5; done
  fi
}
if [ "$changed" = 1 ]; then
  stop /run/slurm/slurmd.pid
  stop /run/slurm/slurmctld.pid
fi
if ! running /run/slurm/slurmctld.pid; then
  say "starting slurmctld"
  /usr/sbin/slurmctld || die "slurmctld did not start (see /var/log/slurm/slurmctld.log)"
fi
if ! running /run/slurm/slurmd.pid; then
  say "starting slurmd"
  /usr/sbin/slurmd -N "$node" || die "slurmd did not start (see /var/log/slurm/slurmd.log)"
fi

# wait until the node takes jobs
deadline=$(( $(date +%s) + timeout ))
state=""
while [ "$(date +%s)" -lt "$deadline" ]; do
  state="$(sinfo -h -n "$node" -o '%T' 2>/dev/null | head -1 || true)"
  case "$state" in
    idle|mixed|allocated) say "node $node is $state; partition debug ready ($(sinfo -V))"; exit 0 ;;
    down*|drain*|fail*) scontrol update NodeName="$node" State=RESUME >/dev/null 2>&1 || true ;;
  esac
  sleep 1
done
die "node $node not idle after ${timeout}s (state: '${state:-no answer from slurmctld}'); see /var/log/slurm/slurmctld.log and /var/log/slurm/slurmd.log"
