#!/bin/bash
# perf kmem stat -b against perf record of the same cgroup, and its one-line failures (exclusive)
# SPDX-License-Identifier: GPL-2.0
#
# One run of an allocation-heavy workload (3 x 300 MiB through a pipe, 60
# fork/exec, 200 MiB through the page cache) in a cgroup of its own is
# counted at once by perf record -a -G of the page tracepoints and by five
# perf kmem stat -b --cgroup: at the default rate, with --exact-live, with
# --sample-bytes 1, with a live-page map of 4 entries (-M 4 --exact-live)
# and with the extfrag program left out (perf config kmem.bpf-leave-out).
# Against perf kmem stat --json of the recording:
# - every exact figure of each is equal: the totals, the grid, the
#   fragmentation classes, matrix and pageblocks, the failures, cross-node
#   (without extfrag, all but the fragmentation); not the stalls, which
#   the recording has no events of (kmem_bpf_stall.sh checks those);
# - the lifetime groups of --exact-live and --sample-bytes 1, and the
#   --caller rows of --sample-bytes 1, are equal too;
# - at the default rate, each --caller row with 5% of the bytes or more
#   is within 4 standard deviations of the estimator, sqrt(n (1 - p) / p)
#   for n allocations sampled with p = 1 - exp(-size / 512 KiB) each (a
#   correct estimator fails it about once in 15,000 rows), and so are
#   the allocated+freed pages, with the p of a 4 KiB page, the smallest;
# - -M 4 says how many allocations it could not track (source.untracked
#   of a map of 4 entries), and the extfrag-less run that fallbacks are
#   not counted (source.fallbacks_counted, fragmentation not_recorded).
# A count may differ by what was lost: up to the events perf record says
# it lost (more), up to the runs the kernel did not make of the BPF
# programs (fewer: an interrupt that allocates while one runs on its CPU,
# which five at once make likelier); bytes by 32 KiB an event; a
# lifetime group either way, as a missed free moves its page from one
# group to another; the test says when either happened.
# Each -b document validates against the schema (python3-jsonschema).
# Then -a -I 200 --json: the intervals add up to the totals; -I 200
# --pprof: a profile per interval line, adding up to the lines; -- CMD counts
# CMD; --slab -M 4 says the slab events it had no row for; the
# /proc/vmstat deltas of the five runs and of one that faults in
# huge pages (MADV_HUGEPAGE) lie within the test's own reads of
# /proc/vmstat before they started and after they ended (0 <= delta <=
# after - before), the huge page faults are among them, and each zone's
# unusable free space index is what its own free blocks give, over the
# zones of /proc/pagetypeinfo; and one line and exit 1 as nobody, without
# BTF, without the mm_page_free tracepoint, and from a perf built without skeletons
# ($KMEM_NOSKEL_PERF: its line, then perf's usage, as perf lock
# contention -b).  Skips (exit 2) where BPF cannot be loaded.

set -u

# shellcheck source-path=SCRIPTDIR source=lib/kmem_common.sh
. "$(dirname "$0")/lib/kmem_common.sh"
kmem_need_tracepoints

kmem_scratch bpf
if ! perf kmem stat --page -b -a -o "$dir/probe.txt" -- true 2>"$dir/probe.err"; then
	echo "skip: perf kmem stat -b cannot count here: $(head -n 1 "$dir/probe.err")"
	exit 2
fi
cgroot=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
if [ -z "$cgroot" ] || ! mkdir "$cgroot/kmem-bpf-$$" 2>/dev/null; then
	echo "skip: no cgroup v2 to count the same tasks in"
	exit 2
fi
cg=kmem-bpf-$$
# shellcheck disable=SC2064 # $dir and $cg are known now, and must be then
trap "rmdir '$cgroot/$cg' 2>/dev/null; rm -rf '$dir'" EXIT

