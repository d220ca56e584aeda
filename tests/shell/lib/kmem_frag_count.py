#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Count what perf kmem's fragmentation analysis should say, independently.

    kmem_frag_count.py [--perf PERF] [--pageblock-order N] [--page-size B]
                       [--events FILE] -i perf.data

Reads 'perf script -F event,trace,ip,sym' of a recording of
kmem:mm_page_alloc_extfrag (with callchains), kmem:mm_page_alloc and
kmem:mm_page_free, and prints one "key value" line per number, sorted:

  frag.events.extfrag N          frag.events.alloc N     frag.events.free N
  frag.pageblock_order N
  frag.fallbacks N               frag.fallbacks.bytes B
  frag.claimed N                 frag.claimed.bytes B      (and converted,
  frag.severe N                  frag.severe.bytes B        polluted)
  frag.matrix.REQ.FB.CLASS N     one per non-zero cell and class; REQ and FB
  frag.matrix.REQ.FB.fallbacks N   are Unmovable Reclaimable Movable Special
  frag.caller.CS.fallbacks N     per callsite, all types: also .claimed,
  frag.caller.CS.fragmenting N     .converted, .polluted, .severe, .bytes
  frag.row.CS.TYPE.FBTYPE.K N    the fallback table's rows, K as above
  frag.top.I CS                  callsites by fragmenting, then fallbacks,
                                   then name (I from 1, the first 10)
  frag.alloc.COL N               successful allocations by column, and
  frag.alloc.COL.bytes B           their bytes
  frag.blocks.allocated N        pageblocks that got a successful allocation
  frag.blocks.COL N              ...of that column
  frag.blocks.unmovable_or_reclaimable N
  frag.blocks.mixed N            ...of more than one column
  frag.blocks.fallback_only N    pageblocks fallen back into, no allocation
  frag.fail N                    failed allocations, and bytes asked for
  frag.fail.bytes B
  frag.fail.CS.ORDER.TYPE.GFP N  one per failure row, and its .bytes
  frag.bad.extfrag N             events no kernel traces (counted nowhere
  frag.bad.alloc N                 else), printed when not zero

The rules, restated from the issue and not from perf's code:
- a fallback's class comes from the raw fields: claimed when
  fallback_order >= pageblock_order, else converted when change_ownership
  is 1, else polluted (never from the printed fragmenting=, which
  libtraceevent gets wrong); severe when fallback_order <= 3; its bytes
  are page_size << alloc_order;
- migration types are v4.4's and later: 0 Unmovable, 1 Movable,
  2 Reclaimable, the rest Special in the matrix;
- the callsite is the first frame of the event's own callchain that is not
  an allocator function: the functions 'perf kmem stat --page -v' lists
  as "alloc func: NAME" (or those of --alloc-funcs FILE, one a line);
- a failed allocation prints pfn=0x0 (the raw -1UL);
- a block of 2^order pages at pfn lies in the pageblocks pfn >> pbo and,
  when order > pbo, the 2^(order - pbo) - 1 after it.

--folded PREFIX also writes PREFIX.fallbacks and PREFIX.fragmenting,
what 'perf kmem stat --page --folded=fallbacks' and '=fragmenting' should
write: one "chain count" line per distinct callchain of the extfrag
events that are counted (converted and polluted ones only in the
second), its frames root first, the leading allocator frames dropped, ';'
and blanks in a name made '_', chains left with no frame not written.

--tasks FILE also reads the pid and tid of each event and writes to FILE
what 'perf kmem stat --page --caller -s frag,pid' should give, "key value":

  task.PID.CS.REQ.FB.K N         the fallback table's rows by pid, K
                                   fallbacks, bytes or a class (the JSON
                                   has no severe)
  alloc.PID.CS.ORDER.MT.fragmenting N   the fragmenting fallbacks of the
                                   allocation rows (over all GFP flags):
                                   each converted or polluted fallback
                                   belongs to the next mm_page_alloc of
                                   its thread, and counts if that one
                                   succeeded
  alloc.PID.CS.ORDER.MT.hits N   the successful allocations of the rows
  pinned.PID.CS.K N              the pages that fell back and stay, by pid
  pinned.all.K N                   and callsite, and in all, K pages,
                                   bytes or pageblocks

