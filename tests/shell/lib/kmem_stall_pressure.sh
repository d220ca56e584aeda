#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Record allocations stalling in direct reclaim, memcg reclaim and direct
# compaction, under the pressure of kmem_stall_pressure.c (see there),
# which keeps at least KEEP_MIB (default 6144) of MemAvailable and lends
# the free pageblocks to the hugetlb pool for a few seconds.
#
#   tests/shell/lib/kmem_stall_pressure.sh DIR [KEEP_MIB]
#
# Writes DIR/perf.data (perf kmem record --page, all CPUs, only the
# pressure: not the preparation), DIR/workload.txt (what the workload did,
# "key value"), DIR/record.txt (timings) and DIR/vmstat.{0,1,2,3}:
# /proc/vmstat before perf record enables its events (0), once it says
# they are on (1), before it is told to disable them (2) and once it says
# they are off (3).  Whatever the kernel counted while the events were on
# lies between the deltas 1..2 and 0..3.
#
# Exit: 0 recorded, 1 failed, 2 cannot record here (the reason on stdout).
# PERF names the perf to use (default: perf in PATH), CC the compiler.

dir=$1
keep=${2:-6144}
perf=${PERF:-perf}
here=$(dirname "$(readlink -f "$0")")

skip() {
	echo "skip: $*"
	exit 2
}

[ -n "$dir" ] || { echo "usage: $0 DIR [KEEP_MIB]" >&2; exit 1; }
[ "$(id -u)" = 0 ] || skip "needs root for system-wide tracepoints and a memory cgroup"
for e in vmscan/mm_vmscan_direct_reclaim_begin vmscan/mm_vmscan_memcg_reclaim_begin \
	compaction/mm_compaction_try_to_compact_pages; do
	[ -d "/sys/kernel/tracing/events/$e" ] || skip "no ${e/\//:} tracepoint"
done
command -v "${CC:-cc}" >/dev/null || skip "no C compiler"

mkdir -p "$dir" || exit 1
rm -f "$dir"/ready "$dir"/go "$dir"/done "$dir"/exit "$dir"/perf.data
"${CC:-cc}" -O2 -o "$dir/pressure" "$here/kmem_stall_pressure.c" ||
	skip "cannot build kmem_stall_pressure.c"

# The workload gives the hugetlb pool back as it ends, even on its alarm;
# killed, it cannot, and this does.
pool=$(cat /proc/sys/vm/nr_hugepages)
start=$(date +%s.%N)
"$dir/pressure" "$dir" "$keep" >"$dir/workload.txt" 2>&1 &
workload=$!
pids="$workload"
# shellcheck disable=SC2317 # run by the trap
cleanup() {
	# Our own processes only: the workload (its children die with it,
	# and it removes its cgroup and files) and perf record.
	touch "$dir/exit"
	for p in $pids; do
		kill "$p" 2>/dev/null
	done
	wait "$workload" 2>/dev/null
	echo "$pool" >/proc/sys/vm/nr_hugepages
	rm -f "$dir/ctl" "$dir/ack" "$dir"/*.img
}
trap cleanup EXIT

while [ ! -e "$dir/ready" ]; do
	if ! kill -0 "$workload" 2>/dev/null; then
		wait "$workload"
		[ $? -eq 3 ] && skip "$(sed -n 's/^skip //p' "$dir/workload.txt")"
		echo "the workload ended early:"
		cat "$dir/workload.txt"
		exit 1
	fi
	sleep 0.1
done
ready=$(date +%s.%N)

# Start disabled; enable, and go on when perf says the events are on.
# --include-perf: /proc/vmstat counts perf record's own reclaims and
# compactions too, which kmem_stall.sh holds the trace's against.
mkfifo "$dir/ctl" "$dir/ack" || exit 1
"$perf" kmem record --page --include-perf -m 4096 -D -1 --control "fifo:$dir/ctl,$dir/ack" \
	-o "$dir/perf.data" >"$dir/record.log" 2>&1 &
record=$!
pids="$workload $record"
exec 7>"$dir/ctl" 8<"$dir/ack"
cat /proc/vmstat >"$dir/vmstat.0"
echo enable >&7
if ! read -r -t 10 ack <&8 || [ "$ack" != ack ]; then
	echo "perf record did not start:"
	cat "$dir/record.log"
	exit 1
fi
cat /proc/vmstat >"$dir/vmstat.1"
touch "$dir/go"
go=$(date +%s.%N)

while [ ! -e "$dir/done" ] && kill -0 "$workload" 2>/dev/null; do
	sleep 0.1
done
done_at=$(date +%s.%N)
cat /proc/vmstat >"$dir/vmstat.2"
echo disable >&7
read -r -t 10 ack <&8
cat /proc/vmstat >"$dir/vmstat.3"
exec 7>&- 8<&-
kill -INT "$record"
wait "$record"
pids="$workload"
touch "$dir/exit"
wait "$workload"
rc=$?
end=$(date +%s.%N)

awk -v s="$start" -v r="$ready" -v g="$go" -v d="$done_at" -v e="$end" '
	BEGIN {
		printf "prepare_s %.1f\nrecorded_s %.1f\ntotal_s %.1f\n",
		       r - s, d - g, e - s
	}' >"$dir/record.txt"
if [ "$rc" -ne 0 ] || [ ! -s "$dir/perf.data" ]; then
	echo "the workload failed (exit $rc) or nothing was recorded:"
	cat "$dir/workload.txt" "$dir/record.log"
	exit 1
fi
grep -E 'lost|Captured' "$dir/record.log" >>"$dir/record.txt"
exit 0