workload() {
	local _

	for _ in 1 2 3; do
		dd if=/dev/zero bs=64k count=4800 2>/dev/null | cat >/dev/null
	done
	for _ in $(seq 60); do
		/bin/true
	done
	dd if=/dev/zero of="$dir/file" bs=1M count=200 2>/dev/null
	cat "$dir/file" >/dev/null
	rm -f "$dir/file"
}

printf '[kmem]\n\tbpf-leave-out = mm_page_alloc_extfrag\n' >"$dir/noextfrag.config"

# The workload waits in the cgroup until everybody counts.
mkfifo "$dir/go"
(
	echo "$BASHPID" >"$cgroot/$cg/cgroup.procs"
	read -r _ <"$dir/go"
	workload
) &
wl=$!

perf record -q -a -m 16384 --kernel-callchains \
	-e kmem:mm_page_alloc/call-graph=fp/ -e kmem:mm_page_free \
	-e kmem:mm_page_alloc_extfrag/call-graph=fp/ -G "$cg,$cg,$cg" \
	-o "$dir/rec.data" 2>"$dir/rec.err" &
recorder=$!
pids=
stat_b() {
	local name=$1

	shift
	perf kmem stat --page -b --cgroup "$cg" --caller -l 1000000 -v "$@" \
		>"$dir/$name.out" 2>"$dir/$name.err" &
	pids="$pids $!"
}
cp /proc/vmstat "$dir/vmstat.before"
stat_b default --json
stat_b exact --json --exact-live
stat_b every --json --sample-bytes 1
stat_b full --json --exact-live -M 4
PERF_CONFIG=$dir/noextfrag.config stat_b noextfrag --json

for name in default exact every full noextfrag; do
	for _ in $(seq 300); do
		grep -q 'counting in the kernel' "$dir/$name.err" && break
		sleep 0.1
	done
	grep -q 'counting in the kernel' "$dir/$name.err" ||
		fail "stat -b $name did not start: $(grep 'perf kmem' "$dir/$name.err" | tail -n 1)"
done
sleep 1	# perf record prints nothing when it is ready
echo go >"$dir/go"
wait "$wl"
sleep 0.5
# shellcheck disable=SC2086 # a list of pids
kill -INT $recorder $pids
for p in $pids; do
	wait "$p" ||
		fail "a stat -b exited with $?: $(grep -h 'perf kmem:' "$dir"/*.err |
			grep -v counting | head -n 1)"
done
wait "$recorder"	# 130 after SIGINT
cp /proc/vmstat "$dir/vmstat.after"

perf kmem stat --page --caller -l 1000000 --json -i "$dir/rec.data" \
	>"$dir/rec.out" 2>"$dir/rec.stat.err" ||
	fail "stat of the recording: $(tail -n 1 "$dir/rec.stat.err")"

# Each -b document is one the schema takes, its "source" included.
if python3 -c 'import jsonschema' 2>/dev/null; then
	for name in default exact every full noextfrag; do
		python3 "$(dirname "$0")/lib/kmem_json_schema.py" \
			"$(dirname "$0")/../../Documentation/perf-kmem.schema.json" \
			"$dir/$name.out" >"$dir/$name.schema" 2>&1 ||
			fail "the schema refuses stat -b $name: $(head -n 3 "$dir/$name.schema")"
	done
fi

python3 - "$dir" <<'PYEOF' || err=1
import json
import math
import sys

d = sys.argv[1]
N = 512 * 1024
ok = True


def fail(msg):
    global ok
    print('FAIL:', msg)
    ok = False


rec = json.load(open(f'{d}/rec.out'))
lost = rec['perf_data']['events_lost']
if lost:
    print(f'note: perf record lost {lost} events: counts may be as many more')

# The pages fallen back that stay: -b pairs no fallback with its page.
TABLES = ('callers', 'fragmentation.callers', 'fragmentation.failures',
          'fragmentation.pinned')
LIFE = ('summary.allocated_freed', 'summary.allocated_only',
        'summary.freed_only', 'summary.frees_of_another_order')


