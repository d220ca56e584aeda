#!/bin/bash
# perf kmem allocation stalls on a real pressure recording (exclusive)
# SPDX-License-Identifier: GPL-2.0
#
# Record allocations that stall in direct reclaim, memcg reclaim and
# direct compaction (lib/kmem_stall_pressure.sh: free pageblocks lent to
# the hugetlb pool, a reader in a memory cgroup, huge page faults), count
# every number of the STALLS section from 'perf script' output with
# lib/kmem_stall_count.py, which pairs the events per task and attributes
# them to the allocations itself, and check:
#
# - the recording holds at least 100 direct reclaims, 100 memcg reclaims
#   and 100 direct compactions;
# - every number perf kmem stat --page --json gives of the stalls (the
#   totals, the distribution of each order with its histogram, the
#   events, the wake-ups, every row of both tables) equals the count,
#   and so do the text section's lines and the top rows of its table;
# - the direct reclaims and compactions agree with /proc/vmstat's
#   allocstall_* and compact_stall over the recording: perf record's
#   events were on between the vmstat reads 1 and 2 (taken after perf
#   said they were on, before they were turned off) and within 0 and 3,
#   so the trace's count lies between the deltas 1..2 and 0..3, the
#   events of other tasks outside the window being the only difference;
#   compact_stall leaves out the attempts that neither compacted nor
#   found a zone deferred, so it lies between those that did and all;
# - a trace without stall events, or with some of them missing, says so
#   in one line.
#
# Exit: 0 pass, 1 fail, 2 skip.

here=$(dirname "$(readlink -f "$0")")
# shellcheck source-path=SCRIPTDIR source=lib/kmem_common.sh
. "$here/lib/kmem_common.sh"

kmem_need_tracepoints
kmem_need_commands python3 perf
perf=$(command -v perf)
kmem_scratch stall

count=${here}/lib/kmem_stall_count.py

record() {
	PERF=$perf bash "$here/lib/kmem_stall_pressure.sh" "$dir" \
		>"$dir/record.out" 2>&1
	case $? in
	0) ;;
	2) echo "skip: $(sed -n 's/^skip: //p' "$dir/record.out" | head -n 1)"
	   exit 2 ;;
	*) cat "$dir/record.out"; echo "FAIL: the recording"; exit 1 ;;
	esac
	sed 's/^/  /' "$dir/workload.txt" "$dir/record.txt"
	if ! perf kmem stat --page --json -i "$dir/perf.data" >"$dir/stat.json" \
		2>"$dir/stat.err"; then
		cat "$dir/stat.err"
		fail "perf kmem stat --page --json"
	fi
	python3 "$count" --json "$dir/stat.json" >"$dir/stat.keys" ||
		fail "reading the JSON"
}

# value KEY [FILE]: a number of the count, or of what perf kmem says.
value() {
	awk -v k="$1" '$1 == k { print $2; f = 1 } END { if (!f) print 0 }' \
		"${2:-$dir/count}"
}

# Whether the recording has what the analysis is about, by perf kmem's
# count (cheap); the independent count checks it next.
enough() {
	[ "$(value events.direct_reclaims "$dir/stat.keys")" -ge 100 ] &&
		[ "$(value events.memcg_reclaims "$dir/stat.keys")" -ge 100 ] &&
		[ "$(value events.compaction_attempts "$dir/stat.keys")" -ge 100 ]
}

# How much stalls depends on what the machine's memory looked like: a
# second try, then a skip rather than a test of little.
record
if ! enough; then
	echo "  too few stalls: recording again"
	record
	enough || { echo "skip: memory could not be pressured so here:" \
		"$(value events.direct_reclaims "$dir/stat.keys") direct reclaims," \
		"$(value events.memcg_reclaims "$dir/stat.keys") memcg reclaims," \
		"$(value events.compaction_attempts "$dir/stat.keys") direct" \
		"compactions"; exit 2; }
fi
python3 "$count" --perf "$perf" -i "$dir/perf.data" >"$dir/count" ||
	fail "kmem_stall_count.py"
enough || fail "perf kmem counts 100 of each, the count does not"
echo "  $(value events.direct_reclaims) direct reclaims," \
	"$(value events.memcg_reclaims) memcg reclaims," \
	"$(value events.compaction_attempts) direct compactions," \
	"$(value all.stalls) stalled allocations"

# --- JSON: every number -------------------------------------------------

