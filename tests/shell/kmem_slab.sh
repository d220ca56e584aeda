#!/bin/bash
# perf kmem slab analysis against an independent count
# SPDX-License-Identifier: GPL-2.0
#
# Records the slab tracepoints of a real workload with 'perf kmem record
# --slab', then checks every number of the 'perf kmem stat --slab' summary
# and the top 5 rows of --caller against a count made from 'perf script'
# by a small program of its own.  Exit 0: pass, 1: fail, 2: skip.

set -u

# shellcheck source-path=SCRIPTDIR source=lib/kmem_common.sh
. "$(dirname "$0")/lib/kmem_common.sh"
kmem_need_tracepoints kmalloc
kmem_need_commands python3

kmem_scratch slab
data=$dir/perf.data

# Enough allocations and frees of every kind: files, pipes, processes,
# both CPUs at once, which lost events in perf record's default buffer.
# Its parent is perf record: its ring buffers are the perf_event maps.
cat >"$dir/workload.sh" <<'WORKLOAD'
grep 'anon_inode:\[perf_event\]' "/proc/$PPID/maps" >"$1/maps"
for _ in $(seq 10); do
	ls -lR /proc/self/ >/dev/null 2>&1 &
	find /usr/include -maxdepth 2 -name '*.h' 2>/dev/null | head -300 |
		xargs cat >/dev/null 2>&1
	wait
done
WORKLOAD

# With perf kmem record's own buffer size: no -m.
perf kmem record --slab -o "$data" -- bash "$dir/workload.sh" "$dir" \
	>"$dir/record.log" 2>&1 ||
	{ fail "perf kmem record --slab: $(tail -1 "$dir/record.log")"; exit 1; }

# 2048 pages (and one of control) on each CPU, or what it says it could
# lock; then it may lose events, else none, as perf report counts them.
pages=$(sed -n 's/^perf kmem: cannot lock .* recording with \([0-9]*\),.*/\1/p' \
	"$dir/record.log")
