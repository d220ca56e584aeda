#!/bin/bash
# perf kmem diff: two real traces against their own perf kmem stat (exclusive)
# SPDX-License-Identifier: GPL-2.0
#
# Records two workloads with perf kmem record --page --slab, then:
#  - a trace against itself: every delta 0, no row on one side only;
#  - OLD against NEW: every number of both traces' perf kmem stat
#    --caller --json (summaries, grid, cross-node, fragmentation, trace
#    counts) is in the diff with its delta NEW - OLD and its percentage,
#    every --caller row (page and slab, fallbacks, failures, caches) of
#    each side summed by name is a row of the diff with its own hits and
#    bytes, and the text prints the summary lines as stat does;
#  - -l, -s, --time and --comm reach the diff;
#  - the bundled trace against a copy of it whose kernel lies 2 MiB
#    higher, as after a reboot under KASLR: every callsite has another
#    address, every row still pairs by name;
#  - bad input: one line naming the trace, exit 1.

set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
check="$here/lib/kmem_diff_check.py"
shift_kernel="$here/lib/kmem_kaslr_shift.py"

# shellcheck source-path=SCRIPTDIR source=lib/kmem_common.sh
. "$(dirname "$0")/lib/kmem_common.sh"
kmem_need_tracepoints

kmem_scratch diff
ok() {
	echo "ok   $*"
}

# record FILE CMD: a page and slab trace of CMD.
record() {
	kmem_record_or_skip "$1" --page --slab -- sh -c "$2"
}

# File reads; anonymous memory and directory walks.  (cat fails on the
# directories of /usr/bin, and perf record would pass its status on.)
record "$dir/old.data" 'cat /usr/bin/* >/dev/null 2>&1; true'
record "$dir/new.data" \
	'dd if=/dev/zero of=/dev/null bs=1M count=64 2>/dev/null; ls -R /usr/include >/dev/null'

# run NAME CMD...: a command that must succeed, its stderr kept.
run() {
	local name=$1

	shift
	if ! "$@" 2>"$dir/err"; then
		fail "$name: $*: $(tail -n 1 "$dir/err")"
		return 1
	fi
}

# checked NAME ARGS...: kmem_diff_check.py ARGS, its verdict a result.
checked() {
	local name=$1

	shift
	if python3 "$check" "$@" >"$dir/check.out"; then
		ok "$name: $(tail -n 1 "$dir/check.out" | sed 's/^ok: //')"
	else
		fail "$name:"
		sed 's/^/    /' "$dir/check.out" | head -n 12
	fi
}

modes="--page --slab"

# A trace against itself.
# shellcheck disable=SC2086 # $modes is a list of options
if run "itself" perf kmem diff $modes --json "$dir/old.data" "$dir/old.data" \
	>"$dir/same.json"; then
	checked "itself" same "$dir/same.json"
fi
# shellcheck disable=SC2086
if run "itself, text" perf kmem diff $modes --caller "$dir/old.data" \
	"$dir/old.data" >"$dir/same.txt"; then
	if grep -E ' rows?, ' "$dir/same.txt" | grep -vq ', 0 new, 0 gone$'; then
		fail "itself, text: a row on one side only:"
		grep -E ' rows?, ' "$dir/same.txt" | sed 's/^/    /'
	elif grep -qE '(^| )[+-][0-9]' "$dir/same.txt"; then
		fail "itself, text: a delta that is not '.'"
	else
		tables=$(grep -cE ' rows?, ' "$dir/same.txt")
		ok "itself, text: $tables tables, no row on one side only, no delta"
	fi
fi

# OLD against NEW, against each trace's own stat.
for side in old new; do
	# shellcheck disable=SC2086
	run "stat $side" perf kmem stat $modes --caller --json \
		-i "$dir/$side.data" >"$dir/$side.json" || exit 1
done
# shellcheck disable=SC2086
if run "old vs new" perf kmem diff $modes --json "$dir/old.data" \
	"$dir/new.data" >"$dir/diff.json"; then
	checked "old vs new, JSON" pairs "$dir/diff.json" "$dir/old.json" \
		"$dir/new.json"
	checked "old vs new, page rows sorted" sorted "$dir/diff.json" \
		page.callers bytes
	checked "old vs new, slab rows sorted" sorted "$dir/diff.json" \
		slab.callers bytes_alloc
fi
# shellcheck disable=SC2086
if run "old vs new, text" perf kmem diff $modes "$dir/old.data" \
	"$dir/new.data" >"$dir/diff.txt"; then
	checked "old vs new, text" text "$dir/diff.txt" "$dir/old.json" \
		"$dir/new.json"
