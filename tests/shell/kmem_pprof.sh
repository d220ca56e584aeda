#!/bin/bash
# perf kmem stat --page --pprof: memory profiles against go tool pprof (exclusive)
# SPDX-License-Identifier: GPL-2.0
#
# Records two workloads with perf kmem record --page and checks their
# --pprof profiles with go tool pprof and with a reader of the test's own
# (lib/kmem_pprof_decode.py): summed per sample type, the samples are the
# --json summary's allocations, bytes, still-live pages and bytes and
# fallbacks; the flat alloc_space of each function is the bytes of the
# --caller rows of that callsite; -diff_base of the two profiles gives
# perf kmem diff's callsite deltas; each -I profile is its interval's
# row, with its time and duration; a pipe gives what the file gives;
# --comm and --pid give the chosen tasks' --json sums, by pid label their
# -s pid --caller bytes; labels, mapping and build-id are the trace's;
# pprof's web UI draws the flame graph in headless Chromium (a screenshot
# in the scratch directory, KMEM_PPROF_SHOT=FILE keeps a copy); bad input
# gets one line and leaves no file.

set -u

# shellcheck source-path=SCRIPTDIR source=lib/kmem_common.sh
. "$(dirname "$0")/lib/kmem_common.sh"
kmem_need_tracepoints
if ! command -v go >/dev/null || ! go tool pprof -h >/dev/null 2>&1; then
	echo "skip: no go tool pprof (Debian's golang-go)"
	exit 2
fi

lib="$(cd "$(dirname "$0")/lib" && pwd)"
kmem_scratch pprof
a="$dir/a.data"
b="$dir/b.data"

# -k: a clock reference, which makes the profiles' times wall-clock.
before=$(date +%s)
kmem_record_or_skip "$a" --page -k CLOCK_MONOTONIC -- sh -c \
	'ls -R /usr/lib >/dev/null; cat /usr/bin/* >/dev/null 2>&1
	 seq 200000 | sort -r >/dev/null'
after=$(date +%s)
kmem_record_or_skip "$b" --page -- sh -c \
	'dd if=/dev/zero bs=1M count=32 2>/dev/null | cat >/dev/null
	 ls -R /usr/share >/dev/null 2>&1'

pprof() {
	go tool pprof "$@" 2>"$dir/pprof.err" ||
		fail "go tool pprof $*: $(tail -n 1 "$dir/pprof.err")"
}

for t in a b; do
	perf kmem stat --page --pprof "$dir/$t.pb.gz" -i "$dir/$t.data" 2>"$dir/err" ||
		fail "perf kmem stat --page --pprof -i $t.data: $(tail -n 1 "$dir/err")"
	perf kmem stat --page --json -i "$dir/$t.data" >"$dir/$t.json" 2>/dev/null ||
		fail "perf kmem stat --page --json -i $t.data"
	perf kmem stat --page --caller -l 1000000 --json -i "$dir/$t.data" \
		>"$dir/$t.caller.json" 2>/dev/null || fail "--caller --json -i $t.data"
	pprof -raw "$dir/$t.pb.gz" >"$dir/$t.raw"
	pprof -top -unit=bytes -nodefraction=0 -nodecount=1000000 \
		-sample_index=alloc_space "$dir/$t.pb.gz" >"$dir/$t.top"
	python3 "$lib/kmem_pprof_decode.py" "$dir/$t.pb.gz" >"$dir/$t.decoded" ||
		fail "the test's reader refuses $t.pb.gz"
done
perf kmem diff --page --caller -l 1000000 --json "$b" "$a" >"$dir/diff.json" 2>/dev/null ||
	fail "perf kmem diff --page --caller --json"
pprof -top -unit=bytes -nodefraction=0 -nodecount=1000000 -sample_index=alloc_space \
	-diff_base="$dir/b.pb.gz" "$dir/a.pb.gz" >"$dir/diff.top"
perf buildid-list -i "$a" 2>/dev/null | awk '/kernel.kallsyms/ { print $1 }' >"$dir/build_id"

