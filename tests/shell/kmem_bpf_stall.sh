#!/bin/bash
# perf kmem stat -b's stalls against perf record of a pressured cgroup (exclusive)
# SPDX-License-Identifier: GPL-2.0
#
# The pressure of kmem_stall.sh (lib/kmem_stall_pressure.c: free
# pageblocks lent to the hugetlb pool, a reader in a memory cgroup, huge
# page faults) runs in a cgroup of its own, its memory cgroup under it,
# and is counted at once by perf kmem stat --page -b --cgroup and by
# perf record -a -G of the page allocations and stall tracepoints, both
# on before the pressure starts and off after it ends.  Then:
#
# - the recording holds at least 30 direct reclaims, 100 memcg reclaims
#   and 100 direct compactions (else a skip: the machine could not be
#   pressured so; in its cgroup the pressure reclaims directly less often
#   than kmem_stall.sh's, and each count below is compared exactly);
# - -b's direct reclaims, memcg reclaims, direct compaction attempts,
#   stalled allocations, their failures and attempts equal those of
#   perf kmem stat --page --json of the recording and of
#   lib/kmem_stall_count.py's own count of its perf script output;
# - so does every other number of -b's STALLS section that is not a
#   time: the events, compaction ends by status, outcomes, what is
#   counted apart, the wake-ups, pages reclaimed, and every row of the
#   callsite and memcg tables with its counts, named by the stacks the
#   BPF program took (a time is not: the kernel's BPF clock is not
#   perf's, and each measures at its own point of the tracepoint);
# - -b's total stall time is within 5% of the recording's, each of the
#   thousands of stalls measured between the same two events;
# - -I 500's intervals add up to the stalls and the stall time;
# - a second -b, --folded=stall, has the recording's stacks of stalled
#   allocations, weighing -b's stall time within 1% and 30 us a stall
#   (each -b reads the clock after the stack walks of those before it);
# - a third, -M 4 (a stall ring of one page), says in one line how many
#   stall events it lost, or lost none and has the recording's count;
# - a fourth's --pprof profile has a stall type that sums to the first's
#   stall time as closely (lib/kmem_pprof_decode.py reads it);
# - no stall event was lost (source.stall_events_lost), and the -b
#   document validates against the schema.
# A count may differ by the events perf record lost or the runs the
# kernel did not make of the BPF programs; the test says when either
# happened.  Skips (exit 2) where BPF cannot be loaded or memory cannot
# be pressured here.

set -u

here=$(dirname "$(readlink -f "$0")")
# shellcheck source-path=SCRIPTDIR source=lib/kmem_common.sh
. "$here/lib/kmem_common.sh"

kmem_need_tracepoints
kmem_need_commands python3 perf
for e in vmscan/mm_vmscan_direct_reclaim_begin vmscan/mm_vmscan_memcg_reclaim_begin \
	compaction/mm_compaction_try_to_compact_pages; do
	[ -d "/sys/kernel/tracing/events/$e" ] || kmem_skip "no ${e/\//:} tracepoint"
done
command -v "${CC:-cc}" >/dev/null || kmem_skip "no C compiler"
kmem_scratch bpf-stall
count=$here/lib/kmem_stall_count.py

if ! perf kmem stat --page -b -a -o "$dir/probe.txt" -- true 2>"$dir/probe.err"; then
	kmem_skip "perf kmem stat -b cannot count here: $(head -n 1 "$dir/probe.err")"
fi
cgroot=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
[ -n "$cgroot" ] || kmem_skip "no cgroup v2 to count the same tasks in"
cg=kmem-bpf-stall-$$
mkdir "$cgroot/$cg" "$cgroot/$cg/work" || kmem_skip "cannot make a cgroup in $cgroot"
# The workload in cg/work.  Where v2 has the memory controller, the
# reader's memory cgroup goes beside it, under cg, which holds no task
# itself (v2 lets no task sit beside a controller); else it is a v1 one,
# and the reader stays in cg/work on v2.
memcg_parent=
if grep -qw memory "$cgroot/cgroup.controllers" 2>/dev/null; then
	echo +memory >"$cgroot/cgroup.subtree_control" 2>/dev/null
	memcg_parent=$cgroot/$cg