grep -v '^vm\.' "$dir/count" >"$dir/count.keys"
if ! diff "$dir/count.keys" "$dir/stat.keys" >"$dir/keys.diff"; then
	sed 's/^/  /' "$dir/keys.diff" | head -n 40
	fail "perf kmem stat --page --json and the count differ" \
		"($(grep -c '^[<>]' "$dir/keys.diff") lines)"
fi
echo "  perf kmem --json = count: $(wc -l <"$dir/stat.keys") numbers"
[ "$(grep -c '^row\.' "$dir/stat.keys")" -ge 10 ] ||
	fail "only $(grep -c '^row\.' "$dir/stat.keys") numbers of stall rows"
[ "$(grep -c 'histogram' "$dir/stat.keys")" -ge 4 ] ||
	fail "fewer than 4 histogram buckets"
python3 "$here/lib/kmem_json_schema.py" "$here/../../Documentation/perf-kmem.schema.json" \
	"$dir/stat.json" 2>&1 | head -n 5
[ "${PIPESTATUS[0]}" -ne 1 ] || fail "perf kmem stat --page --json against the schema"

# --- text: the section and the top rows ---------------------------------

perf kmem stat --page --caller -l 5 -i "$dir/perf.data" >"$dir/stat.txt" \
	2>"$dir/stat.err" || fail "perf kmem stat --page --caller"
sed -n '/^ STALLS/,/^ CROSS-NODE\|^ All page traffic/p' "$dir/stat.txt" >"$dir/stalls.txt"

# The diff of a trace with stalls against itself has their numbers, not
# the line of traces without (kmem_diff.sh checks that one).
stalled=$(python3 -c 'import json, sys
print(json.load(open(sys.argv[1]))["page"]["stalls"]["all"]["stalls"])' "$dir/stat.json")
perf kmem diff --page "$dir/perf.data" "$dir/perf.data" >"$dir/diff.txt" 2>&1 ||
	fail "perf kmem diff of the trace against itself: $(tail -n 1 "$dir/diff.txt")"
if [ "$stalled" -gt 0 ] && { ! grep -q '^ Stalled allocations: ' "$dir/diff.txt" ||
	grep -q 'No allocation stalled in either' "$dir/diff.txt"; }; then
	fail "perf kmem diff of $stalled stalls against itself does not number them"
fi

# "label   12,345 [us]": the number after a label, commas dropped.
text() {
	awk -v l="$1" 'index($0, l) == 2 { v = substr($0, length(l) + 2)
		sub(/^ +/, "", v); sub(/ .*/, "", v); gsub(/,/, "", v)
		print v; exit }' "$dir/stalls.txt"
}

us() {
	echo $(($(value "$1") / 1000))
}

check_text() {
	local got

	got=$(text "$1")
	[ "$got" = "$2" ] || fail "text '$1' says '$got', the count $2"
}

check_text "Stalled allocations:" "$(value all.stalls)"
check_text "  failed after all:" "$(value all.failed)"
check_text "Stall time:" "$(us all.total_ns)"
check_text "  in direct reclaim:" "$(us all.reclaim_ns)"
check_text "  in compaction:" "$(us all.compaction_ns)"
check_text "Mean stall:" "$(us all.mean_ns)"
check_text "  p50:" "$(us all.p50_ns)"
check_text "  p90:" "$(us all.p90_ns)"
check_text "  p99:" "$(us all.p99_ns)"
check_text "  max:" "$(us all.max_ns)"
check_text "  direct reclaims (allocstall):" "$(value events.direct_reclaims)"
check_text "  memcg reclaims:" "$(value events.memcg_reclaims)"
check_text "  compactions (compact_stall):" "$(value events.compaction_attempts)"
check_text "  compaction runs (begin):" "$(value events.compaction_runs)"

# The table's top rows, by total stall time: stalls and total us of each,
# and its callsite, against the count's rows sorted so.
awk -F'|' '/Compact ok/ { t = 1; next }
	t && /^---/ && n { exit }
	t && NF > 10 { gsub(/[ ,]/, "", $1); gsub(/[ ,]/, "", $3)
		cs = $NF; gsub(/ /, "", cs); print $1, $3, cs; n++ }' \
	"$dir/stat.txt" >"$dir/rows.txt"
awk '$1 ~ /^row\./ { split($1, k, "."); id = k[2] "." k[3] "." k[4] "." k[5]
		f = k[6]; v[id, f] = $2; ids[id] = k[2] }
	END { for (id in ids)
		printf "%.0f %.0f %s\n", v[id, "total_ns"], v[id, "stalls"], ids[id] }' \
	"$dir/count" | sort -k1,1nr -k2,2nr | head -n 5 |
	awk '{ printf "%.0f %.0f %s\n", $2, int($1 / 1000), $3 }' >"$dir/rows.want"
