#!/bin/bash
# perf kmem stat --page --folded against perf script's callchains (exclusive)
# SPDX-License-Identifier: GPL-2.0
#
# Records page allocations with perf kmem record --page, and checks that
# --folded (bytes), --folded=hits and --folded --live give one line per
# callchain, root first, the allocator's frames left out, whose values add
# up to the totals of the analysis (from --json), and whose chains and
# values are the ones a count of perf script's callchains gives: each
# chain reversed, its leading allocator frames dropped (the allocator
# functions as perf kmem stat -v lists them).

set -u

# shellcheck source-path=SCRIPTDIR source=lib/kmem_common.sh
. "$(dirname "$0")/lib/kmem_common.sh"
kmem_need_tracepoints

kmem_scratch folded
data="$dir/perf.data"

kmem_record_or_skip "$data" --page -- sh -c \
	'ls -R /usr/lib >/dev/null; cat /usr/bin/* >/dev/null 2>&1
	 seq 200000 | sort -r >/dev/null'

perf kmem stat --page --json -i "$data" >"$dir/stat.json" 2>/dev/null ||
	fail "perf kmem stat --page --json"
for mode in bytes hits live; do
	case $mode in
	live) opts="--folded --live" ;;
	*) opts="--folded=$mode" ;;
	esac
	# shellcheck disable=SC2086 # $opts is a list of options
	perf kmem stat --page $opts -i "$data" >"$dir/folded.$mode" 2>"$dir/err" ||
		fail "perf kmem stat --page $opts: $(tail -n 1 "$dir/err")"
done
perf kmem stat --page -v -i "$data" 2>/dev/null |
	sed -n 's/^alloc func: //p' >"$dir/alloc_funcs"
perf script -i "$data" -F event,trace,ip,sym 2>/dev/null >"$dir/script"
[ -s "$dir/alloc_funcs" ] || fail "perf kmem stat -v lists no allocator function"

python3 - "$dir" <<'PYEOF' || err=1
import json
import re
import sys
from collections import Counter

d = sys.argv[1]
ok = True


def bad(msg):
    global ok
    ok = False
    print('FAIL: ' + msg)


alloc_funcs = set(open(d + '/alloc_funcs').read().split())
page_size = json.load(open(d + '/stat.json'))['page']['page_size']
summary = json.load(open(d + '/stat.json'))['page']['summary']


def name(sym):
    return re.sub(r'[;\s]', '_', sym)


# Each mm_page_alloc with its frames; frees take pfns off the live set.
want = {'bytes': Counter(), 'hits': Counter()}
live = {}
event, frames = None, []


def flush():
    global event
    if event and event[0] == 'alloc' and event[1] != 0xffffffffffffffff:
        i = 0
        while i < len(frames) and frames[i] in alloc_funcs:
            i += 1
        chain = ';'.join(name(f) for f in reversed(frames[i:]))
        if chain:
            size = page_size << event[2]
            want['bytes'][chain] += size
            want['hits'][chain] += 1
            live[event[1]] = (chain, size)
    elif event and event[0] == 'free':
        live.pop(event[1], None)
    event = None


for line in open(d + '/script'):
    m = re.search(r'kmem:mm_page_(alloc|free): .*pfn=0x([0-9a-f]+) order=(\d+)', line)
    if m:
        flush()
        event = (m.group(1), int(m.group(2), 16), int(m.group(3)))
        frames = []
        continue
    m = re.match(r'^\s+[0-9a-f]+ (\S+)', line)
    if m and event:
        frames.append(m.group(1))
flush()
want['live'] = Counter()
for chain, size in live.values():
    want['live'][chain] += size

totals = {'bytes': summary['total_allocations']['bytes'],
          'hits': summary['total_allocations']['count'],
          'live': summary['allocated_only']['still_live']['bytes']}
for mode in ('bytes', 'hits', 'live'):
    got = Counter()
    for line in open('%s/folded.%s' % (d, mode)):
        chain, value = line.rstrip('\n').rsplit(' ', 1)
        if chain in got:
            bad('%s: chain %s twice' % (mode, chain))
        got[chain] = int(value)
    print('%-5s %6d chains, sum %d, total %d, perf script %d chains' %
          (mode, len(got), sum(got.values()), totals[mode], len(want[mode])))
    if sum(got.values()) != totals[mode]:
        bad('%s: the lines add up to %d, the analysis to %d' %
            (mode, sum(got.values()), totals[mode]))
    if got != want[mode]:
        diff = set(got.items()) ^ set(want[mode].items())
        bad('%s: %d lines differ from perf script, e.g. %s' %
            (mode, len(diff), sorted(diff)[:2]))
if len(want['hits']) < 10:
    bad('only %d distinct callchains recorded' % len(want['hits']))
sys.exit(0 if ok else 1)
PYEOF

kmem_result "kmem folded test"
