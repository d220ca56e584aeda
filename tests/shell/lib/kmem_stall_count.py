#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Count the allocation stalls of a perf kmem recording, independently.

  kmem_stall_count.py [--perf PERF] -i perf.data     the count, from perf script
  kmem_stall_count.py --json STAT.json               what perf kmem stat says

Both print the same "key value" lines, sorted, for the shell test to
compare: every number of the STALLS section of perf kmem stat --page
--json, the rows of its two tables, and, from perf script only, the
numbers the check against /proc/vmstat needs (vm.*).

The count restates perf kmem's definitions (Documentation/perf-kmem.txt,
STALLS) from perf script's text, sharing no code with perf kmem:

- a stall begins on a task at a direct reclaim begin or a
  try_to_compact_pages while the task has none open, and ends at the
  task's next mm_page_alloc of the begin's order and GFP flags that is
  not between a reclaim begin and its end; a reclaim end with no stall
  open began before the trace: the task's next allocation outside a
  reclaim, of any order, is counted apart; the order and GFP of the
  first begin after it become the stall's;
- a reclaim lasts from its begin to its end; a compaction attempt from
  its try_to_compact_pages to the last mm_compaction_begin, _end or
  _deferred on the task before its next reclaim begin or end,
  try_to_compact_pages or the allocation that ends the stall;
- an attempt succeeded when that allocation ends it with a page, failed
  when it compacted or was deferred and no page came, else it was
  skipped;
- a begin of another order or GFP while a stall is open abandons it;
- memcg reclaims pair begin and end on a task, by the callsite of the
  begin's callchain past the allocator's and memcg's charging functions.

The callsite of a chain is its first frame whose function is not in the
lists below (any leading underscores, a _noprof suffix and compiler
suffixes removed first), nor a tracepoint's __traceiter_ iterator.
"""

import argparse
import collections
import json
import re
import subprocess
import sys

# The page allocator's entry points and insides, v4.1 .. v6.18.
ALLOCATOR = set('''
alloc_pages_nodemask alloc_pages_current alloc_pages_vma alloc_page_interleave
alloc_pages alloc_pages_node alloc_pages_exact alloc_pages_exact_nid
get_free_pages get_zeroed_page alloc_pages_bulk alloc_pages_bulk_array
alloc_pages_bulk_array_mempolicy alloc_pages_bulk_mempolicy
alloc_pages_preferred_many folio_alloc folio_alloc_node folio_alloc_mpol
vma_alloc_folio filemap_alloc_folio alloc_pages_mpol alloc_frozen_pages
alloc_frozen_pages_nolock alloc_pages_nolock get_page_from_freelist rmqueue
rmqueue_pcplist rmqueue_bulk rmqueue_buddy rmqueue_smallest rmqueue_fallback
rmqueue_claim rmqueue_steal rmqueue_cma_fallback steal_suitable_fallback
try_to_claim_block alloc_pages_slowpath alloc_pages_direct_compact
alloc_pages_direct_reclaim alloc_pages_cpuset_fallback alloc_pages_may_oom
'''.split())

# memcg's charging and reclaim, between a charge and its reclaim.
MEMCG = set('''
try_to_free_mem_cgroup_pages try_charge try_charge_memcg charge_memcg
mem_cgroup_charge mem_cgroup_try_charge mem_cgroup_swapin_charge_folio
mem_cgroup_swapin_charge_page mem_cgroup_charge_hugetlb
mem_cgroup_hugetlb_try_charge memcg_kmem_charge_page memcg_kmem_charge
memcg_charge_kernel_stack obj_cgroup_charge obj_cgroup_charge_pages
obj_cgroup_charge_account memcg_slab_post_alloc_hook memcg_slab_post_charge reclaim_high
mem_cgroup_handle_over_high mem_cgroup_sk_charge mem_cgroup_charge_skmem
'''.split())

WAKES = {
    'vmscan:mm_vmscan_wakeup_kswapd': 'kswapd_woken',
    'vmscan:mm_vmscan_kswapd_wake': 'kswapd_ran',
    'compaction:mm_compaction_wakeup_kcompactd': 'kcompactd_woken',
    'compaction:mm_compaction_kcompactd_wake': 'kcompactd_ran',
}

# The events of a task's own stalls and memcg reclaims.
OWN = ('vmscan:mm_vmscan_direct_reclaim_begin',
       'vmscan:mm_vmscan_direct_reclaim_end',
       'vmscan:mm_vmscan_memcg_reclaim_begin',
       'vmscan:mm_vmscan_memcg_reclaim_end',
       'compaction:mm_compaction_try_to_compact_pages')

MIGTYPES = ['Unmovable', 'Movable', 'Reclaimable', 'HighAtomic',
            'CMA/Isolate', 'Isolate']

BUCKETS = 40
MAX_ORDER = 31


LINE = re.compile(r'\s*(\d+)\s+(\d+\.\d+):\s+(\S+):\s?(.*)$')


def bare(sym):
    """A function's name without underscores, _noprof or .isra.0."""
    sym = re.sub(r'(\.(isra|constprop|part|cold|llvm)\.[0-9]+)+$', '', sym)
    sym = re.sub(r'_noprof$', '', sym)
    return sym.lstrip('_')