fi
"${CC:-cc}" -O2 -o "$dir/pressure" "$here/lib/kmem_stall_pressure.c" ||
	kmem_skip "cannot build kmem_stall_pressure.c"

pool=$(cat /proc/sys/vm/nr_hugepages)
pids=
workload=
# shellcheck disable=SC2317 # run by the trap
cleanup() {
	# Our own processes only; the workload gives the pool back and
	# removes its memory cgroup as it ends, on its alarm too.
	touch "$dir/exit"
	for p in $pids $workload; do
		kill "$p" 2>/dev/null
	done
	[ -n "$workload" ] && wait "$workload" 2>/dev/null
	echo "$pool" >/proc/sys/vm/nr_hugepages
	rmdir "$cgroot/$cg/work" "$cgroot/$cg" 2>/dev/null
	rm -rf "$dir"
}
trap cleanup EXIT

(
	echo "$BASHPID" >"$cgroot/$cg/work/cgroup.procs"
	exec env KMEM_STALL_CGROUP="$memcg_parent" "$dir/pressure" "$dir" \
		>"$dir/workload.txt" 2>&1
) &
workload=$!
while [ ! -e "$dir/ready" ]; do
	if ! kill -0 "$workload" 2>/dev/null; then
		wait "$workload"
		[ $? -eq 3 ] && kmem_skip "$(sed -n 's/^skip //p' "$dir/workload.txt")"
		cat "$dir/workload.txt"
		fail "the workload ended early"
		exit 1
	fi
	sleep 0.1
done

# The page allocations with their stacks and every stall tracepoint the
# kernel has (those that begin a stall with theirs), of the cgroup.
events=(-e kmem:mm_page_alloc/call-graph=fp/ -e kmem:mm_page_free)
for e in vmscan:mm_vmscan_direct_reclaim_begin vmscan:mm_vmscan_direct_reclaim_end \
	vmscan:mm_vmscan_memcg_reclaim_begin vmscan:mm_vmscan_memcg_reclaim_end \
	compaction:mm_compaction_try_to_compact_pages compaction:mm_compaction_begin \
	compaction:mm_compaction_end compaction:mm_compaction_deferred \
	vmscan:mm_vmscan_wakeup_kswapd vmscan:mm_vmscan_kswapd_wake \
	compaction:mm_compaction_wakeup_kcompactd compaction:mm_compaction_kcompactd_wake; do
	[ -d "/sys/kernel/tracing/events/${e/://}" ] || continue
	case $e in
	*_begin | *try_to_compact_pages) events+=(-e "$e/call-graph=fp/") ;;
	*) events+=(-e "$e") ;;
	esac
