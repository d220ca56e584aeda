#!/bin/bash
# perf kmem stat --page -I: intervals of trace time against perf script (exclusive)
# SPDX-License-Identifier: GPL-2.0
#
# Records a workload that allocates in bursts, then checks perf kmem stat
# --page -I 200 --caller --json: the rows add up to the summary's totals
# (allocations, frees, failures, each fallback class) and the last row's
# live bytes are the summary's still-live bytes; and every row equals a
# count of perf script --ns lines in [start, start + 200 ms) from the first
# page event: allocations, frees and failures with their bytes, and the
# callsite rows' hits and bytes are the interval's by their callsite.
# Each row's time, in the JSON and the text, is its start in perf
# script's clock, the one --time takes.  The text of -I 200 --caller adds
# up to the trace without -I: its rows to the summary's totals and
# still-live bytes, its callsite lines (-l 1000000) to their rows and, by
# callsite, to the --caller table's hits and bytes; without -l each row
# has the first 3 of them.  -I 0 and -I x get one line.

set -u

# shellcheck source-path=SCRIPTDIR source=lib/kmem_common.sh
. "$(dirname "$0")/lib/kmem_common.sh"
kmem_need_tracepoints

kmem_scratch interval
data="$dir/perf.data"

kmem_record_or_skip "$data" --page -- sh -c \
	'for i in 1 2 3; do cat /usr/bin/* >/dev/null 2>&1; sleep 0.3; done'

perf kmem stat --page --caller -l 1000000 -I 200 --json -i "$data" \
	>"$dir/stat.json" 2>"$dir/err" || fail "-I 200: $(tail -n 1 "$dir/err")"
perf kmem stat --page -I 200 -i "$data" >"$dir/stat.txt" 2>&1 ||
	fail "-I 200 (text): $(tail -n 1 "$dir/stat.txt")"
perf script -i "$data" --ns -F time,event,trace 2>/dev/null >"$dir/script" ||
	fail "perf script"

python3 - "$dir" <<'PYEOF' || err=1
import collections
import json
import re
import sys

d = sys.argv[1]
doc = json.load(open(f'{d}/stat.json'))
page = doc['page']
s, iv = page['summary'], page['intervals']
rows, length = iv['rows'], iv['length_ns']
ok = True


def fail(msg):
    global ok
    print('FAIL:', msg)
    ok = False


def total(key):
    return {k: sum(r[key][k] for r in rows) for k in ('count', 'bytes')}


for key, want in (('allocations', s['total_allocations']),
                  ('frees', s['total_frees']), ('failures', s['failures'])):
    if total(key) != want:
        fail(f'{key}: the rows add up to {total(key)}, the summary says {want}')
frag = page.get('fragmentation', {})
for c in ('claimed', 'converted', 'polluted'):
    if c in rows[0] and total(c) != frag['classes'][c]:
        fail(f'{c}: rows {total(c)}, summary {frag["classes"][c]}')
if rows[-1]['live_bytes'] != s['allocated_only']['still_live']['bytes']:
    fail(f'live bytes at the end {rows[-1]["live_bytes"]}, summary '
         f'{s["allocated_only"]["still_live"]["bytes"]}')

# perf script's own count per interval, from the first page event.
LINE = re.compile(r'^\s*(\d+)\.(\d{9}):\s+kmem:(mm_page_alloc|mm_page_free|mm_page_alloc_extfrag):'
                  r'.*?pfn=(0x[0-9a-f]+|-1|\d+)(?:\s+order=(\d+))?')
events = []
for line in open(f'{d}/script'):
    m = LINE.match(line)
    if m:
        sec, ns, ev, pfn, order = m.groups()
        events.append((int(sec) * 10**9 + int(ns), ev, pfn, int(order or 0)))