want="$(getconf _NPROCESSORS_ONLN)x$(((${pages:-2048} + 1) * $(getconf PAGESIZE)))"
sizes=$(while read -r range _; do
		echo $((16#${range#*-} - 16#${range%-*}))
	done <"$dir/maps" | sort | uniq -c | awk '{ print $1 "x" $2 }')
[ "$sizes" = "$want" ] || fail "ring buffers of perf record: $sizes, want $want bytes"
lost=$(perf report -i "$data" --stats 2>/dev/null | grep -E 'LOST(_SAMPLES)? events:' |
	tr -s ' ' | paste -sd ';')
[ -n "$pages" ] || [ -z "$lost" ] || fail "perf kmem record lost events: perf report --stats:$lost"

# The default sort (frag,hit,bytes) and the busiest callsites, as JSON,
# and the text of the first, which must say the same.
perf kmem stat -i "$data" --slab --caller -l 5 --json >"$dir/stat.json" \
	2>"$dir/stat.err" ||
	{ fail "perf kmem stat --json: $(tail -1 "$dir/stat.err")"; exit 1; }
perf kmem stat -i "$data" --slab --caller -l 5 >"$dir/stat.txt" 2>"$dir/stat.err" ||
	{ fail "perf kmem stat: $(tail -1 "$dir/stat.err")"; exit 1; }
perf kmem stat -i "$data" --slab --caller -l 5 -s hit,bytes --json \
	>"$dir/stat-hit.json" 2>"$dir/stat.err" ||
	{ fail "perf kmem stat -s hit,bytes: $(tail -1 "$dir/stat.err")"; exit 1; }
perf script -i "$data" -F cpu,event,trace >"$dir/script.txt" 2>/dev/null ||
	{ fail "perf script"; exit 1; }
perf report -i "$data" --header-only -I >"$dir/header.txt" 2>/dev/null

python3 - "$dir/script.txt" "$dir/header.txt" "$dir/stat.json" \
	"$dir/stat-hit.json" "$dir/stat.txt" <<'PYEOF'
import json
import re
import sys

script, header, stat, stat_hit = sys.argv[1:5]
ZERO_OR_NULL = 16

# CPU -> NUMA node, from the perf.data header: "# node0 cpu list : 0-3,8".
cpu_node = {}
for line in open(header):
    m = re.match(r'# node(\d+) cpu list : (\S+)', line)
    if not m:
        continue
    for part in m.group(2).split(','):
        lo, _, hi = part.partition('-')
        for cpu in range(int(lo), int(hi or lo) + 1):
            cpu_node[cpu] = int(m.group(1))

n = {k: 0 for k in ('alloc', 'alloc_b', 'req', 'freed', 'freed_b', 'free',
                    'unknown', 'again', 'null', 'fail', 'fail_b', 'zero',
                    'pp', 'pp_b', 'xnode', 'xnode_b', 'dropped',
                    'dropped_b', 'events')}
objects = {}    # ptr -> [live, bytes_alloc, cpu, row]
rows = {}       # function -> [hits, alloc, req, freed, pingpong]

line_re = re.compile(r'\[(\d+)\]\s+kmem:(\w+):\s+(.*)$')
for line in open(script):
    m = line_re.search(line)
    if not m:
        continue
    cpu, event = int(m.group(1)), m.group(2)
    f = dict(kv.split('=', 1) for kv in m.group(3).split() if '=' in kv)
    n['events'] += 1
    ptr = 0 if f['ptr'] == '(nil)' else int(f['ptr'], 16)
    if event in ('kmalloc', 'kmem_cache_alloc'):
        req, alloc = int(f['bytes_req']), int(f['bytes_alloc'])
        if ptr == 0:
            n['fail'] += 1
            n['fail_b'] += req
            continue
        if ptr <= ZERO_OR_NULL:
            n['zero'] += 1
            continue
        n['alloc'] += 1
        n['alloc_b'] += alloc
        n['req'] += req
        node = int(f.get('node', -1))
        if node >= 0 and cpu in cpu_node and node != cpu_node[cpu]:
            n['xnode'] += 1
            n['xnode_b'] += alloc
        func = f['call_site'].split('+')[0]
        row = rows.setdefault(func, [0, 0, 0, 0, 0])
        row[0] += 1
        row[1] += alloc
        row[2] += req
        old = objects.get(ptr)
        if old and old[0]:
            n['dropped'] += 1
            n['dropped_b'] += old[1]
        objects[ptr] = [True, alloc, cpu, row]
    elif event in ('kfree', 'kmem_cache_free'):
        n['free'] += 1
        if ptr <= ZERO_OR_NULL:
            n['null'] += 1
            continue
        obj = objects.get(ptr)
        if obj is None:
            n['unknown'] += 1
            objects[ptr] = [False, 0, cpu, None]
        elif not obj[0]:
            n['again'] += 1
        else:
            obj[0] = False
            n['freed'] += 1
            n['freed_b'] += obj[1]
            obj[3][3] += 1
            if cpu != obj[2]:
                n['pp'] += 1
                n['pp_b'] += obj[1]
                obj[3][4] += 1

live = [o for o in objects.values() if o[0]]
n['live'], n['live_b'] = len(live), sum(o[1] for o in live)


def frag(req, alloc):
    return 100.0 - 100.0 * req / alloc if alloc else 0.0


expect = {
    'Total allocations:': (n['alloc'], n['alloc_b']),
    'Total bytes requested:': (None, n['req']),
    'Internal fragmentation:': (None, n['alloc_b'] - n['req']),
    'wasted of allocated:': '%.3f%%' % frag(n['req'], n['alloc_b']),
    'Allocated+freed:': (n['freed'], n['freed_b']),
    'Allocated-only:': (n['live'] + n['dropped'],
                        n['live_b'] + n['dropped_b']),
    'still allocated at the end:': (n['live'], n['live_b']),
    'allocated again, free not seen:': (n['dropped'], n['dropped_b']),
    'Total frees:': (n['free'], None),
    'of unknown pointers:': (n['unknown'], None),
    'repeated frees of a pointer:': (n['again'], None),
    'of NULL or ZERO_SIZE_PTR:': (n['null'], None),
    'Allocation failures (requested):': (n['fail'], n['fail_b']),
    'Ping-pong frees (on another CPU):': (n['pp'], n['pp_b']),
}
if cpu_node:
    expect['Cross-node allocations:'] = (n['xnode'], n['xnode_b'])
if n['zero']:
    expect['Zero-size allocations:'] = (n['zero'], None)


def number(s):
    return int(s.replace(',', '')) if s else None


def parse(path):
    """Summary lines by label, and the rows of the first table."""
    got, table, table_done = {}, [], False
    for line in open(path):
        m = re.match(r'^ +(\S.*?:) +([\d,]+)?\s*(?:\[ +([\d,]+) bytes \])?\s*$',
                     line)
        if m:
            got[m.group(1).strip()] = (number(m.group(2)), number(m.group(3)))
            continue
        m = re.match(r'^ +(\S.*?:) +([\d.]+%)$', line)
        if m:
            got[m.group(1).strip()] = m.group(2)
            continue
        cols = [c.strip() for c in line.split('|')]
        if len(cols) == 7 and cols[1] != 'Hits' and not table_done:
            table.append(cols)
        elif table and line.startswith('-'):
            table_done = True   # the cache table follows
    return got, table


def parse_json(path):
    """The same, from perf kmem stat --json."""
    doc = json.load(open(path))['slab']
    s = doc['summary']

    def pair(c):
        return (c['count'], c['bytes'])
    unfreed = s['allocated_only']
    got = {
        'Total allocations:': pair(s['total_allocations']),
        'Total bytes requested:': (None, s['bytes_requested']),
        'Internal fragmentation:': (None, s['wasted_bytes']),
        'wasted of allocated:': '%.3f%%' % frag(s['bytes_requested'],
                                                s['total_allocations']['bytes']),
        'Allocated+freed:': pair(s['allocated_freed']),
        'Allocated-only:': pair(unfreed),
        'still allocated at the end:': pair(unfreed['still_live']),
        'allocated again, free not seen:': pair(unfreed['allocated_again']),
        'Total frees:': (s['frees']['total'], None),
        'of unknown pointers:': (s['frees']['unknown_pointers'], None),
        'repeated frees of a pointer:': (s['frees']['repeated'], None),
        'of NULL or ZERO_SIZE_PTR:': (s['frees']['null'], None),
        'Allocation failures (requested):': pair(s['failures']),
        'Ping-pong frees (on another CPU):': pair(s['pingpong']),
    }
    if s['cross_node'] is not None:
        got['Cross-node allocations:'] = pair(s['cross_node'])
    if s['zero_size']:
        got['Zero-size allocations:'] = (s['zero_size'], None)
    table = [[r['callsite']['name'] or r['callsite']['address'],
              str(r['hits']), '%d/' % r['bytes_alloc'], '%d/' % r['bytes_req'],
              str(r['freed']), str(r['pingpong']),
              '%.3f%%' % frag(r['bytes_req'], r['bytes_alloc'])]
             for r in doc['callers']['rows']]
    return got, table


got, table = parse_json(stat)
text_got, text_table = parse(sys.argv[5])
for label in expect:
    g, t = got.get(label), text_got.get(label)
    if isinstance(g, tuple) and t is not None:
        t = tuple(x if y is not None else None for x, y in zip(t, g))
    if g != t:
        print('text and JSON differ on %s: %s and %s' % (label, t, g))
        sys.exit(1)
if [r[0] for r in text_table] != [r[0] for r in table]:
    print('text and JSON rows differ: %s and %s' % (text_table, table))
    sys.exit(1)
bad = 0
print('events in perf script: %d' % n['events'])
for label, want in expect.items():
    have = got.get(label)
    if isinstance(want, tuple) and have is not None:
        have = tuple(h if w is not None else None for h, w in zip(have, want))
    status = 'ok' if have == want else 'MISMATCH'
    bad += have != want
    print('%-36s perf %-28s count %-28s %s' % (label, have, want, status))


def row_values(name, r):
    return (name, r[0], r[1], r[2], r[3], r[4], '%.3f%%' % frag(r[2], r[1]))


def by_frag(v):
    return (-float(v[6][:-1]), -v[1], -v[2])


def by_hit(v):
    return (-v[1], -v[2])


def check_top_rows(what, caller, sort_key):
    bad = 0
    mine = sorted((row_values(k, r) for k, r in rows.items()), key=sort_key)
    if len(caller) != min(5, len(mine)):
        print('%s: %d rows, expected %d' % (what, len(caller),
                                            min(5, len(mine))))
        bad += 1
    for i, cols in enumerate(caller[:5]):
        have = (cols[0], number(cols[1]), number(cols[2].split('/')[0]),
                number(cols[3].split('/')[0]), number(cols[4]),
                number(cols[5]), cols[6])
        want = row_values(cols[0], rows[cols[0]]) if cols[0] in rows else None
        # Rows tied on every sort key may stand in either order.
        ok = want == have and sort_key(want) == sort_key(mine[i])
        bad += not ok
        print('%s row %d: perf %s count %s %s' %
              (what, i + 1, have, want, 'ok' if ok else 'MISMATCH'))
    return bad


bad += check_top_rows('caller (frag,hit,bytes)', table, by_frag)
bad += check_top_rows('caller (hit,bytes)', parse_json(stat_hit)[1], by_hit)
sys.exit(1 if bad else 0)
PYEOF
rc=$?
[ $rc = 0 ] || fail "summary or --caller rows differ from the independent count"

# Each record once (patches/0023): a sample of one CPU, at one nanosecond,
# with every field the same as another's, is one sample written twice.
# perf script prints microseconds without --ns: two kfree(NULL) of one
# call site in one microsecond are two lines the same.
dups=$(perf script --ns -i "$data" -F cpu,time,event,trace 2>/dev/null | sort | uniq -d | wc -l)
[ "$dups" = 0 ] || fail "perf record wrote $dups samples twice"
kmem_result "kmem slab test"