fi
# Where neither trace's stat has a stall number other than 0 (its tables
# apart), the diff says so in a line, as stat does; else it has the lines.
python3 - "$dir" <<'PYEOF' || err=1
import json
import sys

d = sys.argv[1]


def numbers(x):
    if isinstance(x, dict) and 'rows' not in x:
        for v in x.values():
            yield from numbers(v)
    elif isinstance(x, (int, float)) and not isinstance(x, bool):
        yield x


none = not any(n for side in ('old', 'new')
               for n in numbers(json.load(open(f'{d}/{side}.json'))['page']['stalls']))
text = open(f'{d}/diff.txt').read()
line = 'No allocation stalled in either' in text
numbered = ' Stalled allocations: ' in text
if line != none or numbered == none:
    print(f'FAIL: old vs new, text: stall numbers all 0: {none}; the line: {line}; '
          f'the numbers: {numbered}')
    sys.exit(1)
print(f'ok   old vs new, text: stalls {"in a line" if none else "as numbers"}, as stat has them')
PYEOF
# The streams perf kmem record -o - would have written (made of the
# recordings by lib/kmem_pipe_format.py), on either side or both: read as
# stat reads them, the recordings' diff.  A second stream was refused.
for side in old new; do
	python3 "$here/lib/kmem_pipe_format.py" "$dir/$side.data" \
		>"$dir/$side.stream" || fail "cannot make the stream of $side.data"
done
for sides in "old.stream new.stream" "old.data new.stream" "old.stream new.data"; do
	# shellcheck disable=SC2086
	perf kmem diff $modes "$dir/${sides% *}" "$dir/${sides#* }" \
		>"$dir/got" 2>"$dir/err"
	rc=$?
	sed -i 's|\.stream |.data |' "$dir/got"
	if [ $rc = 0 ] && cmp -s "$dir/diff.txt" "$dir/got"; then
		ok "streams, $sides: the recordings' diff"
	else
		fail "streams, $sides: exit $rc, $(tail -n 1 "$dir/err")"
	fi
done
# The same, with the options after the traces and the JSON to a file.
# shellcheck disable=SC2086
if run "-o" perf kmem diff "$dir/old.data" "$dir/new.data" --json $modes \
	-o "$dir/diff-o.json" && cmp -s "$dir/diff.json" "$dir/diff-o.json"; then
	ok "options after the traces, -o: the same document"
else
	fail "options after the traces, -o: another document"
fi

# -l and -s.
perf kmem diff --page --json -l 3 -s hit "$dir/old.data" "$dir/new.data" \
	>"$dir/l3.json" 2>"$dir/err"
if python3 - "$dir/l3.json" <<'EOF'; then
import json, sys
t = json.load(open(sys.argv[1]))["tables"]["page.callers"]
assert len(t["rows"]) == min(3, t["nr_rows"]), (len(t["rows"]), t["nr_rows"])
d = [abs(r["hits"]["delta"] if r["hits"]["delta"] is not None else 0)
     for r in t["rows"]]
assert d == sorted(d, reverse=True), d
EOF
	ok "-l 3 -s hit: three rows, by |hits delta|"
else
	fail "-l 3 -s hit"
fi

# -s callsite: stat and diff list the callsites in one order, by name.
for a in page slab; do
	perf kmem stat --$a --caller --json -s callsite -i "$dir/old.data" \
		>"$dir/cs-stat.json" 2>/dev/null
	perf kmem diff --$a --json -s callsite "$dir/old.data" "$dir/old.data" \
		>"$dir/cs-diff.json" 2>/dev/null
	if out=$(python3 - "$dir/cs-stat.json" "$dir/cs-diff.json" $a 2>&1 <<'EOF'
import itertools, json, sys
stat, diff = (json.load(open(p)) for p in sys.argv[1:3])
a = sys.argv[3]
s = [k for k, _ in itertools.groupby(
     r["callsite"]["name"] for r in stat[a]["callers"]["rows"])]
d = [k for k, _ in itertools.groupby(
     r["callsite"] for r in diff["tables"][a + ".callers"]["rows"])]
assert len(s) > 5, s
assert s == sorted(set(s), key=lambda n: n.encode()), "stat: %s" % s[:4]
assert d == s, "diff: %s, stat: %s" % (d[:4], s[:4])
print(len(s), "callsites from", s[0], "to", s[-1])
EOF
	); then
		ok "-s callsite, --$a: stat and diff by name, $out"
	else
		fail "-s callsite, --$a: $(echo "$out" | tail -n 1)"
	fi
done

# --time: each trace cut to the window, as stat cuts it.
first=$(perf script -F time -i "$dir/old.data" 2>/dev/null | head -n 1 |
	tr -d ' :')
