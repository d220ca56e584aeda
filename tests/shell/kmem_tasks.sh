#!/bin/bash
# perf kmem stat --page by task: --pid, --tid, --comm and -s comm, -s pid (exclusive)
# SPDX-License-Identifier: GPL-2.0
#
# Records a shell that allocates, then exec's another program, which
# allocates again: one process, two command names.  Checks against a count
# of perf script's lines (its own thread tracking names each sample):
# - -s comm and -s pid: the hits and bytes of every command and every
#   process, over all rows, and the exec'ed process under both its names,
#   each with the allocations it made under that name;
# - --comm, --pid and --tid: the allocations, failures and frees of the
#   summary, the frees being those of pages the chosen tasks allocated in
#   the trace (a replay of perf script's events in time order);
# - a task that never appears: one line, exit 1;
# - perf record's own process: none of its allocations in the trace (its
#   frees are), and with --include-perf, those of it writing perf.data.

set -u

# shellcheck source-path=SCRIPTDIR source=lib/kmem_common.sh
. "$(dirname "$0")/lib/kmem_common.sh"
kmem_need_tracepoints

kmem_scratch tasks
data="$dir/perf.data"

# Names of our own, so that the count cannot be other tasks'.
cp "$(readlink -f /bin/sh)" "$dir/kmemtest-sh"
cp "$(command -v dd)" "$dir/kmemtest-dd"
kmem_record_or_skip "$data" --page -- "$dir/kmemtest-sh" -c \
	"echo \$PPID >$dir/perf-pid; cat /usr/bin/* >/dev/null 2>&1; echo \$\$ >$dir/pid;
	 exec $dir/kmemtest-dd if=/dev/zero of=$dir/zero bs=1M count=64"
pid=$(cat "$dir/pid")

perf script -i "$data" --show-task-events -F pid,tid,comm,event,trace 2>/dev/null \
	>"$dir/script" ||
	fail "perf script"
for key in comm pid; do
	perf kmem stat --page --caller -s "$key,bytes" -l 1000000 --json \
		-i "$data" >"$dir/by-$key.json" 2>"$dir/err" ||
		fail "-s $key: $(tail -n 1 "$dir/err")"
done
filters="comm:--comm=kmemtest-dd pid:--pid=$pid tid:--tid=$pid"
for f in $filters; do
	perf kmem stat --page --json "${f#*:}" -i "$data" \
		>"$dir/filter-${f%%:*}.json" 2>"$dir/err" ||
		fail "${f#*:}: $(tail -n 1 "$dir/err")"
done

# A task that never appears: one line, exit 1.
if perf kmem stat --page --comm no-such-task -i "$data" >/dev/null 2>"$dir/err"; then
	fail "--comm no-such-task: exit 0"
elif [ "$(grep -c . "$dir/err")" -ne 1 ] ||
     ! grep -q "no page allocation in .* of the tasks of --comm no-such-task" "$dir/err"; then
	fail "--comm no-such-task: $(head -n 2 "$dir/err")"
else
	echo "ok   --comm no-such-task: $(cat "$dir/err")"
fi

# perf record's own process (the parent of the command it runs): none
# of its allocations by default; its frees stay, of every task's pages.
# With --include-perf, its allocations writing perf.data are there.
perf_pid=$(cat "$dir/perf-pid")
# Events of any thread of it: the pid/tid field, with or without a comm
# before it, then the event.
perf_events() {
	awk -v p="$perf_pid" '{
		for (i = 1; i < NF && $i !~ /^[0-9]+\/[0-9]+$/; i++)
			;
		if (i < NF && index($i, p "/") == 1)
			n[$(i + 1)]++
	     }
	     END { printf "%d allocations, %d frees",
			  n["kmem:mm_page_alloc:"], n["kmem:mm_page_free:"] }' \
		"$1"
}
got=$(perf_events "$dir/script")
case $got in
"0 allocations, "*)
	if perf kmem stat --page --pid "$perf_pid" -i "$data" >/dev/null 2>"$dir/err" ||
	   ! grep -q "no page allocation in .* of the tasks of --pid $perf_pid" "$dir/err"; then
		fail "--pid $perf_pid (perf record): $(head -n 1 "$dir/err")"
	else
		echo "ok   perf record (pid $perf_pid) excluded: $got in perf script"
	fi ;;
