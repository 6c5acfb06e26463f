# slurm.sh - a real one-node Slurm (slurmctld + slurmd, authenticated by
# its own munged) on loopback, for the cluster warmup cases
# (testsuite/cases/cluster/).  Source it, then:
#
#   slurm_start DIR     write DIR/slurm.conf (free ports, state in DIR,
#                       one node with CPUs=3 and three "GPUs" that are
#                       /dev/null, /dev/zero and /dev/full: up to three
#                       tasks that ask --gres=gpu:1 run at once, on no
#                       GPU), start munged, slurmctld, slurmd; wait until
#                       the node is idle.  Exports SLURM_CONF.
#   slurm_start DIR --no-gres
#                       the same without any generic resource (no
#                       GresTypes, no Gres= on the node): a CPU partition,
#                       where a job asking --gres=gpu:1 is refused
#                       ("Invalid generic resource").
#   slurm_stop          stop the three by their pids
#   slurm_wait_job ID [SECONDS]   wait until job ID (an array: all its
#                       tasks) has left the queue
#
# Exits 77 (skip) with the reason when Slurm or munge is missing, when
# not root (slurmd must run as root here), or when the daemons do not
# come up (their logs are shown).

SLURM_PIDS=

slurm_skip() {
	echo "skipped: $*" >&2
	slurm_stop
	exit 77
}

slurm_free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

slurm_start() {
	local dir=$1 host i bin gres_types="GresTypes=gpu" node_gres=" Gres=gpu:3"
	if [ "${2:-}" = --no-gres ]; then
		gres_types="" node_gres=""
	fi
	for bin in slurmctld slurmd sbatch squeue sinfo munged munge; do
		command -v "$bin" >/dev/null 2>&1 || [ -x "/usr/sbin/$bin" ] ||
			slurm_skip "$bin is not installed (apt-get install slurmctld slurmd slurm-client munge)"
	done
	[ "$(id -u)" = 0 ] || slurm_skip "slurmd needs root to run jobs here"
	[ -r /etc/munge/munge.key ] || slurm_skip "no /etc/munge/munge.key (the munge package makes it)"
	PATH=$PATH:/usr/sbin
	host=$(hostname -s)
	mkdir -p "$dir/state" "$dir/spool" "$dir/log" "$dir/munge"
	chmod 700 "$dir/munge"

	# Our own munged on our own socket: nothing of the host's is used or changed.
	munged --force --socket="$dir/munge/socket" --key-file=/etc/munge/munge.key \
		--pid-file="$dir/munge/pid" --log-file="$dir/log/munged.log" --seed-file="$dir/munge/seed" \
		> "$dir/log/munged.out" 2>&1 || { cat "$dir/log/munged.out" "$dir/log/munged.log" >&2 2>/dev/null; slurm_skip "munged did not start"; }
	for i in $(seq 1 50); do [ -s "$dir/munge/pid" ] && break; sleep 0.1; done
	SLURM_PIDS="$(cat "$dir/munge/pid" 2>/dev/null)"
	munge --socket="$dir/munge/socket" -n | unmunge --socket="$dir/munge/socket" > /dev/null 2>&1 ||
		slurm_skip "munge does not work here (munge -n | unmunge failed)"

	cat > "$dir/slurm.conf" <<EOC
ClusterName=astra-test
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$(slurm_free_port)
SlurmdPort=$(slurm_free_port)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
MpiDefault=none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
SlurmctldTimeout=30
SlurmdTimeout=30
$gres_types
SlurmdParameters=config_overrides
NodeName=$host NodeAddr=127.0.0.1 CPUs=3 RealMemory=1000$node_gres State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=30 State=UP
EOC
	# Three character devices stand for the cards Slurm hands out, so that
	# three tasks asking --gres=gpu:1 run at once.
	[ -z "$node_gres" ] || echo "NodeName=$host Name=gpu File=/dev/null,/dev/zero,/dev/full" > "$dir/gres.conf"
	export SLURM_CONF=$dir/slurm.conf
	slurmctld -f "$SLURM_CONF" > "$dir/log/slurmctld.out" 2>&1
	for i in $(seq 1 100); do [ -s "$dir/slurmctld.pid" ] && break; sleep 0.1; done
	SLURM_PIDS="$SLURM_PIDS $(cat "$dir/slurmctld.pid" 2>/dev/null)"
	slurmd -f "$SLURM_CONF" > "$dir/log/slurmd.out" 2>&1
	for i in $(seq 1 100); do [ -s "$dir/slurmd.pid" ] && break; sleep 0.1; done
	SLURM_PIDS="$SLURM_PIDS $(cat "$dir/slurmd.pid" 2>/dev/null)"
	for i in $(seq 1 150); do
		case $(sinfo -h -N -o %t 2>/dev/null) in idle*) return 0 ;; esac
		sleep 0.2
	done
	sinfo -N >&2 2>&1
	tail -n 20 "$dir/log/slurmctld.log" "$dir/log/slurmd.log" "$dir/log/"*.out >&2 2>/dev/null
	slurm_skip "the Slurm node did not become idle within 30 s (logs above)"
}

slurm_stop() {
	local p i
	for p in $SLURM_PIDS; do kill "$p" 2>/dev/null || true; done
	for p in $SLURM_PIDS; do
		for i in $(seq 1 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
		kill -9 "$p" 2>/dev/null || true
	done
	SLURM_PIDS=
	return 0
}

slurm_wait_job() {
	local id=$1 limit=${2:-180} i
	for i in $(seq 1 $((limit * 5))); do
		[ -z "$(squeue -h -j "$id" 2>/dev/null)" ] && return 0
		sleep 0.2
	done
	squeue >&2
	return 1
}