window=",$(echo "${first:-0}" | awk '{ printf "%.6f", $1 + 0.5 }')"
perf kmem stat --page --caller --json --time "$window" -i "$dir/old.data" \
	>"$dir/t-old.json" 2>/dev/null
if ! python3 - "$dir/t-old.json" "$dir/old.json" <<'EOF'; then
import json, sys
cut, whole = (json.load(open(p))["perf_data"]["nr_samples"] for p in sys.argv[1:])
assert 0 < cut < whole, (cut, whole)
EOF
	fail "--time $window: stat does not cut the old trace to part of it"
elif run "--time" perf kmem diff --page --json --time "$window" \
	"$dir/old.data" "$dir/old.data" >"$dir/t-diff.json"; then
	checked "--time $window, in each trace" pairs "$dir/t-diff.json" \
		"$dir/t-old.json" "$dir/t-old.json"
fi
# The new trace was recorded later: nothing of it in the window.
perf kmem diff --page --time "$window" "$dir/old.data" "$dir/new.data" \
	>/dev/null 2>"$dir/err"
if [ "$(wc -l <"$dir/err")" = 1 ] &&
   grep -q "no kmem event of $dir/new.data in --time $window" "$dir/err"; then
	ok "--time $window, the trace without events named: $(cat "$dir/err")"
else
	fail "--time $window, new trace: $(cat "$dir/err")"
fi

# --comm: each trace's allocations of the shell, as stat keeps them.
for side in old new; do
	perf kmem stat --page --caller --json --comm sh -i "$dir/$side.data" \
		>"$dir/c-$side.json" 2>/dev/null
done
if ! python3 - "$dir/c-old.json" "$dir/old.json" "$dir/c-new.json" "$dir/new.json" <<'EOF'; then
import json, sys
n = [json.load(open(p))["page"]["summary"]["total_allocations"]["count"]
     for p in sys.argv[1:]]
assert 0 < n[0] < n[1] and 0 < n[2] < n[3], n
EOF
	fail "--comm sh: stat does not keep part of each trace"
elif run "--comm" perf kmem diff --page --json --comm sh "$dir/old.data" \
	"$dir/new.data" >"$dir/c-diff.json"; then
	checked "--comm sh, in each trace" pairs "$dir/c-diff.json" \
		"$dir/c-old.json" "$dir/c-new.json"
fi

# --comm of tasks that allocated nothing in a trace: stat's line about
# it, which names the trace, and exit 1 (the diff printed zeros).  The
# new trace ran no cat; neither ran nosuch.
for comm in nosuch cat; do
	perf kmem diff --page --comm $comm "$dir/old.data" "$dir/new.data" \
		>"$dir/out" 2>"$dir/err"
	rc=$?
	want=
	for side in old new; do
		perf kmem stat --page --comm $comm -i "$dir/$side.data" \
			>/dev/null 2>"$dir/stat.err" || { want=$(cat "$dir/stat.err"); break; }
	done
	if [ $rc = 1 ] && [ -n "$want" ] && [ "$(cat "$dir/err")" = "$want" ] &&
	   [ ! -s "$dir/out" ]; then
		ok "--comm $comm: $want"
	else
		fail "--comm $comm: exit $rc, '$(head -n 1 "$dir/err")', stat: '$want'"
	fi
done

# Another boot: the bundled trace with its kernel 2 MiB higher.  The
# trace is perf kmem's, not the kernel tree's: KMEM_DATA names its
# directory there.
sample="${KMEM_DATA:-$top/data}/sample.perf.data"
ksyms="${KMEM_DATA:-$top/data}/sample.kallsyms"
if [ ! -r "$sample" ]; then
	echo "skip moved kernel: no $sample (KMEM_DATA names its directory)"
elif python3 "$shift_kernel" "$sample" "$dir/moved.data" >"$dir/moved.log"; then
	perf kmem stat --page --caller --json -i "$sample" --kallsyms "$ksyms" \
		>"$dir/s-old.json" 2>/dev/null
	perf kmem stat --page --caller --json -i "$dir/moved.data" \
		--kallsyms "$ksyms" >"$dir/s-new.json" 2>/dev/null
	# The test means nothing unless every callsite moved and kept its name.
	if python3 - "$dir/s-old.json" "$dir/s-new.json" <<'EOF'; then
import json, sys
rows = [json.load(open(p))["page"]["callers"]["rows"] for p in sys.argv[1:]]
assert rows[0] and len(rows[0]) == len(rows[1])
for a, b in zip(*rows):
    assert a["callsite"]["name"] and a["callsite"]["name"] == b["callsite"]["name"]
    assert int(b["callsite"]["address"], 16) - int(a["callsite"]["address"], 16) == 0x200000