*)	fail "perf record (pid $perf_pid) not excluded: $got in perf script" ;;
esac
kmem_record_or_skip "$dir/incl.data" --page --include-perf -- sh -c \
	"echo \$PPID >$dir/perf-pid; dd if=/dev/zero of=$dir/zero bs=1M count=16 2>/dev/null"
perf_pid=$(cat "$dir/perf-pid")
perf script -i "$dir/incl.data" -F pid,tid,event 2>/dev/null >"$dir/incl.script"
got=$(perf_events "$dir/incl.script")
want=$(perf kmem stat --page --pid "$perf_pid" --json -i "$dir/incl.data" 2>/dev/null |
	python3 -c 'import json, sys
print(json.load(sys.stdin)["page"]["summary"]["total_allocations"]["count"])')
what="--include-perf: perf record (pid $perf_pid)"
case $got in
"0 allocations, "*) fail "$what has $got in perf script" ;;
"$want allocations, "*) echo "ok   $what has $got, as --pid counts" ;;
*)	fail "$what: --pid counts ${want:-none}, perf script $got" ;;
esac

python3 - "$dir" "$pid" <<'PYEOF' || err=1
import collections
import json
import re
import sys

d, pid = sys.argv[1], int(sys.argv[2])
PAGE = 4096
# "  kmemtest-dd  1234/1234  kmem:mm_page_alloc: page=... pfn=0x1234 order=0 ..."
LINE = re.compile(r'^\s*(.*?)\s+(\d+)/(\d+)\s+kmem:(mm_page_alloc|mm_page_free):.*?'
                  r'pfn=(0x[0-9a-f]+|-1|\d+)\s+order=(\d+)')
# "  ls  2788/2788  PERF_RECORD_COMM exec: ls:2788/2788"
TASK = re.compile(r'^\s*(.*?)\s+(\d+)/(\d+)\s+PERF_RECORD_(\w+)(.*)$')
events = []
# perf script names a thread it met before any COMM of it ':TID', and
# one past its EXIT too (it forgets the thread there; perf kmem keeps it,
# as perf report does).  perf kmem names the allocations of such a thread
# by its latest name before them, or the first one after: 'named' has
# each successful allocation's name so, and its order.
named = []
last_name = {}
unnamed_of = collections.defaultdict(list)


def see_name(tid, comm):
    last_name[tid] = comm
    for i in unnamed_of.pop(tid, ()):
        named[i][0] = comm


for line in open(f'{d}/script'):
    m = LINE.match(line)
    if m:
        comm, p, t, ev, pfn, order = m.groups()
        pfn = -1 if pfn == '-1' else int(pfn, 0)
        events.append((comm, int(p), int(t), ev, pfn, int(order)))
        t = int(t)
        if not comm.startswith(':'):
            see_name(t, comm)
        if ev == 'mm_page_alloc' and pfn != -1:
            named.append([last_name.get(t, comm), int(order)])
            if named[-1][0].startswith(':'):
                unnamed_of[t].append(len(named) - 1)
        continue
    m = TASK.match(line)
    if m and m.group(4) in ('COMM', 'EXIT'):
        comm = m.group(1)
        if m.group(4) == 'COMM':
            comm = m.group(5).split(':', 1)[1].strip().rsplit(':', 1)[0]
        if not comm.startswith(':'):
            see_name(int(m.group(3)), comm)
ok = True


def fail(msg):
    global ok
    print('FAIL:', msg)
    ok = False


def alloc_counts(key):
    """hits and bytes of successful allocations per key, by perf script."""
    c = collections.defaultdict(lambda: [0, 0])
    if key == 'named':
        for comm, order in named:
            c[comm][0] += 1
            c[comm][1] += PAGE << order
        return c
    for comm, p, t, ev, pfn, order in events:
        if ev == 'mm_page_alloc' and pfn != -1:
            k = comm if key == 'comm' else p
            c[k][0] += 1
            c[k][1] += PAGE << order
    return c