# -I: a profile per interval, against the intervals of --json.
perf kmem stat --page -I 300 --pprof "$dir/iv.pb" -i "$a" 2>"$dir/err" ||
	fail "-I 300 --pprof: $(tail -n 1 "$dir/err")"
perf kmem stat --page -I 300 --json -i "$a" >"$dir/iv.json" 2>/dev/null ||
	fail "-I 300 --json"
for f in "$dir"/iv.pb.*; do
	python3 "$lib/kmem_pprof_decode.py" "$f" >"$f.decoded" ||
		fail "the test's reader refuses $(basename "$f")"
done

# The same recording from a pipe, and by task.
python3 "$lib/kmem_pipe_format.py" "$a" >"$dir/a.pipe" || fail "kmem_pipe_format.py"
perf kmem stat --page --pprof "$dir/pipe.pb.gz" < <(cat "$dir/a.pipe") 2>"$dir/err" ||
	fail "--pprof from a pipe: $(tail -n 1 "$dir/err")"
python3 "$lib/kmem_pprof_decode.py" "$dir/pipe.pb.gz" >"$dir/pipe.decoded" ||
	fail "the test's reader refuses pipe.pb.gz"
perf kmem stat --page -s comm --pprof "$dir/comm.pb.gz" -i "$a" 2>/dev/null ||
	fail "-s comm --pprof"
perf kmem stat --page -s comm --caller -l 1000000 --json -i "$a" >"$dir/comm.json" \
	2>/dev/null || fail "-s comm --json"
python3 "$lib/kmem_pprof_decode.py" "$dir/comm.pb.gz" >"$dir/comm.decoded" ||
	fail "the test's reader refuses comm.pb.gz"