def flat(x, path=''):
    if isinstance(x, dict):
        for k, v in x.items():
            yield from flat(v, f'{path}.{k}' if path else k)
    elif isinstance(x, list):
        for i, v in enumerate(x):
            yield from flat(v, f'{path}[{i}]')
    else:
        yield path, x


def figures(page, life, frag):
    out = {}
    for k, v in flat(page):
        if any(k == t or k.startswith(t + '.') for t in TABLES):
            continue
        if not life and any(k.startswith(p) for p in LIFE):
            continue
        if not frag and k.startswith('fragmentation'):
            continue
        # The recording has no stall events: kmem_bpf_stall.sh checks
        # -b's stalls against one that has.
        if k.startswith('stalls'):
            continue
        out[k] = v
    return out


# A lost or missed event is a page or a few: 32 KiB at most (order 3).
EVENT_BYTES = 32768
LIFETIME_GROUPS = ('allocated_freed', 'allocated_only', 'still_live',
                   'allocated_again', 'freed_only', 'freed_on_other_node')


def close(got, want, missed, key=''):
    if isinstance(got, bool) or not isinstance(got, int) or \
       not isinstance(want, int):
        return got == want
    per = EVENT_BYTES if key.endswith('bytes') else 1
    # A missed free leaves its page allocated, and its next allocation
    # allocated again: either way between the lifetime groups.
    if any(g in key for g in LIFETIME_GROUPS):
        return abs(got - want) <= (missed + lost) * per
    return -missed * per <= got - want <= lost * per


def compare(name, life, frag=True):
    doc = json.load(open(f'{d}/{name}.out'))
    missed = doc['source']['events_missed']
    if missed:
        print(f'note: {name}: {missed} runs of the programs skipped')
    f = doc['page']['fragmentation']
    if 'classes' in f and f.get('pinned', 0) is not None:
        fail(f'{name}: fragmentation.pinned is {f.get("pinned", "absent")}, '
             'not null (not measured with -b)')
    got = figures(doc['page'], life, frag)
    want = figures(rec['page'], life, frag)
    for k in sorted(set(got) | set(want)):
        if not close(got.get(k), want.get(k), missed, k):
            fail(f'{name}: {k} is {got.get(k)}, the recording {want.get(k)}')
    return doc, missed


def rows(page):
    return {(r['callsite']['name'], r['order'], r['migration_type']['value'],
             r['gfp']['value']): r for r in page['callers']['rows']}


compare('exact', True)
every, missed = compare('every', True)
brows, rrows = rows(every['page']), rows(rec['page'])
if set(brows) != set(rrows):
    fail(f'every: rows {sorted(set(brows) ^ set(rrows))[:4]} on one side only')
for key in set(brows) & set(rrows):
    for col in ('hits', 'bytes', 'freed'):
        if not close(brows[key][col], rrows[key][col], missed, col):
            fail(f'every: {key} {col} {brows[key][col]}, recorded {rrows[key][col]}')

default, missed = compare('default', False)
brows = rows(default['page'])
total = sum(r['bytes'] for r in rrows.values())
checked = 0
for key, r in rrows.items():
    if r['bytes'] < total / 20:
        continue
    n, size = r['hits'], r['bytes'] // r['hits']
    p = -math.expm1(-size / N)
    bound = 4 * math.sqrt(n * (1 - p) / p) + lost + 1
    est = brows.get(key, {'hits': 0})['hits']
    checked += 1
    print(f'default: {key[0]} order {key[1]}: {est} estimated of {n}, bound {bound:.0f}')
    if abs(est - n) > bound:
        fail(f'default: {key} estimated {est} of {n}: more than {bound:.0f} off')
if not checked:
    fail('default: no row of 5% of the bytes to check')
n = rec['page']['summary']['allocated_freed']['count']
est = default['page']['summary']['allocated_freed']['count']
p = -math.expm1(-4096 / N)
bound = 4 * math.sqrt(n * (1 - p) / p) + lost + 1
print(f'default: allocated+freed {est} estimated of {n}, bound {bound:.0f}')
if abs(est - n) > bound:
    fail(f'default: allocated+freed estimated {est} of {n}')