done
cgs=$cg
for _ in $(seq $((${#events[@]} / 2 - 1))); do
	cgs=$cgs,$cg
done

mkfifo "$dir/ctl" "$dir/ack" || exit 1
perf record -q -a -m 8192 --kernel-callchains "${events[@]}" -G "$cgs" -D -1 \
	--control "fifo:$dir/ctl,$dir/ack" -o "$dir/rec.data" >"$dir/rec.log" 2>&1 &
recorder=$!
perf kmem stat --page -b --cgroup "$cg" --caller -l 1000000 -I 500 --json -v \
	>"$dir/b.json" 2>"$dir/b.err" &
stat_b=$!
perf kmem stat --page -b --cgroup "$cg" --folded=stall --max-stack 40 -v \
	-o "$dir/b.folded" 2>"$dir/folded.err" &
folded_b=$!
perf kmem stat --page -b --cgroup "$cg" -M 4 -v >"$dir/small.txt" 2>"$dir/small.err" &
small_b=$!
perf kmem stat --page -b --cgroup "$cg" --pprof "$dir/b.pb.gz" -v 2>"$dir/pprof.err" &
pprof_b=$!
pids="$recorder $stat_b $folded_b $small_b $pprof_b"
exec 7>"$dir/ctl" 8<"$dir/ack"
echo enable >&7
if ! read -r -t 20 ack <&8 || [ "$ack" != ack ]; then
	cat "$dir/rec.log"
	fail "perf record did not start"
	exit 1
fi
for name in b folded small pprof; do
	for _ in $(seq 300); do
		grep -q 'counting in the kernel' "$dir/$name.err" && break
		sleep 0.1
	done
	if ! grep -q 'counting in the kernel' "$dir/$name.err"; then
		fail "stat -b did not start: $(grep 'perf kmem' "$dir/$name.err" | tail -n 1)"
		exit 1
	fi
done
start=$(date +%s.%N)
touch "$dir/go"
while [ ! -e "$dir/done" ] && kill -0 "$workload" 2>/dev/null; do
	sleep 0.1
done
echo disable >&7
read -r -t 20 ack <&8
exec 7>&- 8<&-
kill -INT "$stat_b" "$folded_b" "$small_b" "$pprof_b" "$recorder"
wait "$stat_b" || fail "stat -b exited with $?: $(grep 'perf kmem:' "$dir/b.err" |
	grep -v counting | head -n 1)"
wait "$folded_b" || fail "stat -b --folded=stall exited with $?"
wait "$small_b" || fail "stat -b -M 4 exited with $?"
wait "$pprof_b" || fail "stat -b --pprof exited with $?"
wait "$recorder"
pids=
touch "$dir/exit"
wait "$workload" || fail "the workload failed: $(tail -n 3 "$dir/workload.txt")"
workload=
echo "  pressure for $(awk -v s="$start" -v e="$(date +%s.%N)" \
	'BEGIN { printf "%.1f", e - s }') s, counted by both"

perf kmem stat --page --caller -l 1000000 --json -i "$dir/rec.data" \
	>"$dir/rec.json" 2>"$dir/rec.err" ||
	{ fail "stat of the recording: $(tail -n 1 "$dir/rec.err")"; exit 1; }
python3 "$count" --json "$dir/rec.json" >"$dir/rec.keys" || fail "reading rec.json"
python3 "$count" --json "$dir/b.json" >"$dir/b.keys" || fail "reading -b's JSON"

# value KEY FILE: a number of the count, or of what perf kmem says.
value() {
	awk -v k="$1" '$1 == k { print $2; f = 1 } END { if (!f) print 0 }' "$2"
}

if [ "$(value events.direct_reclaims "$dir/rec.keys")" -lt 30 ] ||
	[ "$(value events.memcg_reclaims "$dir/rec.keys")" -lt 100 ] ||
	[ "$(value events.compaction_attempts "$dir/rec.keys")" -lt 100 ]; then
	kmem_skip "memory could not be pressured so here:" \
		"$(value events.direct_reclaims "$dir/rec.keys") direct reclaims," \
		"$(value events.memcg_reclaims "$dir/rec.keys") memcg reclaims," \
		"$(value events.compaction_attempts "$dir/rec.keys") direct compactions"
fi
python3 "$count" --perf "$(command -v perf)" -i "$dir/rec.data" >"$dir/count" ||
	fail "kmem_stall_count.py"

lost=$(python3 -c 'import json, sys
print(json.load(open(sys.argv[1]))["perf_data"]["events_lost"])' "$dir/rec.json")
read -r missed ring_lost < <(python3 -c 'import json, sys
s = json.load(open(sys.argv[1]))["source"]
print(s["events_missed"], s.get("stall_events_lost", 0))' "$dir/b.json")
[ "$lost" -eq 0 ] || echo "  note: perf record lost $lost events: counts may differ"
[ "$missed" -eq 0 ] || echo "  note: the kernel skipped $missed runs of the BPF programs"
[ "$ring_lost" -eq 0 ] || fail "-b lost $ring_lost stall events (the ring was full)"

# The figures the issue names, one line each: -b = recording = count.
for k in events.direct_reclaims events.memcg_reclaims events.compaction_attempts \
	events.nested_allocations all.stalls all.failed all.reclaims all.compactions; do
	b=$(value "$k" "$dir/b.keys")
	r=$(value "$k" "$dir/rec.keys")
	c=$(value "$k" "$dir/count")
	if [ "$b" = "$r" ] && [ "$r" = "$c" ]; then
		echo "  $k: -b $b = recording $r = count $c"
	else
		fail "$k: -b $b, recording $r, count $c"
	fi
done

# Every number that is not a time: -b's against the recording's and the
# count's, the allocations nested in stalls too.  The BPF program must
# allocate nothing at a stall's begin: what it allocates there comes
# inside the begin's tracepoint, after the begin in -b's ring and
# before it in the recording, whose sample is stamped once the BPF
# programs of the tracepoint have run.
untimed() {
	grep -vE '_ns |histogram|^vm\.' "$1"
}
untimed "$dir/b.keys" >"$dir/b.untimed"
untimed "$dir/rec.keys" >"$dir/rec.untimed"
untimed "$dir/count" >"$dir/count.untimed"
for other in rec count; do
	if ! diff "$dir/$other.untimed" "$dir/b.untimed" >"$dir/$other.diff"; then
		sed 's/^/  /' "$dir/$other.diff" | head -n 30
		fail "-b and the $other differ in $(grep -c '^[<>]' "$dir/$other.diff") lines"
	fi
done
[ "$(grep -c '^row\.' "$dir/b.untimed")" -ge 10 ] ||
	fail "only $(grep -c '^row\.' "$dir/b.untimed") numbers of -b's stall rows"
[ "$(grep -c '^memcg_row\.' "$dir/b.untimed")" -ge 1 ] || fail "no memcg row in -b"
echo "  -b = recording = count: $(wc -l <"$dir/b.untimed") numbers that are not times"

# The same stalls timed by two clocks at two points of each event.
b=$(value all.total_ns "$dir/b.keys")
r=$(value all.total_ns "$dir/rec.keys")
if awk -v b="$b" -v r="$r" 'BEGIN { exit !(r > 0 && b >= 0.95 * r && b <= 1.05 * r) }'; then
	echo "  total stall time: -b $((b / 1000)) us, recording $((r / 1000)) us"
else
	fail "total stall time: -b $b ns, recording $r ns: more than 5% apart"
fi

# -I 500: the intervals' stalls and stall time add up to the totals.
python3 - "$dir/b.json" <<'PYEOF' || fail "-I 500: the intervals' stalls"
import json
import sys

page = json.load(open(sys.argv[1]))['page']
rows = page['intervals']['rows']
want = page['stalls']['all']
got = {k: sum(r[k] for r in rows) for k in ('stalls', 'stall_ns')}
ms = json.load(open(sys.argv[1]))['source']['duration_ns'] // 1000000
if got != {'stalls': want['stalls'], 'stall_ns': want['total_ns']} or \
   len(rows) < 2:
    print(f"FAIL: {len(rows)} intervals in {ms} ms of {got}, totals"
          f" {want['stalls']} stalls, {want['total_ns']} ns")
    sys.exit(1)
print(f"  -I 500: {len(rows)} intervals in {ms} ms, {got['stalls']} stalls in all,"
      f" in {sum(1 for r in rows if r['stalls'])} of them")
PYEOF

# -M 4: a ring of one page, which a few stacks fill.  What it could not
# take is said in one line; if it took everything, its count is right.
small_lost=$(awk '/^ Stall events lost \(ring full, -M\):/ { gsub(/,/, "", $NF); print $NF }' \
	"$dir/small.txt")
small_stalls=$(awk '/^ Stalled allocations:/ { gsub(/,/, "", $NF); print $NF }' "$dir/small.txt")
if [ -n "$small_lost" ]; then
	echo "  -M 4: $small_lost stall events lost, said in one line"
	[ "$(grep -c '^ Stall events lost' "$dir/small.txt")" -eq 1 ] ||
		fail "-M 4: the lost stall events said more than once"
elif [ "$small_stalls" != "$(value all.stalls "$dir/rec.keys")" ]; then
	fail "-M 4: no stall event lost, yet ${small_stalls:-no} stalled allocations," \
		"the recording $(value all.stalls "$dir/rec.keys")"
fi

# -b's stall time as the other -b's measure it: the same clock, read
# when each program runs, after those attached before it at the same
# event, which at an allocation that ends a stall walk its stack (a few
# us each).  So within 1%, and 30 us a stall for the three runs before.
near() {
	awk -v g="$1" -v w="$2" -v n="$(value all.stalls "$dir/b.keys")" \
		'BEGIN { d = g - w; if (d < 0) d = -d; exit !(w > 0 && d <= w / 100 + n * 30000) }'
}

# --folded=stall: the stacks of the stalled allocations are the
# recording's, and their weights add up to -b's stall time (near).
# -b's stacks are 40 frames deep, the recording's whole: both are
# compared in their 16 frames from the callsite (root first, the
# callsite last).
perf kmem stat --page --folded=stall -i "$dir/rec.data" >"$dir/rec.folded" \
	2>"$dir/rec.folded.err" || fail "--folded=stall of the recording"
python3 - "$dir" >"$dir/folded.check" <<'PYEOF' || fail "-b --folded=stall"
import sys

d = sys.argv[1]


def stacks(path):
    out = {}
    for line in open(path):
        stack, _, weight = line.rstrip('\n').rpartition(' ')
        stack = ';'.join(stack.split(';')[-16:])
        out[stack] = out.get(stack, 0) + int(weight)
    return out


b, rec = stacks(f'{d}/b.folded'), stacks(f'{d}/rec.folded')
if set(b) != set(rec):
    print(f'FAIL: {len(set(b) ^ set(rec))} stacks on one side only, of'
          f' {len(b)} and {len(rec)}')
    sys.exit(1)
print(len(b), sum(b.values()))
PYEOF
read -r nr_stacks got <"$dir/folded.check"
want=$(value all.total_ns "$dir/b.keys")
if near "$got" "$want"; then
	echo "  --folded=stall: $nr_stacks stacks, the recording's; $got ns of $want"
else
	fail "--folded=stall: the stacks weigh $got ns, -b counted $want ns"
fi

# --pprof: its stall/nanoseconds, summed by the test's own reader of
# profile.proto, is -b's stall time (near).
got=$(python3 "$here/lib/kmem_pprof_decode.py" "$dir/b.pb.gz" | python3 -c 'import json, sys
print(json.load(sys.stdin)["sums"].get("stall/nanoseconds", 0))')
want=$(value all.total_ns "$dir/b.keys")
if near "$got" "$want"; then
	echo "  --pprof stall/nanoseconds: $got, -b's stall time $want"
else
	fail "--pprof stall/nanoseconds $got, -b's stall time $want: not within 1% + 30 us a stall"
fi

if python3 -c 'import jsonschema' 2>/dev/null; then
	python3 "$here/lib/kmem_json_schema.py" "$here/../../Documentation/perf-kmem.schema.json" \
		"$dir/b.json" >"$dir/b.schema" 2>&1 ||
		fail "-b's JSON against the schema: $(head -n 3 "$dir/b.schema")"
fi

kmem_result "perf kmem stat -b stalls"