# Chosen tasks: --comm of two commands of the workload, then --pid of the
# process of theirs that allocated the most bytes.
# filtered NAME OPTIONS...: the profile, and --json -s pid --caller, of OPTIONS.
filtered() {
	local name=$1

	shift
	perf kmem stat --page "$@" --pprof "$dir/$name.pb.gz" -i "$a" 2>"$dir/err" ||
		fail "$* --pprof: $(tail -n 1 "$dir/err")"
	perf kmem stat --page "$@" -s pid --caller -l 1000000 --json -i "$a" \
		>"$dir/$name.json" 2>"$dir/err" || fail "$* --json: $(tail -n 1 "$dir/err")"
	python3 "$lib/kmem_pprof_decode.py" "$dir/$name.pb.gz" >"$dir/$name.decoded" ||
		fail "the test's reader refuses $name.pb.gz"
}
filtered by-comm --comm ls,sort
pid=$(python3 -c 'import collections, json, sys
c = collections.Counter()
for row in json.load(open(sys.argv[1]))["page"]["callers"]["rows"]:
    c[row["pid"]] += row["bytes"]
print(c.most_common(1)[0][0] if c else 0)' "$dir/by-comm.json")
filtered by-pid --pid "$pid"

python3 - "$dir" "$before" "$after" <<'PYEOF' || err=1
import json
import re
import sys
from collections import Counter

d, before, after = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
ok = True


def bad(msg):
    global ok
    ok = False
    print('FAIL: ' + msg)


def load(name):
    return json.load(open('%s/%s' % (d, name)))


def raw_sums(path):
    """go tool pprof -raw: the values of each sample, summed per type."""
    types, sums, in_samples = [], None, False
    for line in open(path):
        if line.startswith('Samples:'):
            in_samples = True
            continue
        if in_samples and not types:
            types = [t.replace('[dflt]', '') for t in line.split()]
            sums = [0] * len(types)
            continue
        if line.startswith('Locations'):
            break
        m = re.match(r'^\s+(-?\d+(?:\s+-?\d+)*):', line)
        if in_samples and m:
            sums = [a + int(b) for a, b in zip(sums, m.group(1).split())]
    return dict(zip(types, sums or []))


def flat(path):
    """go tool pprof -top -unit=bytes: flat bytes by function."""
    out = {}
    for line in open(path):
        m = re.match(r'^\s*(-?\d+)B\s+\S+%\s+\S+%\s+-?\d+B\s+\S+%\s+(\S+)$', line)
        if m and int(m.group(1)):
            out[m.group(2)] = int(m.group(1))
    return out


def want_sums(j):
    s = j['page']['summary']
    live = s['allocated_only']['still_live']
    want = {'alloc_objects/count': s['total_allocations']['count'],
            'alloc_space/bytes': s['total_allocations']['bytes'],
            'inuse_objects/count': live['count'],
            'inuse_space/bytes': live['bytes']}
    frag = j['page'].get('fragmentation', {})
    if 'fallbacks' in frag:
        want['fallbacks/count'] = frag['fallbacks']['count']
    stalls = j['page'].get('stalls', {})
    if 'all' in stalls:
        want['stall/nanoseconds'] = stalls['all']['total_ns']
    return want


for t in ('a', 'b'):
    j = load(t + '.json')
    want = want_sums(j)
    for name, got in (('go tool pprof -raw', raw_sums('%s/%s.raw' % (d, t))),
                      ('the test\'s reader', load(t + '.decoded')['sums'])):
        print('%s %-18s %s' % (t, name, ' '.join('%s=%d' % kv for kv in sorted(got.items()))))
        if got != want:
            bad('%s: %s sums %s, the summary %s' % (t, name, got, want))
    if want['alloc_objects/count'] < 1000:
        bad('%s: only %d allocations recorded' % (t, want['alloc_objects/count']))
    by_callsite = Counter()
    for row in load(t + '.caller.json')['page']['callers']['rows']:
        by_callsite[row['callsite']['name']] += row['bytes']
    top = flat('%s/%s.top' % (d, t))
    if top != dict(by_callsite):
        diff = set(top.items()) ^ set(by_callsite.items())
        bad('%s: flat alloc_space by function differs from --caller in %d, e.g. %s'
            % (t, len(diff), sorted(diff)[:3]))
    else:
        print('%s: flat alloc_space of %d functions = --caller by callsite'
              % (t, len(top)))

# -diff_base against perf kmem diff.
delta = Counter()
for row in load('diff.json')['tables']['page.callers']['rows']:
    delta[row['callsite']] += row['bytes']['delta']
delta = dict((k, v) for k, v in delta.items() if v)
top = flat(d + '/diff.top')
if top != delta:
    diff = set(top.items()) ^ set(delta.items())
    bad('-diff_base differs from perf kmem diff in %d, e.g. %s' % (len(diff), sorted(diff)[:3]))
else:
    print('-diff_base: %d functions with the deltas of perf kmem diff' % len(top))

# The file's structure, by the test's own reader.
p = load('a.decoded')
page_size = load('a.json')['page']['page_size']
build_id = open(d + '/build_id').read().split()
want = ['alloc_objects/count', 'alloc_space/bytes', 'inuse_objects/count',
        'inuse_space/bytes']
for extra in ('fallbacks/count', 'stall/nanoseconds'):
    if extra in p['sums']:
        want.append(extra)
if p['types'] != want:
    bad('sample types %s' % p['types'])
if p['default_sample_type'] != 'alloc_space' or p['period_type'] != ['space', 'bytes']:
    bad('default type %s, period type %s' % (p['default_sample_type'], p['period_type']))
if len(p['mappings']) != 1 or p['mappings'][0]['file'] != '[kernel.kallsyms]' or \
        not p['mappings'][0]['has_functions'] or [p['mappings'][0]['build_id']] != build_id:
    bad('mapping %s, perf buildid-list %s' % (p['mappings'], build_id))
if not any('exact' in c for c in p['comments']) or not any('a.data' in c for c in p['comments']):
    bad('comments %s' % p['comments'])
gfp_names = set('|'.join(r['gfp']['names'])
                for r in load('a.caller.json')['page']['callers']['rows'])
keys = Counter()
for s in p['samples']:
    labels = s['labels']
    keys.update(labels.keys())
    if labels.get('bytes', [0])[1] != 'bytes' or 'order' not in labels or \
            labels['bytes'][0] != page_size << int(labels['order']):
        bad('bytes and order labels %s' % labels)
        break
    if 'gfp' in labels and labels['gfp'] not in gfp_names:
        bad('gfp label %s is not one the recording kernel named' % labels['gfp'])
        break
    if 'gfp' not in labels and s['values'][:4] != [0, 0, 0, 0]:
        bad('an allocation without gfp label: %s' % s)
        break
print('labels %s, %d samples, %d locations, %d functions' %
      (dict(keys), len(p['samples']), p['nr_locations'], p['nr_functions']))
if not before * 10**9 <= p['time_nanos'] <= (after + 1) * 10**9:
    bad('time_nanos %d is not in the recording, %d to %d s' % (p['time_nanos'], before, after))
if p['duration_nanos'] <= 0 or p['duration_nanos'] > (after - before + 1) * 10**9:
    bad('duration_nanos %d' % p['duration_nanos'])

# -I: each profile its interval's row.
rows = load('iv.json')['page']['intervals']['rows']
nr = len(rows)
for i, row in enumerate(rows):
    try:
        q = load('iv.pb.%d.decoded' % i)
    except OSError:
        bad('no profile for interval %d of %d' % (i, nr))
        break
    want = {'alloc_objects/count': row['allocations']['count'],
            'alloc_space/bytes': row['allocations']['bytes'],
            'inuse_space/bytes': row['live_bytes']}
    got = dict((k, q['sums'][k]) for k in want)
    if got != want:
        bad('interval %d: %s, its row %s' % (i, got, want))
    if 'fallbacks' in row and q['sums'].get('fallbacks/count', 0) != row['fallbacks']['count']:
        bad('interval %d: fallbacks' % i)
    if q['duration_nanos'] != 300 * 10**6 or q['time_nanos'] != p['time_nanos'] + i * 300 * 10**6:
        bad('interval %d: time %d, duration %d' % (i, q['time_nanos'], q['duration_nanos']))
try:
    load('iv.pb.%d.decoded' % nr)
    bad('a profile past the %d intervals' % nr)
except OSError:
    pass
print('-I 300: %d profiles, each its interval\'s row' % nr)

# The pipe, and the task labels.
q = load('pipe.decoded')
if q['samples'] != p['samples'] or q['sums'] != p['sums']:
    bad('the pipe gives another profile than the file')
q = load('comm.decoded')
by_comm = Counter()
for s in q['samples']:
    by_comm[s['labels'].get('comm')] += s['values'][1]
want = Counter()
for row in load('comm.json')['page']['callers']['rows']:
    want[row['comm']] += row['bytes']
if by_comm != want or len(by_comm) < 2:
    bad('alloc_space by comm label %s, -s comm --caller %s' % (dict(by_comm), dict(want)))
else:
    print('-s comm: %d commands, as -s comm --caller' % len(by_comm))

# --comm and --pid: the chosen tasks' profile sums to their --json
# summary, its samples labelled by pid as their --caller rows are.
whole = load('a.decoded')['sums']['alloc_objects/count']
for name, what in (('by-comm', '--comm ls,sort'), ('by-pid', '--pid')):
    q, j = load(name + '.decoded'), load(name + '.json')
    want = want_sums(j)
    if q['sums'] != want:
        bad('%s: the profile sums %s, its --json %s' % (what, q['sums'], want))
    if not 0 < want['alloc_objects/count'] < whole:
        bad('%s: %d allocations of %d: the filter chose nothing, or all' %
            (what, want['alloc_objects/count'], whole))
    by_pid, want_pid = Counter(), Counter()
    for s in q['samples']:
        by_pid[s['labels'].get('pid')] += s['values'][1]
    for row in j['page']['callers']['rows']:
        want_pid[str(row['pid'])] += row['bytes']
    if +by_pid != +want_pid or (name == 'by-pid' and len(+by_pid) != 1):
        bad('%s: alloc_space by pid label %s, -s pid --caller %s' %
            (what, dict(by_pid), dict(want_pid)))
    else:
        print('%s: %d allocations, %d bytes of %d processes, as its --json'
              % (what, want['alloc_objects/count'], want['alloc_space/bytes'], len(+by_pid)))
sys.exit(0 if ok else 1)
PYEOF

# Bad input: one line, exit 1, no file left.
perf record -e kmem:mm_page_alloc -a -o "$dir/nocg.data" -- sleep 0.2 >/dev/null 2>&1 ||
	fail "perf record without callchains"
mkdir "$dir/out"
check_refused() {
	local what=$1 lines rc

	shift
	perf kmem stat "$@" >"$dir/out.txt" 2>"$dir/err"
	rc=$?
	lines=$(wc -l <"$dir/err")
	if [ $rc -eq 0 ] || [ "$lines" -ne 1 ]; then
		fail "$what: exit $rc, $lines lines: $(head -n 3 "$dir/err")"
	fi
	if [ -n "$(ls -A "$dir/out")" ]; then
		fail "$what: left $(ls "$dir/out")"
		rm -f "$dir/out/"*
	fi
	echo "refused: $what: $(cat "$dir/err")"
}
check_refused "no callchains" --page --pprof "$dir/out/x.pb" -i "$dir/nocg.data"
check_refused "unwritable" --page --pprof /nonexistent/x.pb -i "$a"
check_refused "with --json" --page --json --pprof "$dir/out/x.pb" -i "$a"
check_refused "with --folded" --page --folded --pprof "$dir/out/x.pb" -i "$a"
check_refused "without --page" --slab --pprof "$dir/out/x.pb" -i "$a"
check_refused "a corrupt trace" --page --pprof "$dir/out/x.pb" -i /dev/zero

# pprof's web UI: the flame graph drawn in a headless browser.
if ! command -v chromium >/dev/null; then
	echo "no chromium: the flame graph is not drawn"
else
	port=$((20000 + RANDOM % 20000))
	go tool pprof -http="127.0.0.1:$port" -no_browser "$dir/a.pb.gz" >"$dir/http.log" 2>&1 &
	http=$!
	for _ in $(seq 50); do
		grep -q "Serving web UI" "$dir/http.log" && break
		sleep 0.2
	done
	url="http://127.0.0.1:$port/ui/flamegraph"
	chrome_opts=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run
		--disable-background-networking --disable-component-update --disable-sync
		--virtual-time-budget=10000 --enable-logging=stderr --v=0)
	timeout 120 chromium "${chrome_opts[@]}" --user-data-dir="$dir/chrome1" \
		--window-size=1400,900 --screenshot="$dir/flamegraph.png" "$url" \
		>"$dir/chrome.log" 2>&1 || fail "chromium --screenshot of $url"
	# The frames are drawn by the page's script: on a busy machine a
	# dump can come before them, so a few tries.
	top=$(awk '/flat%/ { getline; print $NF; exit }' "$dir/a.top")
	for try in 1 2 3; do
		timeout 120 chromium "${chrome_opts[@]}" --user-data-dir="$dir/chrome2.$try" \
			--dump-dom "$url" >"$dir/flamegraph.html" 2>>"$dir/chrome.log"
		grep -q "name=\"$top\" class=\"frame\"" "$dir/flamegraph.html" && break
	done
	kill "$http" 2>/dev/null
	wait "$http" 2>/dev/null
	if ! grep -q 'class="partition d3-flame-graph"' "$dir/flamegraph.html" ||
		! grep -q "name=\"$top\" class=\"frame\"" "$dir/flamegraph.html"; then
		fail "the flame graph of $url has no frame of $top (after $try tries)"
	fi
	if grep -E 'CONSOLE.*(Uncaught|Error|error)' "$dir/chrome.log"; then
		fail "JavaScript errors in pprof's flame graph"
	fi
	if [ "$(stat -c %s "$dir/flamegraph.png" 2>/dev/null || echo 0)" -lt 20000 ]; then
		fail "no screenshot of the flame graph"
	else
		echo "flame graph drawn, $top in it: $dir/flamegraph.png"
		[ -n "${KMEM_PPROF_SHOT:-}" ] && cp "$dir/flamegraph.png" "$KMEM_PPROF_SHOT"
	fi
fi

kmem_result "kmem pprof test"