# Our workload's processes: the ones that ran under our names.
ours_pids = {p for comm, p, *_ in events
             if comm in ('kmemtest-sh', 'kmemtest-dd', 'cat')}
unnamed = sum(1 for comm, p, t, ev, pfn, order in events
              if comm.startswith(':') and ev == 'mm_page_alloc' and p in ours_pids)
nr_named = sum(1 for comm, p, t, ev, pfn, order in events
               if comm.startswith(':') and ev == 'mm_page_alloc' and pfn != -1)


for key in ('comm', 'pid'):
    doc = json.load(open(f'{d}/by-{key}.json'))
    ours = collections.defaultdict(lambda: [0, 0])
    rows = doc['page']['callers']['rows']
    if len(rows) != doc['page']['callers']['nr_rows']:
        fail(f'-s {key}: not all rows in the JSON')
    for r in rows:
        ours[r[key]][0] += r['hits']
        ours[r[key]][1] += r['bytes']
    want = alloc_counts('named' if key == 'comm' else key)
    for d_ in (ours, want):
        for name in [n for n in d_ if str(n).startswith(':')]:
            del d_[name]
    keys = set(ours) | set(want)
    diff = {k: (ours.get(k), want.get(k)) for k in keys if ours.get(k) != want.get(k)}
    if diff:
        fail(f'-s {key}: (ours, perf script) differ for {len(diff)} of '
             f'{len(want)}: {list(diff.items())[:4]}')
    else:
        print(f'ok   -s {key}: {len(want)} {key}s, hits and bytes of each as '
              f'perf script counts' +
              (f' ({nr_named} it could not name, by their thread\'s name)'
               if key == 'comm' else ''))

# The exec'ed process under both its names.
names = {comm for comm, p, t, ev, pfn, order in events
         if p == pid and ev == 'mm_page_alloc'}
for name in ('kmemtest-sh', 'kmemtest-dd'):
    if name not in names:
        fail(f'perf script has no allocation of {name} (pid {pid})')
by_comm = alloc_counts('comm')
if not ok:
    pass
elif by_comm['kmemtest-sh'][0] and by_comm['kmemtest-dd'][0]:
    print(f'ok   pid {pid} exec\'ed: {by_comm["kmemtest-sh"][0]} allocations as '
          f'kmemtest-sh, {by_comm["kmemtest-dd"][0]} as kmemtest-dd')


def replay(chosen):
    """Summary numbers of the allocations of tasks chosen(comm, pid, tid)."""
    live, n = {}, collections.Counter()
    for comm, p, t, ev, pfn, order in events:
        if ev == 'mm_page_alloc':
            if not chosen(comm, p, t):
                continue
            if pfn == -1:
                n['fail'] += 1
                continue
            n['alloc'] += 1
            n['alloc_bytes'] += PAGE << order
            live[pfn] = order
        elif pfn in live:
            n['free'] += 1
            n['free_bytes'] += PAGE << order
            del live[pfn]
    return n


tests = {
    'comm': lambda c, p, t: c == 'kmemtest-dd',
    'pid': lambda c, p, t: p == pid,
    'tid': lambda c, p, t: t == pid,
}
for name, chosen in tests.items():
    s = json.load(open(f'{d}/filter-{name}.json'))['page']['summary']
    want = replay(chosen)
    got = {
        'alloc': s['total_allocations']['count'],
        'alloc_bytes': s['total_allocations']['bytes'],
        'fail': s['failures']['count'],
        'free': s['total_frees']['count'],
        'free_bytes': s['total_frees']['bytes'],
    }
    want = {k: want[k] for k in got}
    slack = unnamed if name == 'comm' else 0
    if any(abs(got[k] - want[k]) > slack * (4096 << 10 if 'bytes' in k else 1)
           for k in got):
        fail(f'--{name}: ours {got}, perf script {want}')
    elif not got['alloc']:
        fail(f'--{name}: no allocation: the test proves nothing')
    else:
        print(f'ok   --{name}: {got["alloc"]} allocations, {got["free"]} of them freed, '
              f'{got["fail"]} failures, as perf script counts')
sys.exit(0 if ok else 1)
PYEOF

kmem_result "kmem tasks test"
