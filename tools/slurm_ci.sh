#!/usr/bin/env bash
# End-to-end test of profiles/slurm against a real SLURM: stands up a single-node cluster on this machine
# (Debian's slurm-wlm, munge, slurmdbd and MariaDB, no systemd needed) in network and UTS namespaces of its own
# (loopback only, host name "localhost"; slurmctld, slurmd and MariaDB bound to 127.0.0.1), runs a config
# through `snakemake --workflow-profile profiles/slurm --configfile <config>` exactly as the README gives it,
# checks in sacct (a job completion log without accounting) that the jobs ran on SLURM with one fit's CPUs each,
# compares the traces and models with a local run of the same config, then cancels a fit mid-run (scancel),
# checks that nothing complete-looking is left and that a rerun completes it. Every daemon it starts is recorded
# by PID in the state dir and stopped by that PID on exit. While it runs, reach the cluster from outside with
# `nsenter -t $(cat <state>/run/slurmctld.pid) -n -u squeue`.
#
#   sudo tools/slurm_ci.sh                          # ci config, with accounting (slurmdbd + MariaDB)
#   sudo SLURM_CI_ACCOUNTING=0 tools/slurm_ci.sh    # no slurmdbd: squeue status, checks in a job completion log
#
# Needs root on Debian 12 (apt-get, unshare: a VM or machine, not an unprivileged container) and the Python
# environment of the repository (topicbench, snakemake); the plugin extra ([slurm] in pyproject.toml) is
# installed if missing. Environment knobs:
#   SLURM_CI_CONFIG      config to run (default workflow/config/ci.yaml; its data_dir/results_dir are redirected)
#   SLURM_CI_ACCOUNTING  1 (default) with slurmdbd + MariaDB, 0 without accounting
#   SLURM_CI_FAULT       1 (default) runs the scancel scenario, 0 skips it
#   SLURM_CI_STATE       state dir (default: a new mktemp dir under /tmp); removed on success unless SLURM_CI_KEEP=1
#   SLURM_CI_PORT_BASE   first of the ports used: +0 slurmctld, +1 slurmd, +2 slurmdbd, +3 MariaDB (default 16817)
# Files written outside the state dir: /etc/slurm/slurm.conf, /etc/slurm/slurmdbd.conf (refused if present and
# not written by this script), /etc/munge/munge.key if the munge package left none, and /usr/sbin/policy-rc.d
# only while apt-get runs and only if absent (it keeps the packages from starting their daemons).
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
PYTHON=${PYTHON:-python3}
CONFIG=${SLURM_CI_CONFIG:-workflow/config/ci.yaml}
ACCOUNTING=${SLURM_CI_ACCOUNTING:-1}
FAULT=${SLURM_CI_FAULT:-1}
PORT_BASE=${SLURM_CI_PORT_BASE:-16817}
MARK="# written by topicbench tools/slurm_ci.sh"
T_START=${_SLURM_CI_T_START:-$(date +%s)}