def callsite(chain, skip):
    for sym in chain:
        # A tracepoint's iterator heads the chain under a second probe.
        if sym.startswith('__traceiter_'):
            continue
        if bare(sym) not in skip:
            return sym
    return '(none)'


def fields(text):
    out = {}
    for word in text.split():
        if '=' in word:
            k, v = word.split('=', 1)
            out[k] = v.rstrip(',')
    return out


def ns_of(stamp):
    sec, frac = stamp.rstrip(':').split('.')
    return int(sec) * 1000000000 + int(frac.ljust(9, '0')[:9])


def bucket(ns):
    return min((ns // 1000).bit_length(), BUCKETS - 1)


def rank(sorted_values, p):
    """Nearest rank: the smallest value that p% of them are not above."""
    n = len(sorted_values)
    if not n:
        return 0
    r = -(-p * n // 100)
    return sorted_values[max(r, 1) - 1]


class Task:
    def __init__(self):
        self.open = False
        self.memcg = None       # (begin ns, callsite, gfp) of an open one


class Count:
    def __init__(self):
        self.tasks = collections.defaultdict(Task)
        self.out = collections.Counter()
        self.lengths = collections.defaultdict(list)    # order -> ns
        self.rows = collections.defaultdict(collections.Counter)
        self.row_max = collections.Counter()
        self.memcg_rows = collections.defaultdict(collections.Counter)
        self.memcg_max = collections.Counter()
        self.memcg_lengths = []

    # --- a task's stall -------------------------------------------------

    def open_stall(self, t, now, order, gfp, partial):
        t.open, t.begin, t.order, t.gfp, t.partial = True, now, order, gfp, partial
        t.where = 'wait'
        t.reclaim = t.compact = t.pages = t.nreclaim = t.ncompact = 0
        t.outcomes = collections.Counter()

    def end_attempt(self, t, outcome):
        t.compact += t.last - t.phase
        t.outcomes[outcome] += 1
        self.out['events.compaction_' + outcome] += 1
        t.where = 'wait'

    def end_attempt_no_page(self, t):
        self.end_attempt(t, 'failed' if t.worked else 'skipped')

    def attempt(self, t, now, order, gfp):
        """A reclaim or compaction begins: the open stall's, or a new one."""
        if t.open and t.where == 'reclaim':
            self.out['apart.unpaired'] += 1
            t.reclaim += now - t.phase
            t.where = 'wait'
        elif t.open and t.where == 'compact':
            self.end_attempt_no_page(t)
        if t.open and t.partial and t.order is None:
            t.order, t.gfp = order, gfp
        elif t.open and (t.order, t.gfp) != (order, gfp):
            self.out['apart.abandoned'] += 1
            t.open = False
        if not t.open:
            self.open_stall(t, now, order, gfp, False)

    def stalled(self, t, now, alloc):
        """The allocation that ends t's stall: its figures."""
        length = now - t.begin
        failed = int(alloc['pfn'] is None)
        order = alloc['order']
        for scope in ['all'] + (['order.%d' % order]
                                if 0 <= order <= MAX_ORDER else []):
            o = self.out
            o[scope + '.stalls'] += 1
            o[scope + '.failed'] += failed
            o[scope + '.total_ns'] += length
            o[scope + '.reclaim_ns'] += t.reclaim
            o[scope + '.compaction_ns'] += t.compact
            o[scope + '.reclaims'] += t.nreclaim
            o[scope + '.compactions'] += t.ncompact
            o[scope + '.pages_reclaimed'] += t.pages
            if scope != 'all':
                b = bucket(length)
                lo = 0 if b == 0 else 1 << (b - 1)
                o['%s.histogram.%d-%d' % (scope, lo, 1 << b)] += 1
            self.lengths[scope].append(length)
        for k in ('succeeded', 'failed', 'skipped'):
            self.out['compaction_attempts.' + k] += t.outcomes[k]
        key = (alloc['callsite'], order, alloc['migtype'], alloc['gfp'])
        row = self.rows[key]
        row['stalls'] += 1
        row['failed'] += failed
        row['total_ns'] += length
        row['reclaim_ns'] += t.reclaim
        row['compaction_ns'] += t.compact
        row['reclaims'] += t.nreclaim
        row['compactions'] += t.ncompact
        row['pages_reclaimed'] += t.pages
        row['compaction_succeeded'] += t.outcomes['succeeded']
        row['compaction_failed'] += t.outcomes['failed']
        self.row_max[key] = max(self.row_max[key], length)

    # --- events ---------------------------------------------------------

    def reclaim_begin(self, t, now, f):
        self.out['events.direct_reclaims'] += 1
        self.attempt(t, now, int(f['order']), f['gfp_flags'])
        t.where, t.phase = 'reclaim', now
        t.nreclaim += 1

    def reclaim_end(self, t, now, f):
        pages = int(f['nr_reclaimed'])
        self.out['events.direct_reclaim_ends'] += 1
        self.out['events.direct_pages_reclaimed'] += pages
        if not t.open:
            self.open_stall(t, now, None, None, True)
            t.nreclaim, t.pages = 1, pages
        elif t.where == 'reclaim':
            t.reclaim += now - t.phase
            t.pages += pages
            t.where = 'wait'
        else:
            if t.where == 'compact':
                self.end_attempt_no_page(t)
            self.out['apart.unpaired'] += 1

    def compact_try(self, t, now, f):
        self.out['events.compaction_attempts'] += 1
        self.attempt(t, now, int(f['order']), f['gfp_mask'])
        t.where, t.phase, t.last, t.worked = 'compact', now, now, False
        t.ncompact += 1
        t.vm_worked = False

    def compact_work(self, t, now):
        if t.open and t.where == 'compact':
            t.last, t.worked = now, True
            if not t.vm_worked:
                self.out['vm.attempts_worked'] += 1
                t.vm_worked = True

    def alloc(self, t, now, a):
        if not t.open:
            return
        ends = t.where != 'reclaim' and (
            (t.partial and t.order is None) or
            (a['order'], a['gfp']) == (t.order, t.gfp))
        if not ends:
            self.out['events.nested_allocations'] += 1
            return
        if t.where == 'compact':
            if a['pfn'] is not None:
                self.end_attempt(t, 'succeeded')
            else:
                self.end_attempt_no_page(t)
        if t.partial:
            self.out['apart.begun_before'] += 1
        else:
            self.stalled(t, now, a)
        t.open = False

    def memcg_begin(self, t, now, f, site):
        self.out['events.memcg_reclaims'] += 1
        if t.memcg:
            self.out['apart.unpaired'] += 1
        t.memcg = (now, site, f['gfp_flags'])

    def memcg_end(self, t, now, f):
        pages = int(f['nr_reclaimed'])
        self.out['events.memcg_reclaim_ends'] += 1
        self.out['events.memcg_pages_reclaimed'] += pages
        if not t.memcg:
            self.out['apart.memcg_begun_before'] += 1
            return
        begin, site, gfp = t.memcg
        t.memcg = None
        length = now - begin
        row = self.memcg_rows[(site, gfp)]
        row['reclaims'] += 1
        row['total_ns'] += length
        row['pages_reclaimed'] += pages
        self.memcg_max[(site, gfp)] = max(self.memcg_max[(site, gfp)], length)
        self.memcg_lengths.append(length)
        self.out['memcg.pages_reclaimed'] += pages

    def wake(self, kind, f):
        order = int(f['order'])
        if order < -1 or order > MAX_ORDER:
            order = MAX_ORDER
        self.out['wakeups.%d.%s' % (order, kind)] += 1

    def event(self, tid, now, name, text, chain):
        t = self.tasks[tid]
        # Most events are allocations of tasks with no stall open.
        if name == 'kmem:mm_page_alloc' and not t.open:
            return
        f = fields(text)
        if name == 'kmem:mm_page_alloc':
            pfn = f['pfn']
            self.alloc(t, now, {
                'order': int(f['order']),
                'gfp': f['gfp_flags'],
                'migtype': MIGTYPES[int(f['migratetype'])]
                if 0 <= int(f['migratetype']) < len(MIGTYPES)
                else 'type ' + f['migratetype'],
                'pfn': None if pfn in ('0x0', '0xffffffffffffffff') else pfn,
                'callsite': callsite(chain, ALLOCATOR),
            })
        elif name == 'vmscan:mm_vmscan_direct_reclaim_begin':
            self.reclaim_begin(t, now, f)
        elif name == 'vmscan:mm_vmscan_direct_reclaim_end':
            self.reclaim_end(t, now, f)
        elif name == 'compaction:mm_compaction_try_to_compact_pages':
            self.compact_try(t, now, f)
        elif name == 'compaction:mm_compaction_begin':
            if t.open and t.where == 'compact':
                self.out['events.direct_compaction_runs'] += 1
            self.compact_work(t, now)
        elif name in ('compaction:mm_compaction_end',
                      'compaction:mm_compaction_deferred'):
            self.compact_work(t, now)
        elif name == 'vmscan:mm_vmscan_memcg_reclaim_begin':
            self.memcg_begin(t, now, f, callsite(chain, ALLOCATOR | MEMCG))
        elif name == 'vmscan:mm_vmscan_memcg_reclaim_end':
            self.memcg_end(t, now, f)

    def any_task(self, name, text):
        """The events counted whichever task ran them."""
        if name == 'compaction:mm_compaction_begin':
            self.out['events.compaction_runs'] += 1
        elif name == 'compaction:mm_compaction_end':
            self.out['events.compaction_run_ends'] += 1
            self.out['events.status.' + fields(text)['status']] += 1
        elif name == 'compaction:mm_compaction_deferred':
            self.out['events.compaction_deferred'] += 1
        elif name in WAKES:
            self.wake(WAKES[name], fields(text))

    # --- the end --------------------------------------------------------

    def finish(self):
        o = self.out
        for t in self.tasks.values():
            if t.memcg:
                o['apart.memcg_not_ended'] += 1
            if t.open:
                if t.where == 'compact':
                    self.end_attempt_no_page(t)
                o['apart.not_ended'] += 1
        for scope, lengths in self.lengths.items():
            lengths.sort()
            n = len(lengths)
            o[scope + '.mean_ns'] = o[scope + '.total_ns'] // n
            o[scope + '.max_ns'] = lengths[-1]
            for p in (50, 90, 99):
                o['%s.p%d_ns' % (scope, p)] = rank(lengths, p)
        m = self.memcg_lengths
        o['memcg.reclaims'] = len(m)
        o['memcg.total_ns'] = sum(m)
        o['memcg.mean_ns'] = sum(m) // len(m) if m else 0
        o['memcg.max_ns'] = max(m) if m else 0
        for key, row in self.rows.items():
            name = 'row.%s.%d.%s.%s.' % key
            for k, v in row.items():
                o[name + k] = v
            o[name + 'mean_ns'] = row['total_ns'] // row['stalls']
            o[name + 'max_ns'] = self.row_max[key]
        for key, row in self.memcg_rows.items():
            name = 'memcg_row.%s.%s.' % key
            for k, v in row.items():
                o[name + k] = v
            o[name + 'mean_ns'] = row['total_ns'] // row['reclaims']
            o[name + 'max_ns'] = self.memcg_max[key]
        o['nr_rows'] = len(self.rows)
        o['nr_memcg_rows'] = len(self.memcg_rows)


def script(perf, data, fields_, tids=None):
    cmd = [perf, 'script', '-i', data, '--ns', '-F', fields_]
    if tids is not None:
        cmd += ['--tid', ','.join(str(t) for t in sorted(tids))]
    return subprocess.Popen(cmd, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True,
                            errors='replace')


def count_script(perf, data):
    """Two passes: the events of any task, and which tasks stalled; then
    those tasks' events with their callchains (the allocations of all
    the others, most of a trace, need no callchain printed)."""
    c = Count()
    tids = set()
    p = script(perf, data, 'tid,time,event,trace')
    for line in p.stdout:
        if 'vmscan:' not in line and 'compaction:' not in line:
            continue
        m = LINE.match(line)
        if not m:
            continue
        tid, _, name, text = m.groups()
        if name in OWN:
            tids.add(int(tid))
        c.any_task(name, text)
    if p.wait():
        sys.exit('perf script failed')
    if tids:
        pass2(c, script(perf, data, 'tid,time,event,trace,ip,sym', tids))
    c.finish()
    return c.out


def pass2(c, p):
    pending = None
    for line in p.stdout:
        if line.startswith('\t'):
            if pending:
                parts = line.split()
                pending[4].append(parts[1] if len(parts) > 1 else parts[0])
            continue
        if pending:
            c.event(*pending)
            pending = None
        m = LINE.match(line)
        if not m or m.group(3) == 'kmem:mm_page_free':
            continue
        tid, stamp, name, text = m.groups()
        pending = [int(tid), ns_of(stamp), name, text, []]
    if pending:
        c.event(*pending)
    if p.wait():
        sys.exit('perf script failed')


# --- what perf kmem stat says ---------------------------------------------

DIST = ('stalls', 'failed', 'total_ns', 'mean_ns', 'p50_ns', 'p90_ns',
        'p99_ns', 'max_ns', 'reclaim_ns', 'compaction_ns', 'reclaims',
        'compactions', 'pages_reclaimed')


def gfp_of(g):
    return '|'.join(g['names']) if g['names'] else hex(g['value'])


def members(out, name, row, skip=()):
    for k, v in row.items():
        if isinstance(v, int) and not isinstance(v, bool) and k not in skip:
            out[name + k] = v


def json_lines(path):
    s = json.load(open(path))['page']['stalls']
    out = collections.Counter()
    if s['status'] != 'analysed':
        return out
    for k in DIST:
        out['all.' + k] = s['all'][k]
    for d in s['by_order']['rows']:
        members(out, 'order.%d.' % d['order'], d, ('order',))
    for h in s['histogram']['rows']:
        out['order.%d.histogram.%d-%d' % (h['order'], h['lo_us'],
                                          h['hi_us'])] = h['stalls']
    for part in ('compaction_attempts', 'apart', 'events', 'memcg'):
        members(out, part + '.', s[part])
    for st in s['compaction_ends']['rows']:
        out['events.status.' + st.get('name', str(st['value']))] = st['count']
    for w in s['wakeups']['rows']:
        members(out, 'wakeups.%d.' % w['order'], w, ('order',))
    for r in s['callers']['rows']:
        members(out, 'row.%s.%d.%s.%s.' % (r['callsite']['name'], r['order'],
                                           r['migration_type']['name'],
                                           gfp_of(r['gfp'])), r, ('order',))
    for r in s['memcg_callers']['rows']:
        members(out, 'memcg_row.%s.%s.' % (r['callsite']['name'],
                                           gfp_of(r['gfp'])), r)
    out['nr_rows'] = s['callers']['nr_rows']
    out['nr_memcg_rows'] = s['memcg_callers']['nr_rows']
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('-i', help='the perf.data to count')
    ap.add_argument('--perf', default='perf')
    ap.add_argument('--json', help="perf kmem stat --page --json's document")
    a = ap.parse_args()
    if bool(a.i) == bool(a.json):
        ap.error('give -i or --json')
    out = json_lines(a.json) if a.json else count_script(a.perf, a.i)
    for k in sorted(out):
        if out[k] or k.endswith(('.stalls', 'nr_rows', 'nr_memcg_rows')):
            print(k, out[k])


if __name__ == '__main__':
    main()
