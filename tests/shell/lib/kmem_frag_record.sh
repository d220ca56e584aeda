#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Record the page allocator falling back between migration types, under
# memory pressure made by kmem_frag_pressure.c beside it, sized from
# MemAvailable so that at least KEEP_MIB (default 4096) stays available.
#
#   tests/shell/lib/kmem_frag_record.sh DIR [KEEP_MIB]
#
# Writes DIR/perf.data (kmem:mm_page_alloc_extfrag with kernel callchains,
# kmem:mm_page_alloc and kmem:mm_page_free, all CPUs, perf's own events
# left out), DIR/workload.txt (what the workload did, "key value"),
# DIR/pageblock_order (as /proc/pagetypeinfo states it) and
# DIR/record.txt (timings).  Only the pressure is recorded, not the
# preparation (touching and punching memory), so that the file stays
# within a few hundred MB.
#
# Exit: 0 recorded, 1 failed, 2 cannot record here (the reason on stdout).
# PERF names the perf to use (default: perf in PATH), CC the compiler.

dir=$1
keep=${2:-4096}
perf=${PERF:-perf}
here=$(dirname "$(readlink -f "$0")")

skip() {
	echo "skip: $*"
	exit 2
}

[ -n "$dir" ] || { echo "usage: $0 DIR [KEEP_MIB]" >&2; exit 1; }
[ "$(id -u)" = 0 ] || skip "needs root for system-wide tracepoints"
[ -d /sys/kernel/tracing/events/kmem/mm_page_alloc_extfrag ] ||
	skip "no kmem:mm_page_alloc_extfrag tracepoint"
[ -r /proc/pagetypeinfo ] || skip "no /proc/pagetypeinfo"
command -v "${CC:-cc}" >/dev/null || skip "no C compiler"

mkdir -p "$dir" || exit 1
rm -f "$dir"/ready "$dir"/go "$dir"/done "$dir"/exit "$dir"/perf.data
awk '/^Page block order:/ { print $4 }' /proc/pagetypeinfo >"$dir/pageblock_order"
"${CC:-cc}" -O2 -o "$dir/pressure" "$here/kmem_frag_pressure.c" ||
	skip "cannot build kmem_frag_pressure.c"

start=$(date +%s.%N)
"$dir/pressure" "$dir" "$keep" >"$dir/workload.txt" 2>&1 &
workload=$!
pids="$workload"
# shellcheck disable=SC2317 # run by the trap
cleanup() {
	# Our own processes only: the workload (its children die with it)
	# and perf record.
	touch "$dir/exit"
	for p in $pids; do
		kill "$p" 2>/dev/null
	done
	rm -f "$dir/ctl" "$dir/ack"
}
trap cleanup EXIT

while [ ! -e "$dir/ready" ]; do
	if ! kill -0 "$workload" 2>/dev/null; then
		wait "$workload"
		[ $? -eq 3 ] && skip "$(grep skip "$dir/workload.txt")"
		echo "the workload ended early:"
		cat "$dir/workload.txt"
		exit 1
	fi
	sleep 0.1
done
ready=$(date +%s.%N)

# Start disabled, enable, and go on when perf says the events are on.
mkfifo "$dir/ctl" "$dir/ack" || exit 1
"$perf" kmem record --page -m 1024 -D -1 --control "fifo:$dir/ctl,$dir/ack" \
	-o "$dir/perf.data" >"$dir/record.log" 2>&1 &
record=$!
pids="$workload $record"
exec 7>"$dir/ctl" 8<"$dir/ack"
echo enable >&7
if ! read -r -t 10 ack <&8 || [ "$ack" != ack ]; then
	echo "perf record did not start:"
	cat "$dir/record.log"
	exit 1
fi
touch "$dir/go"
go=$(date +%s.%N)

while [ ! -e "$dir/done" ] && kill -0 "$workload" 2>/dev/null; do
	sleep 0.1
done
done_at=$(date +%s.%N)
echo disable >&7
read -r -t 10 ack <&8
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