and prints frag.pinned.K and frag.pinned.caller.CS.K (all tasks) too.  A page
fell back and stays when it is still allocated at the end (no free of its
pfn, no allocation of it again after it) and its mm_page_alloc is the
next of its thread after a converted or polluted fallback of an Unmovable
or Reclaimable request into a Movable pageblock, the first such since the
thread's allocation before, and the page lies in that fallback's
pageblock; its pageblocks are the distinct pfn >> pageblock_order of such
pages.

--events FILE also writes the decoded events, one a line, for a replay
through the engine: "F pfn callsite_id alloc_order fallback_order
alloc_mt fallback_mt change_ownership" and "A pfn order mt gfp_id
callsite_id" (pfn -1 for a failure), then "C id name" and "G id gfp".
"""

import argparse
import os
import re
import subprocess
import sys

COLUMNS = ('Unmovable', 'Reclaimable', 'Movable', 'Special')
CLASSES = ('claimed', 'converted', 'polluted')
MAX_ORDER = 31
MAX_SPAN_SHIFT = 10


def column(mt):
    return {0: 'Unmovable', 1: 'Movable', 2: 'Reclaimable'}.get(mt, 'Special')


def type_name(mt):
    names = ('Unmovable', 'Movable', 'Reclaimable', 'HighAtomic',
             'CMA/Isolate', 'Isolate')
    return names[mt] if 0 <= mt < len(names) else 'type %d' % mt


def fields(words):
    out = {}
    for w in words:
        k, sep, v = w.partition('=')
        if sep:
            out[k] = v
    return out


def alloc_funcs(perf, data, path):
    if path:
        with open(path) as f:
            return {line.strip() for line in f if line.strip()}
    out = subprocess.run([perf, 'kmem', 'stat', '--page', '-v', '-i', data],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         universal_newlines=True, check=False).stdout
    funcs = set()
    for line in out.splitlines():
        if line.startswith('alloc func: '):
            funcs.add(line[len('alloc func: '):].strip())
    if not funcs:
        sys.exit('kmem_frag_count: perf kmem stat --page -v listed no '
                 'allocator functions')
    return funcs


class Counter:
    def __init__(self, pbo, page_size, funcs, events_out):
        self.pbo = pbo
        self.ps = page_size
        self.funcs = funcs
        self.n = {}                 # key -> number
        self.blocks = {}            # first pfn -> [set of columns, fallbacks]
        self.ev = events_out
        self.ids = {}
        self.gfps = {}
        self.pending = None         # the sample whose callchain is read
        self.stack = None           # an extfrag's class and its frames
        self.tasks = None           # with --tasks: key -> number
        self.task = None            # (pid, tid) of the sample read
        self.owed = {}              # tid -> fragmenting fallbacks pending
        self.owed_block = {}        # tid -> pageblock of its first pinning one
        self.owed_cs = {}           # tid -> the callsite of those owed
        self.live = {}              # pfn -> (fell back, pid, order) with --tasks
        self.live_cs = {}           # pfn -> its allocation's callsite
        self.folded = {'fallbacks': {}, 'fragmenting': {}}

    def add(self, key, v=1):
        self.n[key] = self.n.get(key, 0) + v

    def cs_id(self, name):
        return self.ids.setdefault(name, len(self.ids) + 1)

    def spans(self, pfn, order):
        if self.pbo is None:
            return []
        first = pfn >> self.pbo
        n = 1 << (order - self.pbo) if order > self.pbo else 1
        return [(first + i) << self.pbo for i in range(n)]

    def extfrag(self, f):
        try:
            pfn = int(f['pfn'], 16)
            ao, fo = int(f['alloc_order']), int(f['fallback_order'])
            amt = int(f['alloc_migratetype'])
            fmt = int(f['fallback_migratetype'])
            co = int(f['change_ownership'])
        except (KeyError, ValueError):
            self.add('frag.bad.extfrag')
            return
        if 'pageblock_order' in f and self.pbo is not None and \
           int(f['pageblock_order']) != self.pbo:
            self.add('frag.pageblock_order_differs')
        if not (0 <= ao <= MAX_ORDER and ao <= fo <= MAX_ORDER and
                co in (0, 1) and pfn != 0 and
                (self.pbo is None or fo - self.pbo <= MAX_SPAN_SHIFT)):
            self.add('frag.bad.extfrag')
            return
        self.pending = ('F', pfn, ao, fo, amt, fmt, co)
        cls = None
        if self.pbo is not None:
            cls = 'claimed' if fo >= self.pbo else \
                  'converted' if co else 'polluted'
        self.stack = (cls, [])

    def fold(self):
        """The folded line of the extfrag whose frames were just read."""
        if self.stack is None:
            return
        cls, frames = self.stack
        self.stack = None
        i = 0
        while i < len(frames) and frames[i] in self.funcs:
            i += 1
        if i == len(frames):
            return
        chain = ';'.join(re.sub(r'[;\s]', '_', f) for f in reversed(frames[i:]))
        kinds = ['fallbacks']
        if cls in ('converted', 'polluted'):
            kinds.append('fragmenting')
        for k in kinds:
            self.folded[k][chain] = self.folded[k].get(chain, 0) + 1

    def settle_extfrag(self, cs):
        _, pfn, ao, fo, amt, fmt, co = self.pending
        b = self.ps << ao
        cls = None
        if self.pbo is not None:
            cls = 'claimed' if fo >= self.pbo else \
                  'converted' if co else 'polluted'
        keys = ['frag.fallbacks', 'frag.caller.%s.fallbacks' % cs,
                'frag.row.%s.%s.%s.fallbacks' % (cs, type_name(amt),
                                                 type_name(fmt)),
                'frag.matrix.%s.%s.fallbacks' % (column(amt), column(fmt))]
        if fo <= 3:
            keys += ['frag.severe', 'frag.caller.%s.severe' % cs,
                     'frag.row.%s.%s.%s.severe' % (cs, type_name(amt),
                                                   type_name(fmt))]
            self.add('frag.severe.bytes', b)
        if cls:
            keys += ['frag.' + cls, 'frag.caller.%s.%s' % (cs, cls),
                     'frag.row.%s.%s.%s.%s' % (cs, type_name(amt),
                                               type_name(fmt), cls),
                     'frag.matrix.%s.%s.%s' % (column(amt), column(fmt), cls)]
            self.add('frag.%s.bytes' % cls, b)
            if cls != 'claimed':
                keys.append('frag.caller.%s.fragmenting' % cs)
        for k in keys:
            self.add(k)
        if self.tasks is not None:
            pid, tid = self.task
            row = 'task.%d.%s.%s.%s' % (pid, cs, type_name(amt),
                                        type_name(fmt))
            for k in ['fallbacks', 'bytes'] + ([cls] if cls else []):
                self.tasks[row + '.' + k] = \
                    self.tasks.get(row + '.' + k, 0) + (b if k == 'bytes' else 1)
            if cls in ('converted', 'polluted'):
                # Of another callsite: those owed were a bulk
                # allocation's, which traces no mm_page_alloc.
                if self.owed_cs.get(tid, cs) != cs:
                    self.owed.pop(tid, None)
                    self.owed_block.pop(tid, None)
                self.owed_cs[tid] = cs
                self.owed[tid] = self.owed.get(tid, 0) + 1
                if column(amt) in ('Unmovable', 'Reclaimable') and \
                   column(fmt) == 'Movable' and tid not in self.owed_block:
                    self.owed_block[tid] = pfn >> self.pbo
        self.add('frag.fallbacks.bytes', b)
        self.add('frag.caller.%s.bytes' % cs, b)
        self.add('frag.row.%s.%s.%s.bytes' % (cs, type_name(amt),
                                               type_name(fmt)), b)
        for first in self.spans(pfn, fo):
            self.blocks.setdefault(first, [set(), 0])[1] += 1
        if self.ev:
            self.ev.write('F %d %d %d %d %d %d %d\n' %
                          (pfn, self.cs_id(cs), ao, fo, amt, fmt, co))

    def alloc(self, f):
        # The fallbacks owed go to this allocation if it has their
        # callsite (settle_success() knows), and are gone either way.
        owed = self.owed.pop(self.task[1], 0) if self.tasks is not None else 0
        block = self.owed_block.pop(self.task[1], None) \
            if self.tasks is not None else None
        owed_cs = self.owed_cs.pop(self.task[1], None) \
            if self.tasks is not None else None
        try:
            pfn = int(f['pfn'], 16)
            order, mt = int(f['order']), int(f['migratetype'])
            gfp = f.get('gfp_flags', '')
        except (KeyError, ValueError):
            self.add('frag.bad.alloc')
            return
        if not 0 <= order <= MAX_ORDER or \
           (pfn and self.pbo is not None and
                order - self.pbo > MAX_SPAN_SHIFT):
            self.add('frag.bad.alloc')
            return
        b = self.ps << order
        if pfn == 0:
            self.pending = ('A', order, mt, gfp)
            return
        if self.tasks is not None:
            self.pending = ('S', order, mt, owed, owed_cs)
            self.live[pfn] = (block is not None and pfn >> self.pbo == block,
                              self.task[0], order)
            self.live_cs[pfn] = None
            self.last_pfn = pfn
        self.add('frag.alloc.' + column(mt))
        self.add('frag.alloc.%s.bytes' % column(mt), b)
        for first in self.spans(pfn, order):
            self.blocks.setdefault(first, [set(), 0])[0].add(column(mt))
        if self.ev:
            self.ev.write('A %d %d %d %d 0\n' %
                          (pfn, order, mt, self.gfps.setdefault(
                              gfp, len(self.gfps) + 1)))

    def free(self, f):
        try:
            pfn = int(f['pfn'], 16)
        except (KeyError, ValueError):
            return
        self.live.pop(pfn, None)

    def pinned(self):
        """The pages that fell back and stay, by pid and callsite."""
        if self.tasks is None or self.pbo is None:
            return
        rows = {}
        for pfn, (fell_back, pid, order) in self.live.items():
            if not fell_back:
                continue
            cs = self.live_cs.get(pfn) or '(unknown)'
            for key in ('pinned.%d.%s' % (pid, cs), 'pinned.all',
                        'frag.pinned.caller.' + cs, 'frag.pinned'):
                r = rows.setdefault(key, [0, 0, set()])
                r[0] += 1
                r[1] += self.ps << order
                r[2].add(pfn >> self.pbo)
        for key, (pages, nbytes, blocks) in rows.items():
            out = self.n if key.startswith('frag.') else self.tasks
            out[key + '.pages'] = pages
            out[key + '.bytes'] = nbytes
            out[key + '.pageblocks'] = len(blocks)

    def settle_failure(self, cs):
        _, order, mt, gfp = self.pending
        b = self.ps << order
        key = 'frag.fail.%s.%d.%s.%s' % (cs, order, type_name(mt), gfp)
        self.add('frag.fail')
        self.add('frag.fail.bytes', b)
        self.add(key)
        self.add(key + '.bytes', b)
        if self.ev:
            self.ev.write('A -1 %d %d %d %d\n' %
                          (order, mt, self.gfps.setdefault(
                              gfp, len(self.gfps) + 1), self.cs_id(cs)))

    def settle_success(self, cs):
        _, order, mt, owed, owed_cs = self.pending
        self.live_cs[self.last_pfn] = cs
        if owed and owed_cs != cs:
            owed = 0
            fell_back, pid, o = self.live[self.last_pfn]
            self.live[self.last_pfn] = (False, pid, o)
        row = 'alloc.%d.%s.%d.%s' % (self.task[0], cs, order, type_name(mt))
        for k, v in (('hits', 1), ('fragmenting', owed)):
            self.tasks[row + '.' + k] = self.tasks.get(row + '.' + k, 0) + v

    def settle(self, cs):
        if self.pending is None:
            return
        if self.pending[0] == 'F':
            self.settle_extfrag(cs)
        elif self.pending[0] == 'S':
            self.settle_success(cs)
        else:
            self.settle_failure(cs)
        self.pending = None

    def read(self, lines):
        """perf script output: a sample line, its frames, a blank line."""
        for line in lines:
            if line[0] == '\t':            # a frame: "\tip sym"
                words = line.split()
                if self.stack is not None and len(words) >= 2:
                    self.stack[1].append(words[1])
                if self.pending is not None:
                    if len(words) >= 2 and words[1] not in self.funcs:
                        self.settle(words[1])
                continue
            words = line.split()
            if not words:
                continue
            self.settle('(unknown)')
            self.fold()
            if self.tasks is not None:     # "pid/tid event: ..."
                if len(words) < 2 or '/' not in words[0]:
                    continue
                pid, tid = words[0].split('/')
                self.task = (int(pid), int(tid))
                words = words[1:]
            event = words[0]
            if event == 'kmem:mm_page_alloc_extfrag:':
                self.add('frag.events.extfrag')
                self.extfrag(fields(words[1:]))
            elif event == 'kmem:mm_page_alloc:':
                self.add('frag.events.alloc')
                self.alloc(fields(words[1:]))
            elif event == 'kmem:mm_page_free:':
                self.add('frag.events.free')
                self.free(fields(words[1:]))
        self.settle('(unknown)')
        self.fold()

    def finish(self):
        self.pinned()
        if self.pbo is not None:
            self.n['frag.pageblock_order'] = self.pbo
        for cols, fallbacks in self.blocks.values():
            if not cols:
                self.add('frag.blocks.fallback_only')
                continue
            self.add('frag.blocks.allocated')
            for c in cols:
                self.add('frag.blocks.' + c)
            if len(cols) > 1:
                self.add('frag.blocks.mixed')
            if cols & {'Unmovable', 'Reclaimable'}:
                self.add('frag.blocks.unmovable_or_reclaimable')
        callers = {}
        for k, v in self.n.items():
            if k.startswith('frag.caller.') and k.endswith('.fallbacks'):
                cs = k[len('frag.caller.'):-len('.fallbacks')]
                callers[cs] = (-self.n.get('frag.caller.%s.fragmenting' % cs,
                                           0), -v, cs)
        for i, (_, _, cs) in enumerate(sorted(callers.values())[:10]):
            self.n['frag.top.%d' % (i + 1)] = cs
        if self.ev:
            for name, i in self.ids.items():
                self.ev.write('C %d %s\n' % (i, name))
            for gfp, i in self.gfps.items():
                self.ev.write('G %d %s\n' % (i, gfp))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('-i', '--input', required=True)
    ap.add_argument('--perf', default='perf')
    ap.add_argument('--pageblock-order', type=int)
    ap.add_argument('--page-size', type=int, default=os.sysconf('SC_PAGESIZE'))
    ap.add_argument('--alloc-funcs')
    ap.add_argument('--events')
    ap.add_argument('--folded')
    ap.add_argument('--tasks')
    args = ap.parse_args()

    funcs = alloc_funcs(args.perf, args.input, args.alloc_funcs)
    ev = open(args.events, 'w') if args.events else None
    counter = Counter(args.pageblock_order, args.page_size, funcs, ev)
    if args.tasks:
        counter.tasks = {}
    script = subprocess.Popen([args.perf, 'script', '-i', args.input,
                               '-F', ('pid,tid,' if args.tasks else '') +
                               'event,trace,ip,sym'],
                              stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL,
                              universal_newlines=True, bufsize=1 << 20)
    counter.read(script.stdout)
    if script.wait():
        sys.exit('kmem_frag_count: perf script failed')
    counter.finish()
    if ev:
        ev.close()
    if args.tasks:
        with open(args.tasks, 'w') as f:
            for k in sorted(counter.tasks):
                if counter.tasks[k]:
                    f.write('%s %d\n' % (k, counter.tasks[k]))
    for kind, chains in counter.folded.items() if args.folded else ():
        with open('%s.%s' % (args.folded, kind), 'w') as f:
            for chain in sorted(chains):
                f.write('%s %d\n' % (chain, chains[chain]))
    for k in sorted(counter.n):
        print(k, counter.n[k])


if __name__ == '__main__':
    main()