full, _ = compare('full', False)
if full['source']['live_map_entries'] != 4:
    fail(f'-M 4: a live-page map of {full["source"]["live_map_entries"]} entries')
if not full['source']['untracked']:
    fail('-M 4: no allocation untracked')
noext, _ = compare('noextfrag', False, frag=False)
if noext['source']['fallbacks_counted'] or \
   noext['page']['fragmentation']['status'] != 'not_recorded':
    fail('extfrag left out: the report does not say so')
sys.exit(0 if ok else 1)
PYEOF

# -a -I: every interval, its line; in the JSON the rows add up.
perf kmem stat --page -b -a -I 200 --json -o "$dir/iv.json" -- sleep 1 \
	2>"$dir/iv.err" || fail "-a -I 200: $(tail -n 1 "$dir/iv.err")"
perf kmem stat --page -b -a -I 200 -- sleep 1 >"$dir/iv.txt" 2>&1 ||
	fail "-a -I 200 text: $(tail -n 1 "$dir/iv.txt")"
lines=$(grep -cE '^ +[0-9]+\.[0-9]{6} ' "$dir/iv.txt")
[ "$lines" -ge 4 ] || fail "-a -I 200 printed $lines interval lines over 1 s"
python3 - "$dir/iv.json" <<'PYEOF' || err=1
import json
import sys

doc = json.load(open(sys.argv[1]))
page = doc['page']
rows = page['intervals']['rows']
# The counting ends in its last interval: its time was once that of the
# detach of the programs too, a second after the last interval.
dur = doc['source']['duration_ns']
if not rows or not rows[-1]['start_ns'] <= dur <= rows[-1]['start_ns'] + 200000000:
    print(f'FAIL: -I 200: counted for {dur} ns, the last interval starts at '
          f'{rows[-1]["start_ns"] if rows else None}')
    sys.exit(1)
for key, want in (('allocations', page['summary']['total_allocations']),
                  ('frees', page['summary']['total_frees'])):
    got = {k: sum(r[key][k] for r in rows) for k in ('count', 'bytes')}
    if got != want or len(rows) < 4:
        print(f'FAIL: -I 200: {len(rows)} intervals of {key} {got}, totals {want}')
        sys.exit(1)
PYEOF

# -I -o FILE: the lines are the INTERVALS section of FILE, as a
# recording's, none on the terminal, and they add up to its total.
perf kmem stat --page -b -a -I 200 -o "$dir/iv.o.txt" -- sleep 1 \
	>"$dir/iv.o.out" 2>"$dir/iv.o.err" ||
	fail "-a -I 200 -o: $(tail -n 1 "$dir/iv.o.err")"
[ -s "$dir/iv.o.out" ] && fail "-a -I 200 -o: $(wc -l <"$dir/iv.o.out") lines on stdout"
awk '/^ INTERVALS/ { iv = 1 }
	iv && /^ +[0-9]+\.[0-9]+ / { n++; v = $2; gsub(/[,.]/, "", v); sum += v }
	/^ Total allocations:/ { t = $3; gsub(/,/, "", t) }
	END { if (n < 4 || sum != t) { print n " rows of " sum ", total " t; exit 1 } }' \
	"$dir/iv.o.txt" >"$dir/iv.o.sum" ||
	fail "-a -I 200 -o: INTERVALS $(cat "$dir/iv.o.sum")"

# -- CMD: the command and what it forks, 64 MiB written through the cache.
perf kmem stat --page -b --json -o "$dir/cmd.json" -- \
	sh -c "dd if=/dev/zero of=$dir/cmd.file bs=1M count=64 2>/dev/null" \
	2>"$dir/cmd.err" || fail "-- CMD: $(tail -n 1 "$dir/cmd.err")"
python3 - "$dir/cmd.json" <<'PYEOF' || err=1
import json
import sys