say() { printf '[slurm_ci %(%H:%M:%S)T] %s\n' -1 "$*"; }
die() { say "FAIL: $*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || die "run as root (apt-get, daemons)"
[ -r /etc/debian_version ] || die "needs Debian (apt-get, Debian's slurm-wlm packaging)"
cd "$REPO"
# one provenance stamp for both runs: a commit or an edit while the script runs must not make their traces differ
TOPICBENCH_GIT_SHA=$(git rev-parse HEAD 2>/dev/null || echo unknown)
[ -z "$(git status --porcelain --untracked-files=no 2>/dev/null)" ] || TOPICBENCH_GIT_SHA="$TOPICBENCH_GIT_SHA-dirty"
export TOPICBENCH_GIT_SHA

OWN_STATE=0     # 1: a mktemp dir made here (removed on success), 0: SLURM_CI_STATE given (kept)
if [ -n "${_SLURM_CI_OWN_STATE:-}" ]; then STATE=$_SLURM_CI_OWN_STATE; OWN_STATE=1  # re-executed in its namespaces
elif [ -n "${SLURM_CI_STATE:-}" ]; then STATE=$SLURM_CI_STATE; mkdir -p "$STATE"
else STATE=$(mktemp -d /tmp/topicbench-slurm-ci.XXXXXX); OWN_STATE=1; fi
chmod 755 "$STATE"  # the slurm, munge and mysql users traverse it
mkdir -p "$STATE/run" "$STATE/log"
PIDS=()          # daemons started here, in start order
CHILD=""         # the Snakemake run in progress (backgrounded so that a signal reaches the trap at once)
POLICY_CREATED=0
OK=0

stop_daemons() {
    if [ "${#PIDS[@]}" -gt 0 ] && command -v squeue >/dev/null && [ -f /etc/slurm/slurm.conf ]; then
        # jobs still queued on this private cluster are ours: cancel them before their slurmd goes away
        local jobs; jobs=$(timeout 10 squeue -h -o %i 2>/dev/null || true)
        if [ -n "$jobs" ]; then  # slurmd stopping leaves running steps behind: wait until they are gone (KillWait=10)
            timeout 10 scancel $jobs 2>/dev/null || true
            for _ in $(seq 1 60); do [ -z "$(timeout 10 squeue -h -o %i 2>/dev/null)" ] && break; sleep 1; done
        fi
    fi
    local i pid
    for ((i=${#PIDS[@]}-1; i>=0; i--)); do  # reverse start order: slurmd, slurmctld, slurmdbd, mariadbd, munged
        pid=${PIDS[i]}
        kill -TERM "$pid" 2>/dev/null || continue
        for _ in $(seq 1 30); do kill -0 "$pid" 2>/dev/null || break; sleep 1; done
        if kill -0 "$pid" 2>/dev/null; then say "PID $pid ignored SIGTERM for 30 s, sending SIGKILL"; kill -KILL "$pid" 2>/dev/null || true; fi
        wait "$pid" 2>/dev/null || true
    done
    PIDS=()
}
cleanup() {
    local rc=$?
    if [ -n "$CHILD" ] && kill -0 "$CHILD" 2>/dev/null; then  # Snakemake cancels its SLURM jobs on SIGTERM
        kill -TERM "$CHILD"; wait "$CHILD" 2>/dev/null || true
    fi
    stop_daemons
    [ "$POLICY_CREATED" = 0 ] || rm -f /usr/sbin/policy-rc.d
    if [ "$OK" = 1 ] && [ "${SLURM_CI_KEEP:-0}" != 1 ] && [ "$OWN_STATE" = 1 ]; then
        rm -rf "$STATE"
    else
        say "state, logs and results kept in $STATE"
    fi
    exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

run_child() {  # run_child <command...>: in the background, waited for
    "$@" & CHILD=$!
    local rc=0; wait "$CHILD" || rc=$?
    CHILD=""; return $rc
}
start() {  # start <name> <command...>: a daemon kept in the foreground, its PID recorded
    local name=$1; shift
    "$@" >"$STATE/log/$name.out" 2>&1 &
    PIDS+=($!); echo $! >"$STATE/run/$name.pid"
    say "started $name (PID $!)"
}
wait_for() {  # wait_for <seconds> <what> <command...>
    local secs=$1 what=$2; shift 2
    local end=$(( $(date +%s) + secs ))
    while [ "$(date +%s)" -lt "$end" ]; do
        timeout 10 "$@" >/dev/null 2>&1 && return 0
        for pid in "${PIDS[@]}"; do kill -0 "$pid" 2>/dev/null || die "PID $pid exited while waiting for $what (logs in $STATE/log)"; done
        sleep 1
    done
    die "$what not ready after ${secs} s (logs in $STATE/log)"
}
write_conf() {  # write_conf <path> <mode> <owner>: stdin to a config file this script owns
    local path=$1
    if [ -e "$path" ] && ! grep -qF "$MARK" "$path"; then die "$path exists and was not written by this script; not touching it"; fi
    { echo "$MARK"; cat; } >"$path.tmp"
    chmod "$2" "$path.tmp"; chown "$3" "$path.tmp"; mv "$path.tmp" "$path"
}
port_free() { ! (ss -ltnH "( sport = :$1 )" 2>/dev/null | grep -q .); }

# ---- 1. packages -------------------------------------------------------------------------------------------
PKGS="slurm-wlm slurmdbd munge mariadb-server mariadb-client iproute2"
missing=$(dpkg-query -W -f='${Package} ${db:Status-Abbrev}\n' $PKGS 2>/dev/null | awk '$2 != "ii" {print $1}'; \
          for p in $PKGS; do dpkg-query -W "$p" >/dev/null 2>&1 || echo "$p"; done)
if [ -n "$missing" ]; then
    say "installing $(echo $missing | tr '\n' ' ')"
    if [ ! -e /usr/sbin/policy-rc.d ]; then  # no daemon may start behind our back (no PIDs to stop them by)
        printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d; chmod 755 /usr/sbin/policy-rc.d; POLICY_CREATED=1
    fi
    export DEBIAN_FRONTEND=noninteractive
    apt-cache policy slurm-wlm 2>/dev/null | grep -q 'Candidate: [0-9]' || apt-get -o DPkg::Lock::Timeout=600 update -q
    apt-get install -y -q -o DPkg::Lock::Timeout=600 --no-install-recommends $PKGS >"$STATE/log/apt.log" 2>&1 \
        || die "apt-get install failed (see $STATE/log/apt.log)"
    [ "$POLICY_CREATED" = 0 ] || { rm -f /usr/sbin/policy-rc.d; POLICY_CREATED=0; }
fi
if ! "$PYTHON" -c "import snakemake_executor_plugin_slurm" 2>/dev/null; then
    say "installing the [slurm] extra"
    "$PYTHON" -m pip install -q $("$PYTHON" -c "import tomllib; print(' '.join(repr(r) for r in tomllib.load(open('pyproject.toml','rb'))['project']['optional-dependencies']['slurm']))" | tr -d "'")
fi
SLURM_VERSION=$(dpkg-query -W -f="slurm-wlm \${Version}" slurm-wlm)
PLUGIN_VERSION=$("$PYTHON" -c "from importlib.metadata import version; print(version('snakemake-executor-plugin-slurm'))")
say "$SLURM_VERSION, snakemake-executor-plugin-slurm $PLUGIN_VERSION, accounting=$ACCOUNTING"

# ---- 1b. a network and a host name of its own ---------------------------------------------------------------
# The rest runs in a network namespace with nothing but loopback and a UTS namespace named "localhost": no
# daemon started here can be reached from another machine, slurmctld and slurmd bind 127.0.0.1 itself
# (CommunicationParameters=NoCtldInAddrAny,NoInAddrAny binds to what the host name resolves to; slurmdbd 22.05
# has no such option and binds 0.0.0.0, which here is loopback only), and the machine's own network and host
# name are untouched. The script re-executes itself there (unshare execs: same PID, signals still reach it).
if [ "${_SLURM_CI_NS:-0}" != 1 ]; then
    unshare --net --uts true 2>/dev/null || die "unshare --net --uts is not permitted here (a container without CAP_SYS_ADMIN?): needs root on a VM or machine"
    trap - EXIT
    [ "$OWN_STATE" = 1 ] && export _SLURM_CI_OWN_STATE=$STATE
    export _SLURM_CI_NS=1 _SLURM_CI_T_START=$T_START
    exec unshare --net --uts bash "$REPO/tools/slurm_ci.sh" "$@"
fi
ip link set lo up
# Slurm resolves with AI_ADDRCONFIG, which finds no IPv4 address where 127.0.0.1 is the only one: a second
# loopback address makes it resolve (still loopback, still nothing but lo)
ip addr add 127.0.0.2/32 dev lo
hostname localhost
LINKS=$(ip -o link show | awk -F': ' '{print $2}' | tr '\n' ' ')
[ "$LINKS" = "lo " ] || die "the private network namespace has interfaces other than lo: $LINKS"

for off in 0 1 2 3; do port_free $((PORT_BASE + off)) || die "port $((PORT_BASE + off)) is in use; set SLURM_CI_PORT_BASE"; done
CTLD_PORT=$PORT_BASE; SLURMD_PORT=$((PORT_BASE + 1)); DBD_PORT=$((PORT_BASE + 2)); DB_PORT=$((PORT_BASE + 3))

# ---- 2. munge ----------------------------------------------------------------------------------------------
if [ ! -s /etc/munge/munge.key ]; then  # the package makes one; create it only if it is missing
    setpriv --reuid=munge --regid=munge --clear-groups mungekey --create --keyfile=/etc/munge/munge.key
fi
install -d -o munge -g munge -m 755 "$STATE/munge"
MUNGE_SOCKET=$STATE/munge/munge.socket
start munged setpriv --reuid=munge --regid=munge --clear-groups munged --foreground --socket="$MUNGE_SOCKET" \
    --pid-file="$STATE/munge/munged.pid" --log-file="$STATE/munge/munged.log" --seed-file="$STATE/munge/munged.seed"
wait_for 20 munged bash -c "munge -n -S '$MUNGE_SOCKET' | unmunge -S '$MUNGE_SOCKET'"

# ---- 3. MariaDB and slurmdbd (accounting) --------------------------------------------------------------------
if [ "$ACCOUNTING" = 1 ]; then
    DB_SOCKET=$STATE/mysql/mysqld.sock
    install -d -o mysql -g mysql -m 750 "$STATE/mysql"
    mariadb-install-db --no-defaults --user=mysql --datadir="$STATE/mysql/data" --auth-root-authentication-method=socket \
        --skip-test-db >"$STATE/log/mariadb-install-db.log" 2>&1 || die "mariadb-install-db failed ($STATE/log)"
    start mariadbd mariadbd --no-defaults --user=mysql --datadir="$STATE/mysql/data" --socket="$DB_SOCKET" \
        --bind-address=127.0.0.1 --port="$DB_PORT" --pid-file="$STATE/mysql/mariadbd.pid" --log-error="$STATE/log/mariadbd.log"
    wait_for 60 MariaDB mariadb-admin --no-defaults --socket="$DB_SOCKET" -u root ping
    DB_PASS=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
    mariadb --no-defaults --socket="$DB_SOCKET" -u root <<SQL
CREATE DATABASE IF NOT EXISTS slurm_acct_db;
CREATE USER IF NOT EXISTS 'slurm'@'127.0.0.1' IDENTIFIED BY '$DB_PASS';
CREATE USER IF NOT EXISTS 'slurm'@'localhost' IDENTIFIED BY '$DB_PASS';
GRANT ALL ON slurm_acct_db.* TO 'slurm'@'127.0.0.1';
GRANT ALL ON slurm_acct_db.* TO 'slurm'@'localhost';
SQL
    install -d -o slurm -g slurm -m 755 /etc/slurm "$STATE/slurmdbd"
    write_conf /etc/slurm/slurmdbd.conf 600 slurm:slurm <<EOF
AuthType=auth/munge
AuthInfo=socket=$MUNGE_SOCKET
DbdHost=localhost
DbdAddr=127.0.0.1
DbdPort=$DBD_PORT
SlurmUser=slurm
LogFile=$STATE/log/slurmdbd.log
PidFile=$STATE/slurmdbd/slurmdbd.pid
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort=$DB_PORT
StorageUser=slurm
StoragePass=$DB_PASS
StorageLoc=slurm_acct_db
EOF
    ACCT_LINES="JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=localhost
AccountingStoragePort=$DBD_PORT
AccountingStoragePass=$MUNGE_SOCKET
JobAcctGatherType=jobacct_gather/linux"
else
    # without slurmdbd, slurmctld forgets a job MinJobAge (300) s after it ends: the job completion log is the
    # record the checks below read (the profile's squeue status needs no record)
    install -o slurm -g slurm -m 644 /dev/null "$STATE/log/jobcomp.txt"
    ACCT_LINES="AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/filetxt
JobCompLoc=$STATE/log/jobcomp.txt"
fi

# ---- 4. slurm.conf from this machine's CPUs and memory --------------------------------------------------------
CPUS=$(nproc)
MEM_MB=$(awk '/^MemTotal:/ {printf "%d", $2 / 1024 * 0.9}' /proc/meminfo)  # 90%: slurmd drains a node that has less than it claims
install -d -o slurm -g slurm -m 755 /etc/slurm "$STATE/slurmctld"
install -d -m 755 "$STATE/slurmd"
write_conf /etc/slurm/slurm.conf 644 root:root <<EOF
ClusterName=topicbench
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$CTLD_PORT
SlurmdPort=$SLURMD_PORT
AuthType=auth/munge
AuthInfo=socket=$MUNGE_SOCKET
CredType=cred/munge
SlurmUser=slurm
SlurmdUser=root
StateSaveLocation=$STATE/slurmctld
SlurmdSpoolDir=$STATE/slurmd
SlurmctldPidFile=$STATE/slurmctld/slurmctld.pid
SlurmdPidFile=$STATE/slurmd/slurmd.pid
SlurmctldLogFile=$STATE/log/slurmctld.log
SlurmdLogFile=$STATE/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
SlurmdParameters=config_overrides
CommunicationParameters=NoCtldInAddrAny,NoInAddrAny
ReturnToService=2
MinJobAge=300
KillWait=10
MailProg=/bin/true
$ACCT_LINES
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$CPUS RealMemory=$MEM_MB State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=/etc/slurm/slurm.conf

# ---- 5. daemons ----------------------------------------------------------------------------------------------
if [ "$ACCOUNTING" = 1 ]; then
    start slurmdbd slurmdbd -D
    wait_for 60 slurmdbd sacctmgr -n list cluster
    sacctmgr -i -Q add cluster topicbench >/dev/null 2>&1 || true  # slurmctld registers it too; either may win
fi
start slurmctld slurmctld -D -i -f /etc/slurm/slurm.conf
wait_for 60 slurmctld scontrol ping
start slurmd slurmd -D -N localhost -f /etc/slurm/slurm.conf
wait_for 60 "node localhost" bash -c "sinfo -h -n localhost -o %t | grep -qx idle"
say "cluster up: $(sinfo -h -o '%P %D %c CPUs %m MB %t')"
LISTEN=$(ss -ltnpH | awk -v pids=" ${PIDS[*]} " '{ if (match($0, /pid=[0-9]+/) && index(pids, " " substr($0, RSTART + 4, RLENGTH - 4) " ")) print $4 }' | sort)
say "listening: $(echo $LISTEN)"
[ -n "$LISTEN" ] || die "no listening socket found for the daemons started here (ss -ltnp)"
OPEN=$(echo "$LISTEN" | grep -v '^127\.0\.0\.1:' | grep -v "^0\.0\.0\.0:$DBD_PORT\$" || true)  # slurmdbd: see 1b
[ -z "$OPEN" ] || die "daemons listen beyond 127.0.0.1: $(echo $OPEN)"

# ---- 6. the same config locally and through the SLURM profile -------------------------------------------------
write_config() {  # write_config <out> <tag> [python edit]: CONFIG with its outputs under $STATE/<tag>
    "$PYTHON" - "$CONFIG" "$1" "$STATE/$2" "${3:-}" <<'PY'
import os, sys, yaml
src, out, root, edit = sys.argv[1:]
cfg = yaml.safe_load(open(src))
cfg["data_dir"], cfg["results_dir"] = f"{root}/data", f"{root}/results"
if cfg.get("corpora_dir"):
    cfg["corpora_dir"] = os.path.abspath(cfg["corpora_dir"])
exec(edit)
yaml.safe_dump(cfg, open(out, "w"), sort_keys=False)
PY
}
write_config "$STATE/local.yaml" local
write_config "$STATE/slurm.yaml" slurm
NPROC_LOCAL=$CPUS

say "local run: snakemake --cores $NPROC_LOCAL --configfile $STATE/local.yaml"
numba_cache() { find "$REPO/topicbench" -path '*__pycache__*' -name '*.nb[ic]' 2>/dev/null | wc -l; }
CACHE_BEFORE=$(numba_cache)
t0=$(date +%s)
run_child snakemake --cores "$NPROC_LOCAL" --configfile "$STATE/local.yaml" >"$STATE/log/local.log" 2>&1 || die "local run failed ($STATE/log/local.log)"
LOCAL_S=$(( $(date +%s) - t0 ))
CACHE_AFTER=$(numba_cache)
LOCAL_JOBS=$(grep -oE '[0-9]+ of [0-9]+ steps' "$STATE/log/local.log" | tail -1 | awk '{print $3}')
say "local run: ${LOCAL_S} s, $LOCAL_JOBS jobs"

SACCT_FROM=$(date +%Y-%m-%dT%H:%M:%S)
say "SLURM run: snakemake --workflow-profile profiles/slurm --configfile $STATE/slurm.yaml"
t0=$(date +%s)
run_child timeout 3600 snakemake --workflow-profile profiles/slurm --configfile "$STATE/slurm.yaml" >"$STATE/log/slurm.log" 2>&1 \
    || die "SLURM run failed or timed out ($STATE/log/slurm.log)"
SLURM_S=$(( $(date +%s) - t0 ))
SUBMITTED=$(grep -oE 'submitted with SLURM jobid [0-9]+' "$STATE/log/slurm.log" | awk '{print $NF}' | sort -n | uniq)
N_SUBMITTED=$(echo "$SUBMITTED" | grep -c . || true)
[ "$N_SUBMITTED" -gt 0 ] || die "the SLURM run submitted no job ($STATE/log/slurm.log)"

# every submitted job must be known to SLURM as COMPLETED: sacct with accounting, else the job completion log
if [ "$ACCOUNTING" = 1 ]; then
    sleep 2  # slurmctld hands the last job's end record to slurmdbd asynchronously
    sacct -X -n -P -S "$SACCT_FROM" -o JobID,State,NCPUS,ReqMem,Elapsed,Comment >"$STATE/log/sacct.txt"
    SEEN=$(awk -F'|' '$2 == "COMPLETED" {print $1}' "$STATE/log/sacct.txt" | sort -n)
    CHECK="sacct"
else
    sleep 2  # slurmctld writes the completion record when the job has left the node
    SEEN=$(grep -E ' JobState=COMPLETED ' "$STATE/log/jobcomp.txt" | grep -oE '^JobId=[0-9]+' | cut -d= -f2 | sort -n || true)
    CHECK="the job completion log"
fi
NOT_DONE=$(comm -23 <(echo "$SUBMITTED") <(echo "$SEEN"))
[ -z "$NOT_DONE" ] || die "jobs the workflow submitted but $CHECK does not show as COMPLETED: $NOT_DONE"
say "SLURM run: ${SLURM_S} s, $N_SUBMITTED SLURM jobs submitted, all COMPLETED in $CHECK"
# grouped jobs run their members in series: each must ask for one member's CPUs (1 or threads_per_run), not
# the sum over the group (profiles/slurm, group_slots)
THREADS=$("$PYTHON" -c "import sys, yaml; print(yaml.safe_load(open(sys.argv[1])).get('threads_per_run', 1))" "$STATE/slurm.yaml")
for j in $SUBMITTED; do
    if [ "$ACCOUNTING" = 1 ]; then n=$(awk -F'|' -v j="$j" '$1 == j {print $3}' "$STATE/log/sacct.txt")
    else n=$(grep -E "^JobId=$j " "$STATE/log/jobcomp.txt" | grep -oE 'ProcCnt=[0-9]+' | cut -d= -f2 || true); fi
    [ "$n" = 1 ] || [ "$n" = "$THREADS" ] || die "SLURM job $j asked for $n CPUs; a grouped job should ask for 1 or threads_per_run = $THREADS"
done
# the SLURM run found numba's cache warm; if the first local run filled it, that run paid the compilation:
# time the local run once more, warm too, so the two wall times compare like with like
if [ "$CACHE_AFTER" != "$CACHE_BEFORE" ]; then
    say "the first local run compiled numba kernels ($CACHE_BEFORE -> $CACHE_AFTER cache files): timing a second, warm local run"
    write_config "$STATE/local2.yaml" local2
    t0=$(date +%s)
    run_child snakemake --cores "$NPROC_LOCAL" --configfile "$STATE/local2.yaml" >"$STATE/log/local2.log" 2>&1 || die "second local run failed"
    LOCAL_WARM_S=$(( $(date +%s) - t0 ))
else
    LOCAL_WARM_S=$LOCAL_S
fi
RATIO=$(awk "BEGIN {printf \"%.2f\", $SLURM_S / $LOCAL_WARM_S}")
say "local run, warm cache: ${LOCAL_WARM_S} s; SLURM / local = $RATIO (load average $(cut -d' ' -f1-3 /proc/loadavg))"

# ---- 7. traces and models identical apart from timing --------------------------------------------------------
"$PYTHON" - "$STATE/local/results" "$STATE/slurm/results" "$STATE/local2/results" <<'PY' || die "the SLURM run's outputs differ from the local run's"
import sys
from pathlib import Path
import numpy as np
import pandas as pd

local, slurm, local2 = map(Path, sys.argv[1:])
TIMING = ["compile_wall_s", "fit_wall_s", "fit_cpu_s", "fit_cpu_workers_s", "eval_wall_s", "host"]  # clocks, the machine

def traces(root):
    return {p.relative_to(root).parent: p for p in root.glob("runs/**/trace.parquet")}

a, b = traces(local), traces(slurm)
assert a and a.keys() == b.keys(), f"run sets differ: {sorted(set(a) ^ set(b))[:5]} (local {len(a)}, slurm {len(b)})"
for run in sorted(a):
    x, y = pd.read_parquet(a[run]), pd.read_parquet(b[run])
    assert set(TIMING) <= set(x.columns), f"{run}: timing columns renamed? {sorted(set(TIMING) - set(x.columns))}"
    pd.testing.assert_frame_equal(x.drop(columns=TIMING), y.drop(columns=TIMING), check_exact=True, obj=str(run))
    with np.load(local / run / "model.npz") as m, np.load(slurm / run / "model.npz") as n:
        assert m.files == n.files, f"{run}: model arrays differ"
        for k in m.files:
            u, v = m[k], n[k]  # NaN == NaN only where there can be NaNs (equal_nan rejects string arrays)
            assert np.array_equal(u, v, equal_nan=u.dtype.kind in "fc"), f"{run}: model array {k} differs"
    assert (local / run / "topics.tsv").read_bytes() == (slurm / run / "topics.tsv").read_bytes(), f"{run}: topics.tsv"
all_a = pd.read_parquet(local / "all_traces.parquet").drop(columns=TIMING)
all_b = pd.read_parquet(slurm / "all_traces.parquet").drop(columns=TIMING)
pd.testing.assert_frame_equal(all_a, all_b, check_exact=True, obj="all_traces.parquet")
if (local2 / "all_traces.parquet").exists():
    all_c = pd.read_parquet(local2 / "all_traces.parquet").drop(columns=TIMING)
    pd.testing.assert_frame_equal(all_a, all_c, check_exact=True, obj="all_traces.parquet, second local run")
print(f"{len(a)} runs: traces (all but {', '.join(TIMING)}), models and topics identical")
PY

# ---- 8. fault: scancel a fit mid-run, nothing complete-looking left, a rerun completes it ---------------------
if [ "$FAULT" = 1 ]; then
    # one slow fit: the ci corpus, online LDA with small minibatches over many passes (a minute or so)
    write_config "$STATE/fault.yaml" fault '
ds = "nyt_like_ci" if "nyt_like_ci" in cfg["datasets"] else next(iter(cfg["datasets"]))
cfg["datasets"] = {ds: cfg["datasets"][ds]}
cfg["experiments"] = {"fault": {"dataset": ds, "seeds": [0], "settings": {"holdout": "fixed", "n_checkpoints": 40,
    "observed_fraction": 0.5, "passes": 40}, "runs": [{"label": "slow", "method": "online_lda",
    "grid": {"K": [20], "batch_size": [16], "kappa": [0.7], "tau0": [64.0]}}]}}
'
    say "fault: SLURM run of one slow fit, cancelled once it is fitting"
    snakemake --workflow-profile profiles/slurm --configfile "$STATE/fault.yaml" --retries 0 >"$STATE/log/fault1.log" 2>&1 &
    SMK=$!; CHILD=$SMK
    FIT_LOG=""; FIT_JOB=""
    for _ in $(seq 1 300); do  # the fit's own log shows progress once it has passed the corpus load and JIT
        FIT_LOG=$(find "$STATE/fault/results/logs/runs" -name '*.log' 2>/dev/null | head -1 || true)  # no dir yet: not an error
        if [ -n "$FIT_LOG" ] && grep -q 'docs' "$FIT_LOG" 2>/dev/null; then
            FIT_JOB=$(squeue -h -t RUNNING -o %i | head -1)  # the prepare is done: the running job is the fit's
            [ -n "$FIT_JOB" ] && break
        fi
        kill -0 $SMK 2>/dev/null || break
        sleep 1
    done
    [ -n "$FIT_JOB" ] || { kill $SMK 2>/dev/null || true; die "the fault fit never ran on SLURM ($STATE/log/fault1.log)"; }
    scancel "$FIT_JOB"
    say "fault: scancel $FIT_JOB (fit log: $(tail -c 200 "$FIT_LOG" | tr '\r\n' '  ' | tail -c 100))"
    if wait $SMK; then die "Snakemake reported success for a cancelled fit ($STATE/log/fault1.log)"; fi
    CHILD=""
    LEFT=$(find "$STATE/fault/results/runs" \( -name trace.parquet -o -name model.npz -o -name topics.tsv \) 2>/dev/null || true)
    [ -z "$LEFT" ] || die "the cancelled fit left outputs that look complete: $LEFT"
    if [ "$ACCOUNTING" = 1 ]; then
        STATE_1=$(sacct -X -n -P -j "$FIT_JOB" -o State | head -1)
    else
        STATE_1=$(scontrol show job "$FIT_JOB" | grep -oE 'JobState=[A-Z]+' | cut -d= -f2)
    fi
    case "$STATE_1" in CANCELLED*) ;; *) die "SLURM shows job $FIT_JOB as '$STATE_1', not CANCELLED";; esac
    say "fault: job $FIT_JOB $STATE_1, Snakemake failed, no trace/model/topics left; rerunning"
    t0=$(date +%s)
    run_child timeout 1800 snakemake --workflow-profile profiles/slurm --configfile "$STATE/fault.yaml" >"$STATE/log/fault2.log" 2>&1 \
        || die "the rerun after scancel failed ($STATE/log/fault2.log)"
    N_TRACE=$(find "$STATE/fault/results/runs" -name trace.parquet | wc -l)
    [ "$N_TRACE" = 1 ] || die "the rerun left $N_TRACE traces, expected 1"
    FAULT_MSG="scancel of job $FIT_JOB mid-fit -> $STATE_1, no complete-looking output; rerun completed in $(( $(date +%s) - t0 )) s"
    say "fault: $FAULT_MSG"
fi

OK=1
say "PASS in $(( $(date +%s) - T_START )) s: local ${LOCAL_S} s / ${LOCAL_WARM_S} s warm ($LOCAL_JOBS jobs), SLURM ${SLURM_S} s (x$RATIO) ($N_SUBMITTED SLURM jobs, $CHECK: all COMPLETED), traces identical apart from timing${FAULT_MSG:+; $FAULT_MSG}"