first = min(t for t, *_ in events)
want = collections.defaultdict(lambda: collections.Counter())
for t, ev, pfn, order in events:
    c = want[(t - first) // length]
    size = 4096 << order
    # A failure has no pfn: the raw -1UL, which the format prints as
    # pfn=0x0 (v4.x+; older kernels print -1).
    if ev == 'mm_page_alloc' and pfn in ('-1', '0x0', '0'):
        c['fail'] += 1
        c['fail_bytes'] += size
    elif ev == 'mm_page_alloc':
        c['alloc'] += 1
        c['alloc_bytes'] += size
    elif ev == 'mm_page_free':
        c['free'] += 1
        c['free_bytes'] += size
busy = 0
for i, r in enumerate(rows):
    if r['start_ns'] != i * length:
        fail(f'row {i} starts at {r["start_ns"]}')
    # In the clock of perf script's times, which --time takes.
    if r.get('time_ns') != first + i * length:
        fail(f'row {i} starts at time {r.get("time_ns")}, not {first + i * length}')
    got = collections.Counter({
        'alloc': r['allocations']['count'], 'alloc_bytes': r['allocations']['bytes'],
        'free': r['frees']['count'], 'free_bytes': r['frees']['bytes'],
        'fail': r['failures']['count'], 'fail_bytes': r['failures']['bytes']})
    w = want.get(i, collections.Counter())
    if +got != +w:
        fail(f'interval {i}: ours {dict(+got)}, perf script {dict(+w)}')
    if sum(c['hits'] for c in r.get('callers', [])) != r['allocations']['count']:
        fail(f'interval {i}: its callsites do not add up to its allocations')
    busy += bool(r['allocations']['count'])
# The text's rows give their start as perf script and --time have times:
# seconds since boot, to the microsecond.
text = [l.split()[0] for l in open(f'{d}/stat.txt')
        if re.match(r'^\s+\d+\.\d{6}\s', l)]
starts = [f'{(first + i * length) // 10**9}.{(first + i * length) % 10**9 // 1000:06d}'
          for i in range(len(rows))]
if text != starts:
    fail(f'the text rows start at {text[:3]}..., perf script says {starts[:3]}...')
if len(rows) != max(want) + 1:
    fail(f'{len(rows)} rows, perf script spans {max(want) + 1} intervals')
if busy < 3:
    fail(f'only {busy} intervals allocated: the test proves little')
if ok:
    print(f'ok   {len(rows)} intervals of {length // 10**6} ms, {busy} with allocations: '
          'each as perf script counts, and they add up to the summary')
sys.exit(0 if ok else 1)
PYEOF

# The text of -I --caller: its rows, and under each the callsites that
# allocated the most bytes in it (all of them with -l, 3 without), add up
# to what the same trace gives without -I: the summary's totals and
# still-live bytes, and the --caller table's hits and bytes by callsite.
perf kmem stat --page --caller -l 1000000 -I 200 -i "$data" >"$dir/iv-all.txt" 2>"$dir/err" ||
	fail "-I 200 --caller -l 1000000: $(tail -n 1 "$dir/err")"
perf kmem stat --page --caller -I 200 -i "$data" >"$dir/iv-top.txt" 2>"$dir/err" ||
	fail "-I 200 --caller: $(tail -n 1 "$dir/err")"
perf kmem stat --page --caller -l 1000000 -i "$data" >"$dir/whole.txt" 2>"$dir/err" ||
	fail "--caller -l 1000000: $(tail -n 1 "$dir/err")"
python3 - "$dir" <<'PYEOF' || err=1
import collections
import re
import sys

d = sys.argv[1]
ok = True


def fail(msg):
    global ok
    print('FAIL: -I 200 --caller:', msg)
    ok = False


def num(cell):
    return 0 if cell == '.' else int(cell.replace(',', ''))


def intervals(path):
    """[(numbers of the row, [(hits, bytes, callsite)...])...] of the text."""
    rows, section = [], False
    for line in open(path):
        if line.startswith(' INTERVALS'):
            section = True
            continue
        if not section:
            continue
        f = line.split()
        if f and re.match(r'^\d+\.\d{6}$', f[0]):
            rows.append(([num(c) for c in f[1:]], []))
        elif rows and len(f) == 3 and re.match(r'^[\d,]+$', f[0]):
            rows[-1][1].append((num(f[0]), num(f[1]), f[2]))
        elif rows and f:
            break
    return rows


# The trace without -I: its summary, and its --caller rows by callsite.
summary, by_callsite, table = {}, collections.Counter(), False
for line in open(d + '/whole.txt'):
    m = re.match(r'^ +(Total allocations|Total frees|Page allocation failures|'
                 r'still allocated at the end): +([\d,]+) +\[ +([\d,]+) bytes \]', line)
    if m:
        summary[m.group(1)] = (num(m.group(2)), num(m.group(3)))
    if 'Total_alloc/Size' in line and 'Callsite' in line:
        table = True
    elif table and line.startswith('-') and by_callsite:
        table = False
    elif table and ' | ' in line:
        cells = [c.strip() for c in line.split(' | ')]
        by_callsite[(cells[-1], 'bytes')] += num(cells[0].split('/')[0])
        by_callsite[(cells[-1], 'hits')] += num(cells[1])
if len(summary) != 4 or not by_callsite:
    fail('no summary or --caller table without -I: %s' % summary)
    sys.exit(1)

rows = intervals(d + '/iv-all.txt')
if len(rows) < 3:
    fail('%d interval rows in the text' % len(rows))
    sys.exit(1)
# allocations, bytes, frees, bytes, failures, live bytes: the first six.
got = {'Total allocations': (sum(r[0][0] for r in rows), sum(r[0][1] for r in rows)),
       'Total frees': (sum(r[0][2] for r in rows), sum(r[0][3] for r in rows)),
       'Page allocation failures': sum(r[0][4] for r in rows),
       'still allocated at the end': rows[-1][0][5]}
want = dict(summary)
want['Page allocation failures'] = summary['Page allocation failures'][0]
want['still allocated at the end'] = summary['still allocated at the end'][1]
for k in want:
    if got[k] != want[k]:
        fail('%s: the rows give %s, the summary without -I %s' % (k, got[k], want[k]))
iv_callsite = collections.Counter()
for i, (numbers, callers) in enumerate(rows):
    if (sum(c[0] for c in callers), sum(c[1] for c in callers)) != tuple(numbers[:2]):
        fail('interval %d: its callsites add up to %d, %d; its row %d, %d' %
             (i, sum(c[0] for c in callers), sum(c[1] for c in callers), *numbers[:2]))
    if len({c[2] for c in callers}) != len(callers):
        fail('interval %d: a callsite twice' % i)
    if [c[1] for c in callers] != sorted((c[1] for c in callers), reverse=True):
        fail('interval %d: the callsites are not by bytes' % i)
    for hits, nbytes, name in callers:
        iv_callsite[(name, 'hits')] += hits
        iv_callsite[(name, 'bytes')] += nbytes
if +iv_callsite != +by_callsite:
    diff = sorted(set((+iv_callsite).items()) ^ set((+by_callsite).items()))
    fail('by callsite the intervals differ from --caller without -I in %d, e.g. %s' %
         (len(diff), diff[:4]))
# Without -l: the first three of each interval's callsites.
top = intervals(d + '/iv-top.txt')
if [(r[0], r[1][:3]) for r in rows] != top:
    fail('without -l, not the rows and the first 3 callsites of -l 1000000')
if ok:
    print('ok   -I 200 --caller text: %d rows, %d callsites, adding up to the trace '
          'without -I: %d allocations, %d bytes' %
          (len(rows), len(by_callsite) // 2, *summary['Total allocations']))
sys.exit(0 if ok else 1)
PYEOF

for bad in 0 x -5; do
	if perf kmem stat --page -I "$bad" -i "$data" >/dev/null 2>"$dir/err"; then
		fail "-I $bad: exit 0"
	elif [ "$(grep -c . "$dir/err")" -ne 1 ] || ! grep -q "invalid -I" "$dir/err"; then
		fail "-I $bad: $(head -n 2 "$dir/err")"
	fi
done

kmem_result "kmem interval test"