EOF
		ok "moved kernel: $(cat "$dir/moved.log");" \
			"every callsite 0x200000 higher, same name"
	else
		fail "moved kernel: the callsites did not move, or lost their names"
	fi
	if run "moved kernel" perf kmem diff --page --json --kallsyms "$ksyms" \
		"$sample" "$dir/moved.data" >"$dir/moved.json"; then
		checked "moved kernel, all rows paired" same "$dir/moved.json"
		checked "moved kernel, against stat" pairs "$dir/moved.json" \
			"$dir/s-old.json" "$dir/s-new.json"
	fi
else
	fail "moving the kernel of $sample: $(cat "$dir/moved.log")"
fi

# A new trace corrupt in the middle: compared up to there, stat's line
# about it last, exit 1, as perf kmem stat does with it.
cp "$dir/new.data" "$dir/garbage.data"
size=$(stat -c %s "$dir/garbage.data")
dd if=/dev/urandom of="$dir/garbage.data" bs=4096 count=1 \
	seek=$((size / 8192)) conv=notrunc status=none
perf kmem stat --page -i "$dir/garbage.data" >/dev/null 2>"$dir/stat.err"
perf kmem diff --page "$dir/old.data" "$dir/garbage.data" >"$dir/out" \
	2>"$dir/err"
rc=$?
if [ $rc = 1 ] && grep -q "SUMMARY (page allocator)" "$dir/out" &&
   [ "$(tail -n 1 "$dir/err")" = "$(tail -n 1 "$dir/stat.err")" ] &&
   grep -q "garbage.data is corrupt after" "$dir/err"; then
	ok "corrupt new trace: the diff, then $(tail -n 1 "$dir/err")"
else
	fail "corrupt new trace: exit $rc, stat said '$(tail -n 1 "$dir/stat.err")', diff:"
	sed 's/^/    /' "$dir/err" | head -n 5
fi

# Documentation/perf-kmem-diff.schema.json takes every document written
# here, and refuses drifts of one.
schema="$top/Documentation/perf-kmem-diff.schema.json"
python3 "$check" schema "$schema" "$dir/diff.json" >"$dir/check.out"
case $? in
0)
	checked "schema" schema "$schema" "$dir/same.json" "$dir/diff.json" \
		"$dir/l3.json" "$dir/t-diff.json" "$dir/moved.json"
	drift() {
		python3 - "$dir/diff.json" "$dir/drift.json" "$2" <<'EOF'
import json, sys
doc = json.load(open(sys.argv[1]))
exec(sys.argv[3])
json.dump(doc, open(sys.argv[2], "w"))
EOF
		if python3 "$check" schema "$schema" "$dir/drift.json" \
			>"$dir/check.out"; then
			fail "schema: drift accepted: $1"
		else
			ok "schema: drift refused: $1"
		fi
	}
	drift "stat's version" 'doc["schema"] = 1'
	drift "delta as a string" \
		'doc["numbers"]["page.summary.failures.count"]["delta"] = "0"'
	drift "negative old" \
		'doc["numbers"]["page.summary.failures.count"]["old"] = -1'
	drift "value without delta_percent" \
		'del doc["numbers"]["page.summary.failures.count"]["delta_percent"]'
	drift "row neither new nor gone" \
		'doc["tables"]["page.callers"]["rows"][0]["in"] = "old"'
	drift "unknown table" 'doc["tables"]["page.allocs"] = doc["tables"]["page.callers"]'
	drift "unknown top-level key" 'doc["diff"] = 1'
	;;
2)
	echo "skip schema: python3-jsonschema is not installed"
	;;
*)
	fail "schema:"
	sed 's/^/    /' "$dir/check.out" | head -n 10
	;;
esac

# Bad input: one line, naming the trace, exit 1.
expect() {
	local name=$1 words=$2 rc lines

	shift 2
	perf kmem diff "$@" >/dev/null 2>"$dir/err"
	rc=$?
	lines=$(wc -l <"$dir/err")
	if [ "$rc" -ne 1 ] || [ "$lines" -ne 1 ] ||
	   ! grep -q "^perf kmem: .*$words" "$dir/err"; then
		fail "$name: exit $rc, $lines lines, want one with '$words':"
		sed 's/^/    /' "$dir/err" | head -n 5
	else
		ok "$name: $(cat "$dir/err")"
	fi
}