doc = json.load(open(sys.argv[1]))
got = doc['page']['summary']['total_allocations']['bytes']
if got < 64 << 20 or 'the tasks followed' not in doc['source']['tasks']:
    print(f'FAIL: -- CMD: {got} bytes allocated for 64 MiB written; {doc["source"]["tasks"]}')
    sys.exit(1)
PYEOF

# --slab -M 4: the slab rows of a map of 4 entries per CPU; the events
# that found it full are counted and said, never silently dropped.
perf kmem stat --slab -b -M 4 --json -o "$dir/slabfull.json" -- \
	sh -c 'ls -R /usr/share >/dev/null' 2>"$dir/slabfull.err" ||
	fail "--slab -M 4: $(tail -n 1 "$dir/slabfull.err")"
python3 - "$dir/slabfull.json" <<'PYEOF' || err=1
import json
import sys

doc = json.load(open(sys.argv[1]))
lost = doc['source'].get('slab_map_full', 0)
rows = doc['slab']['callers']['nr_rows']
if not lost or rows > 4:
    print(f'FAIL: --slab -M 4: {lost} events said lost, {rows} callsite rows')
    sys.exit(1)
PYEOF
perf kmem stat --slab -b -M 4 -- sh -c 'ls -R /usr/share >/dev/null' 2>&1 |
	grep -q 'Slab events lost (map full, -M): *[1-9]' ||
	fail "--slab -M 4: the text does not say the events lost"