if ! diff "$dir/rows.want" "$dir/rows.txt" >/dev/null; then
	paste "$dir/rows.want" "$dir/rows.txt" | sed 's/^/  /'
	fail "the top rows of the stall table differ from the count"
fi
[ -s "$dir/rows.txt" ] || fail "no stall table"

# --- pprof: the stall time of each sample --------------------------------

# The profile's stall/nanoseconds, summed by the test's own reader of
# profile.proto, is the count's stall time of all stalled allocations.
if perf kmem stat --page --pprof "$dir/stall.pb.gz" -i "$dir/perf.data" \
	2>"$dir/pprof.err"; then
	got=$(python3 "$here/lib/kmem_pprof_decode.py" "$dir/stall.pb.gz" |
	      python3 -c 'import json, sys
print(json.load(sys.stdin)["sums"].get("stall/nanoseconds", "none"))')
	[ "$got" = "$(value all.total_ns)" ] ||
		fail "--pprof stall/nanoseconds $got, the count $(value all.total_ns)"
	echo "  --pprof stall/nanoseconds = count: $got"
else
	cat "$dir/pprof.err"
	fail "perf kmem stat --page --pprof"
fi

# --- /proc/vmstat -------------------------------------------------------

vmdelta() {
	local from=$1 to=$2 key=$3

	awk -v k="$key" 'NR == FNR { if ($1 ~ k) a += $2; next }
		$1 ~ k { b += $2 } END { print b - a }' \
		"$dir/vmstat.$from" "$dir/vmstat.$to"
}

# between LOW VALUE HIGH NAME
between() {
	if [ "$1" -le "$2" ] && [ "$2" -le "$3" ]; then
		echo "  $4: $1 <= $2 <= $3"
	else
		fail "$4: $2 is not within $1..$3"
	fi
}

lost=$(python3 -c 'import json, sys
print(json.load(open(sys.argv[1]))["perf_data"]["events_lost"])' "$dir/stat.json")
if [ "$lost" -gt 0 ]; then
	echo "  $lost events lost: the vmstat bounds cannot hold, not checked"
else
	between "$(vmdelta 1 2 '^allocstall_')" "$(value events.direct_reclaims)" \
		"$(vmdelta 0 3 '^allocstall_')" "direct reclaims against allocstall"
	between "$(vmdelta 1 2 '^compact_stall$')" \
		"$(value events.compaction_attempts)" 1000000000 \
		"direct compactions, at least compact_stall"
	between 0 "$(value vm.attempts_worked)" "$(vmdelta 0 3 '^compact_stall$')" \
		"compactions that compacted or deferred, at most compact_stall"
fi

# --- what a trace lacks -------------------------------------------------

kmem_record_or_skip "$dir/few.data" --page -- sleep 0.1
perf kmem stat --page -i "$dir/few.data" >"$dir/few.txt" 2>&1 ||
	fail "perf kmem stat --page of a short recording"
# Its totals, or where nothing stalled in it one line that says so.
grep -qE '^ (Stalled allocations:|No allocation stalled: the trace has no direct)' \
	"$dir/few.txt" || fail "a recording with every stall event has no stall totals"
perf record -q -a -e kmem:mm_page_alloc -e vmscan:mm_vmscan_direct_reclaim_begin \
	-e vmscan:mm_vmscan_direct_reclaim_end -o "$dir/part.data" -- sleep 0.1 \
	>/dev/null 2>&1 || fail "perf record of some stall events"
perf kmem stat --page -i "$dir/part.data" >"$dir/part.txt" 2>&1 ||
	fail "perf kmem stat --page of a partial recording"
[ "$(grep -c '^ Not in the trace, so not shown:.*memcg_reclaim_begin.*try_to_compact_pages' \
	"$dir/part.txt")" -eq 1 ] ||
	fail "no one line naming the stall events the trace lacks"
sample=$here/../../data/sample.perf.data
if [ -e "$sample" ]; then
	perf kmem stat --page -i "$sample" --kallsyms "${sample%.perf.data}.kallsyms" \
		>"$dir/none.txt" 2>&1 || fail "perf kmem stat --page of $sample"
	grep -q '^ No stalls: the trace has no reclaim or compaction events' \
		"$dir/none.txt" || fail "a trace without stall events does not say so"
fi

kmem_result "perf kmem stall analysis"