# Saved reports: each trace's perf kmem stat --json is taken as the
# trace itself is, on either side or both: the same text, the same JSON.
# (A report counts the samples of its analyses: saved with what diff
# compares.)
for side in old new; do
	run "save $side" perf kmem stat --page --slab --caller --json \
		-o "$dir/$side.json" -i "$dir/$side.data" || exit 1
	run "save $side page" perf kmem stat --page --caller --json \
		-o "$dir/$side-page.json" -i "$dir/$side.data" || exit 1
done
for args in "--page --slab --caller" "--page --caller --json -s hit -l 5"; do
	saved=.json
	[ "${args#*--slab}" = "$args" ] && saved=-page.json
	# shellcheck disable=SC2086 # $args is a list of options
	perf kmem diff $args "$dir/old.data" "$dir/new.data" >"$dir/want" 2>&1
	for sides in "old$saved new.data" "old.data new$saved" \
		     "old$saved new$saved"; do
		# shellcheck disable=SC2086 # $args is a list of options
		perf kmem diff $args "$dir/${sides% *}" "$dir/${sides#* }" \
			>"$dir/got" 2>&1
		if cmp -s "$dir/want" "$dir/got"; then
			ok "saved $sides, $args: as the recordings"
		else
			fail "saved $sides, $args: not as the recordings:"
			diff "$dir/want" "$dir/got" | head -n 6 | sed 's/^/    /'
		fi
	done
done
run "save page only" perf kmem stat --page --json -o "$dir/page.json" \
	-i "$dir/old.data" || exit 1
perf kmem diff --page --json "$dir/old.data" "$dir/new.data" \
	>"$dir/diff.json" 2>/dev/null
echo '{"page": {}}' >"$dir/schemaless.json"
# Rows as an object, not an array: the diff cannot pair them.
echo '{"schema": 1, "page": {"callers": {"nr_rows": 1, "rows": {"x": {"hits": 1}}}}}' \
	>"$dir/badrows.json"
head -c 3000 "$dir/old.json" >"$dir/truncated.json"
perf record -q -e cpu-clock -o "$dir/cycles.data" -- true >/dev/null 2>&1
: >"$dir/empty.data"
expect "no trace" "diff needs two traces" --page
expect "no second trace" "second trace to compare $dir/old.data with" \
	--page "$dir/old.data"
expect "three traces" "compares two traces, not 3" --page "$dir/old.data" \
	"$dir/old.data" "$dir/old.data"
expect "missing new trace" "cannot read $dir/none.data: No such file" \
	--page "$dir/old.data" "$dir/none.data"
expect "empty old trace" "$dir/empty.data.*empty" \
	--page "$dir/empty.data" "$dir/old.data"
expect "new trace without page events" "$dir/cycles.data has no page allocator events" \
	--page "$dir/old.data" "$dir/cycles.data"
expect "old trace without slab events" "$dir/cycles.data has no slab allocator events" \
	--slab "$dir/cycles.data" "$dir/old.data"
expect "-i" "not -i" --page -i "$dir/old.data" "$dir/old.data" "$dir/new.data"
expect "--alloc" "diff takes no --alloc" --page --alloc "$dir/old.data" \
	"$dir/new.data"
expect "-I" "diff takes no -I" --page -I 10 "$dir/old.data" "$dir/new.data"
expect "stat-only sort key" "unknown sort key 'page' for diff --page" \
	--page -s page "$dir/old.data" "$dir/new.data"
not_saved="is not a perf kmem stat --json report"
expect "saved without slab" \
	"page.json has no slab analysis: save it with perf kmem stat --slab --json" \
	--slab "$dir/page.json" "$dir/new.data"
expect "a diff document" "diff.json $not_saved: its schema is not 1" \
	--page "$dir/diff.json" "$dir/new.data"
expect "no schema" "schemaless.json $not_saved: it has no \"schema\" member" \
	--page "$dir/schemaless.json" "$dir/new.data"
expect "rows not an array" \
	"badrows.json $not_saved: its table rows are not as perf kmem stat writes them" \
	--page "$dir/badrows.json" "$dir/new.data"
expect "truncated saved report" \
	"truncated.json $not_saved: it ends early, at byte 3000" \
	--page "$dir/old.data" "$dir/truncated.json"
expect "--time on saved" "--time takes recordings, not saved reports" \
	--page --time 1,2 "$dir/old.json" "$dir/new.data"
expect "--comm on saved" "--pid, --tid and --comm take recordings, not saved reports" \
	--page --comm sh "$dir/old.json" "$dir/new.data"
expect "--comm of slab" "--pid, --tid and --comm are for the page analysis" \
	--slab --comm sh "$dir/old.data" "$dir/new.data"

kmem_result "kmem diff test"