# The state of memory around a run: 6 MiB faulted in with MADV_HUGEPAGE.
cp /proc/vmstat "$dir/thp.before"
perf kmem stat --page -b --json -o "$dir/thp.json" -- python3 -c '
import mmap
m = mmap.mmap(-1, 6 << 20, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
m.madvise(mmap.MADV_HUGEPAGE)
for off in range(0, 6 << 20, 4096):
    m[off] = 1
' 2>"$dir/thp.err" || fail "-- python3 (huge pages): $(tail -n 1 "$dir/thp.err")"
cp /proc/vmstat "$dir/thp.after"
thp=$(sed -n 's/.*\[\(.*\)\].*/\1/p' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)
python3 - "$dir" "${thp:-never}" <<'PYEOF' || err=1
import json
import sys

d, thp = sys.argv[1], sys.argv[2]
ok = True


def vmstat(path):
    """The counters as perf kmem sums them, read independently."""
    v = {}
    for line in open(path):
        name, num = line.split()
        for key in ('allocstall', 'pgscan_direct', 'pgsteal_direct'):
            if (name == key or name.startswith(key + '_')) and \
               name != 'pgscan_direct_throttle':
                v[key] = v.get(key, 0) + int(num)
        if name in ('compact_stall', 'compact_fail', 'compact_success',
                    'thp_fault_alloc', 'thp_fault_fallback'):
            v[name] = int(num)
    return v


def check(name, doc, before, after):
    global ok
    mem = doc.get('memory')
    if mem is None:
        print(f'FAIL: {name}: no memory member')
        ok = False
        return None
    got = mem['vmstat']
    for key, hi in ((k, after[k] - before[k]) for k in before):
        if not 0 <= got[key] <= hi:
            print(f'FAIL: {name}: {key} {got[key]} not within 0..{hi} of the test\'s reads')
            ok = False
    pt = mem['pagetypeinfo']
    if 'zones' not in pt:
        print(f'FAIL: {name}: pagetypeinfo not read: {pt}')
        ok = False
        return got
    for z in pt['zones']:
        for end in ('start', 'end'):
            f = z[end]
            if f is None:
                continue
            by_order = [sum(b[o] for b in f['blocks'].values())
                        for o in range(pt['nr_orders'])]
            free = sum(n << o for o, n in enumerate(by_order))
            want = [(free - sum(n << o for o, n in enumerate(by_order) if o >= j))
                    * 1000 // free if free else 0 for j in range(pt['nr_orders'])]
            if free != f['free_pages'] or want != f['unusable_index_permille']:
                print(f'FAIL: {name}: node {z["node"]} {z["zone"]} {end}: free '
                      f'{f["free_pages"]}, index {f["unusable_index_permille"]}; '
                      f'its blocks give {free}, {want}')
                ok = False
    zones = set()
    for line in open('/proc/pagetypeinfo'):
        if line.startswith('Node') and ', type' in line:
            node, zone = line.split(',')[:2]
            zones.add((int(node.split()[1]), zone.split()[1]))
    if {(z['node'], z['zone']) for z in pt['zones']} != zones:
        print(f'FAIL: {name}: zones {[(z["node"], z["zone"]) for z in pt["zones"]]}, '
              f'/proc/pagetypeinfo has {sorted(zones)}')
        ok = False
    return got


before, after = vmstat(f'{d}/vmstat.before'), vmstat(f'{d}/vmstat.after')
for name in ('default', 'exact', 'every', 'full', 'noextfrag'):
    check(name, json.load(open(f'{d}/{name}.out')), before, after)
got = check('huge pages', json.load(open(f'{d}/thp.json')),
            vmstat(f'{d}/thp.before'), vmstat(f'{d}/thp.after'))
# 6 MiB hold two aligned 2 MiB ranges at least: each a huge page fault.
if got and thp != 'never' and got['thp_fault_alloc'] + got['thp_fault_fallback'] < 2:
    print(f'FAIL: huge pages: {got["thp_fault_alloc"]} + {got["thp_fault_fallback"]} '
          'huge page faults, want 2 at least')
    ok = False
sys.exit(0 if ok else 1)
PYEOF
grep -q 'MEMORY AROUND THE RUN' "$dir/iv.txt" || fail "-a -I 200 text: no MEMORY AROUND THE RUN"

# own_run NAME [OPTION...]: perf kmem stat -b -I 10 alone in the cgroup
# it counts, for 2 s, its intervals written to NAME.txt as they come;
# prints the allocations it counted.
own_run() {
	local name=$1 p

	shift
	(
		echo "$BASHPID" >"$cgroot/$cg/cgroup.procs"
		exec perf kmem stat --page -b --cgroup "$cg" -I 10 -v "$@" \
			-o "$dir/$name.txt"
	) 2>"$dir/$name.err" &
	p=$!
	for _ in $(seq 300); do
		grep -q 'counting in the kernel' "$dir/$name.err" && break
		sleep 0.1
	done
	sleep 2
	kill -INT "$p"
	wait "$p" || echo "exit $?"
	awk -F: '/^ Total allocations:/ { gsub(/[ ,]/, "", $2); print $2 + 0 }' \
		"$dir/$name.txt" | tail -n 1
}

# Nobody but perf kmem is in the cgroup: what it counts of it by default
# is nothing, and with --include-perf what perf kmem itself allocated
# writing its intervals (none: the check could not fail, and says so).
own=$(own_run own)
with=$(own_run own-with --include-perf)
if [ "$with" = "0" ]; then
	echo "note: perf kmem allocated nothing in 2 s of -I 10: its own pages not checked"
elif [ "$own" != "0" ] || ! [ "$with" -gt 0 ] 2>/dev/null; then
	fail "perf kmem alone in its cgroup: '$own' allocations counted," \
		"'$with' with --include-perf; want 0 and more"
else
	echo "perf kmem's own allocations: $with with --include-perf, 0 without"
fi

# one_line NAME WANT CMD...: exit 1, and one line on stderr, with WANT.
one_line() {
	local name=$1 want=$2 rc

	shift 2
	"$@" >"$dir/one.out" 2>"$dir/one.err"
	rc=$?
	if [ "$rc" -ne 1 ] || [ "$(wc -l <"$dir/one.err")" -ne 1 ] ||
	   ! grep -q -- "$want" "$dir/one.err"; then
		fail "$name: exit $rc, want 1 and one line with '$want':"
		sed 's/^/    /' "$dir/one.err" | head -n 5
	fi
}

one_line "not root" "run it as root" \
	setpriv --reuid=nobody --regid=nogroup --clear-groups -- \
	"$(command -v perf)" kmem stat --page -b -a -- true
printf '[kmem]\n\tbpf-btf = %s/none\n' "$dir" >"$dir/nobtf.config"
one_line "no BTF" "has no BTF" \
	env PERF_CONFIG="$dir/nobtf.config" perf kmem stat --page -b -a -- true
# What it calls exact leaves the fallbacks it did not count out.
PERF_CONFIG=$dir/noextfrag.config perf kmem stat --page -b -- true 2>&1 |
	grep '^ Exact:' | grep -q fallbacks &&
	fail "extfrag left out: the text calls the fallbacks exact"
printf '[kmem]\n\tbpf-leave-out = mm_page_alloc_extfragg\n' >"$dir/typo.config"
one_line "kmem.bpf-leave-out of no tracepoint" \
	"no tracepoint of perf kmem is named mm_page_alloc_extfragg" \
	env PERF_CONFIG="$dir/typo.config" perf kmem stat --page -b -a -- true
printf '[kmem]\n\tbpf-leave-out = mm_page_free\n' >"$dir/nofree.config"
one_line "no mm_page_free" "no kmem:mm_page_free tracepoint" \
	env PERF_CONFIG="$dir/nofree.config" perf kmem stat --page -b -a -- true
one_line "-b and -i" "reads no perf.data" \
	perf kmem stat --page -b -a -i "$dir/rec.data" -- true
one_line "a command that is not there" "cannot run $dir/none: No such file or directory" \
	perf kmem stat --page -b -- "$dir/none"
one_line "--folded -I" "--folded takes no -I" \
	perf kmem stat --page -b --folded -I 100 -a -- true
true &
gone=$!
wait "$gone"
one_line "-p of no task" "no such task: -p $gone" perf kmem stat --page -b -p "$gone"
one_line "--tid of no task" "no such task: --tid $gone" perf kmem stat --page -b --tid "$gone"
one_line "--cgroup not there" "cannot open cgroup $cg-none (.*): No such file or directory" \
	perf kmem stat --page -b --cgroup "$cg-none"

# --pprof: a profile the test's own reader of profile.proto takes, of
# every stack, with the 64 MiB dd writes, that says its weights are
# estimates.
perf kmem stat --page -b --sample-bytes 1 --pprof "$dir/b.pb.gz" -- \
	dd if=/dev/zero of="$dir/x.dd" bs=1M count=64 >/dev/null 2>"$dir/b.pb.err" ||
	fail "stat -b --pprof: $(tail -n 1 "$dir/b.pb.err")"
rm -f "$dir/x.dd"
python3 "$(dirname "$0")/lib/kmem_pprof_decode.py" "$dir/b.pb.gz" >"$dir/b.pb.json" ||
	fail "stat -b --pprof: the test's reader refuses the profile"
python3 - "$dir/b.pb.json" <<'PYEOF' || err=1
import json
import sys

p = json.load(open(sys.argv[1]))
space = p['sums'].get('alloc_space/bytes', 0)
if space < 64 << 20 or not any('estimates' in c for c in p['comments']):
    print(f'FAIL: stat -b --pprof: {space} bytes for 64 MiB written; {p["comments"]}')
    sys.exit(1)
print(f'stat -b --pprof: {space} bytes in {len(p["samples"])} samples')
PYEOF

# --pprof -I 200: FILE.0, FILE.1..., a profile per interval line of the
# same run, each read by the test's own reader, 200 ms long, 200 ms
# after the one before, with the comment on the estimates; every
# allocation sampled, their allocations and bytes add up to the lines'.
# (An interval's profile is the maps read just after its counters: an
# allocation can fall in another interval than in the lines.)
# shellcheck disable=SC2016 # $0 is sh's: the file dd writes
perf kmem stat --page -b --sample-bytes 1 -I 200 --pprof "$dir/iv.pb.gz" -- \
	sh -c 'for i in 1 2 3 4 5; do dd if=/dev/zero of="$0" bs=1M count=32; sleep 0.15; done' \
	"$dir/x.dd" >"$dir/iv.pb.txt" 2>"$dir/iv.pb.err" ||
	fail "stat -b -I --pprof: $(tail -n 1 "$dir/iv.pb.err")"
rm -f "$dir/x.dd"
python3 - "$dir" "$(dirname "$0")/lib" <<'PYEOF' || err=1
import glob
import os
import re
import sys

sys.path.insert(0, sys.argv[2])
import kmem_pprof_decode  # noqa: E402

d = sys.argv[1]
lines = [l.split() for l in open(os.path.join(d, 'iv.pb.txt'))
         if re.match(r'^ +[0-9]+\.[0-9]{6} ', l)]
rows = [(int(l[1].replace(',', '')), int(l[2].replace(',', ''))) for l in lines]
names = sorted(glob.glob(os.path.join(d, 'iv.pb.gz.*')),
               key=lambda n: int(n.rsplit('.', 1)[1]))
want = [os.path.join(d, 'iv.pb.gz.%d' % i) for i in range(len(rows))]


def fail(why):
    print('FAIL: stat -b -I 200 --pprof: ' + why)
    sys.exit(1)


if len(rows) < 4 or names != want or os.path.exists(os.path.join(d, 'iv.pb.gz')):
    fail('%d interval lines, profiles %s' % (len(rows), names))
profs = []
for n in names:
    try:
        profs.append(kmem_pprof_decode.decode(n))
    except (kmem_pprof_decode.Broken, OSError, EOFError) as e:
        fail('%s: %s' % (n, e))
got = [(p['sums']['alloc_objects/count'], p['sums']['alloc_space/bytes'])
       for p in profs]
for i, p in enumerate(profs):
    if p['duration_nanos'] != 200000000 or (
            i and p['time_nanos'] - profs[i - 1]['time_nanos'] != 200000000):
        fail('profile %d: time %d, duration %d' % (i, p['time_nanos'],
                                                    p['duration_nanos']))
    if not any('estimates' in c for c in p['comments']):
        fail('profile %d: no comment on the estimates' % i)
for k in (0, 1):
    if sum(g[k] for g in got) != sum(r[k] for r in rows):
        fail('profiles %s, lines %s' % (got, rows))
print('stat -b -I 200 --pprof: %d profiles, %d allocations, %d bytes' %
      (len(profs), sum(g[0] for g in got), sum(g[1] for g in got)))
PYEOF

# -x: the tables of a -b run as stat -x writes a recording's, 64 MiB of
# page cache among the callers' bytes; at the deepest --max-stack, whose
# program the verifier once refused.
perf kmem stat --page --caller -b --sample-bytes 1 --max-stack 127 -x , -- \
	dd if=/dev/zero of="$dir/x.dd" bs=1M count=64 >"$dir/b.csv" 2>"$dir/b.csv.err" ||
	fail "stat -b -x ,: $(tail -n 1 "$dir/b.csv.err")"
awk -F ', ' '/^# table: page.callers$/ { t = 1; next } /^# table/ { t = 0 }
	t && /^# output: bytes, hits/ { h = 1; next }
	t && h && !/^#/ { bytes += $1 }
	END { exit !(bytes >= 64 * 1048576) }' "$dir/b.csv" ||
	fail "stat -b -x ,: the page.callers table has not the bytes dd wrote"
rm -f "$dir/x.dd"

if [ -n "${KMEM_NOSKEL_PERF:-}" ] && [ -x "$KMEM_NOSKEL_PERF" ]; then
	"$KMEM_NOSKEL_PERF" kmem stat --page -b -a -- true >/dev/null 2>"$dir/noskel.err"
	rc=$?
	if [ "$rc" -eq 0 ] ||
	   ! head -n 1 "$dir/noskel.err" | grep -q 'not available because no BUILD_BPF_SKEL=1'; then
		fail "without skeletons: exit $rc, $(head -n 1 "$dir/noskel.err")"
	fi
else
	echo "note: no perf built without skeletons (KMEM_NOSKEL_PERF) to check"
fi

kmem_result "perf kmem stat -b"
