#!/bin/bash
# perf kmem stat --page cross-node traffic on a made-up two-node trace
# SPDX-License-Identifier: GPL-2.0
#
# Records page allocator events on this (likely one-node) machine, rewrites
# the trace's NUMA and memory topology to say two nodes with
# lib/kmem_numa_rewrite.py, and checks every cross-node number perf kmem
# prints against a computation of its own over 'perf script' output.  Also
# checks what a one-node trace and a trace without memory topology print.

# shellcheck source-path=SCRIPTDIR source=lib/kmem_common.sh
. "$(dirname "$0")/lib/kmem_common.sh"
kmem_need_tracepoints mm_page_alloc mm_page_free
kmem_need_commands python3

rewrite=$(dirname "$0")/lib/kmem_numa_rewrite.py
kmem_scratch page-numa

# Two pipes, each written on one CPU and read on the other when taskset is
# there: pipe pages are allocated by the writer and freed by the reader, so
# every cell of the rewritten trace's node matrix sees traffic.
pin0="" pin1=""
if command -v taskset >/dev/null; then
	pin0="taskset -c 0" pin1="taskset -c 1"
fi
workload="$pin0 dd if=/dev/zero bs=64k count=1000 2>/dev/null | $pin1 cat >/dev/null &
$pin1 dd if=/dev/zero bs=64k count=1000 2>/dev/null | $pin0 cat >/dev/null &
wait"

kmem_record_or_skip "${dir}/one.data" --page -- bash -c "${workload}"

ncpus=$(perf report --header-only -I -i "${dir}/one.data" 2>/dev/null |
	sed -n 's/^# nrcpus avail : //p')
if [ -z "${ncpus}" ] || [ "${ncpus}" -lt 2 ]; then
	kmem_skip "two CPUs are needed to make two nodes"
fi

perf script -F cpu,event,trace -i "${dir}/one.data" \
	>"${dir}/trace.txt" 2>/dev/null || fail "perf script on the recording"

python3 "${rewrite}" --nodes 1 --drop-mem-topology "${dir}/one.data" \
	"${dir}/nomem.data" >/dev/null || fail "kmem_numa_rewrite.py --drop-mem-topology"

# check_trace NAME NODES [kmem_numa_rewrite.py options]: make an NODES-node
# trace NAME.data and check what perf kmem says of it.
check_trace() {
	local name=$1 nodes=$2 f="${dir}/$1"

	shift 2
	echo "${nodes} nodes ($*):"
	if ! python3 "${rewrite}" --nodes "${nodes}" "$@" \
			--pfns "${dir}/trace.txt" "${dir}/one.data" \
			"${f}.data" >"${f}.topology"; then
		fail "kmem_numa_rewrite.py for ${name}"
		return
	fi
	perf script -F cpu,event,trace -i "${f}.data" 2>/dev/null |
		cmp -s - "${dir}/trace.txt" ||
		fail "perf script reads ${name}.data differently"
	perf report --header-only -I -i "${f}.data" \
		>"${f}.header" 2>&1 || fail "perf report --header-only on ${name}"
	perf kmem stat --page -i "${f}.data" >"${f}.stat" 2>&1 ||
		fail "perf kmem stat --page on ${name}"
	perf kmem stat --page --caller -l 1000000 -s xnode --json \
		-i "${f}.data" >"${f}.json" 2>"${f}.err" ||
		fail "perf kmem stat --page --caller -s xnode --json on ${name}"
	check_numbers "${f}" "${nodes}" || err=1
}

# The independent computation: replay the trace with the topology that
# perf report prints, and compare with what perf kmem said.
check_numbers() {
	python3 - "${dir}/trace.txt" "$1" "$2" "$(getconf PAGESIZE)" <<'EOF'
import json
import re
import sys

trace, f, want_nodes, page_size = sys.argv[1], sys.argv[2], \
    int(sys.argv[3]), int(sys.argv[4])
ok = True


def bad(msg):
    global ok
    ok = False
    print('FAIL: ' + msg)


def parse_list(text):
    """'0-2,5'; perf prints the empty cpu list of a memory-only node as
    '-1', kmem_numa_rewrite.py as 'none'."""
    out = set()
    if text.strip() in ('-1', 'none'):
        return out
    for part in filter(None, text.strip().split(',')):
        lo, _, hi = part.partition('-')
        out.update(range(int(lo), int(hi or lo) + 1))
    return out


# Topology as perf reads it back ...
header = open(f + '.header').read()
cpu_node = {}
for node, cpus in re.findall(r'^# node(\d+) cpu list : (.*)$', header, re.M):
    for cpu in parse_list(cpus):
        cpu_node[cpu] = int(node)
m = re.search(r'^# memory nodes \(nr (\d+), block size (0x[0-9a-f]+)\):$',
              header, re.M)
if not m:
    bad('no memory topology in the rewritten header')
    sys.exit(1)
bsize = int(m.group(2), 16)
block_node = {}
for node, blocks in re.findall(r'^#\s+(\d+) \[\w+\]: (.*)$', header, re.M):
    for block in parse_list(blocks):
        block_node[block] = int(node)

# ... must be what the rewriter says it wrote.
wrote = open(f + '.topology').read()
for node, cpus, blocks in re.findall(r'^node (\d+) cpus (\S+) blocks (\S+)$',
                                     wrote, re.M):
    if {c for c, n in cpu_node.items() if n == int(node)} != parse_list(cpus):
        bad('node %s CPUs differ from what kmem_numa_rewrite wrote' % node)
    if {b for b, n in block_node.items() if n == int(node)} != \
            parse_list(blocks):
        bad('node %s memory blocks differ from what kmem_numa_rewrite wrote' % node)
nodes = sorted(set(cpu_node.values()) | set(block_node.values()))
nr_nodes = max(nodes) + 1      # node numbers need not be dense
if len(nodes) != want_nodes:
    bad('expected %d nodes, the header has %d' % (want_nodes, len(nodes)))

ev_re = re.compile(r'^\s*\[(\d+)\]\s+kmem:(mm_page_alloc|mm_page_free):'
                   r'.*\bpfn=(0x[0-9a-f]+|\d+) order=(\d+)')
alloc_remote = [0, 0]
free_remote = [0, 0]
free_other = [0, 0]
matrix = [[0] * nr_nodes for _ in range(nr_nodes)]
live = {}       # pfn -> (allocating CPU's node, order)
nr_events = 0
for line in open(trace):
    m = ev_re.match(line)
    if not m:
        continue
    cpu, what, pfn, order = (int(m.group(1)), m.group(2),
                             int(m.group(3), 0), int(m.group(4)))
    if order > 31:
        continue
    nr_events += 1
    if what == 'mm_page_alloc' and pfn in (2**64 - 1, 2**32 - 1):
        continue        # a failed allocation
    size = page_size << order
    cnode = cpu_node.get(cpu, -1)
    pnode = block_node.get(pfn * page_size // bsize, -1)
    remote = cnode >= 0 and pnode >= 0 and cnode != pnode
    if what == 'mm_page_alloc':
        if remote:
            alloc_remote[0] += 1
            alloc_remote[1] += size
        live[pfn] = (cnode, order)
        continue
    if remote:
        free_remote[0] += 1
        free_remote[1] += size
    if pfn not in live:
        continue
    anode, aorder = live.pop(pfn)
    if anode < 0 or cnode < 0:
        continue
    matrix[anode][cnode] += page_size << aorder
    if anode != cnode:
        free_other[0] += 1
        free_other[1] += page_size << aorder

if not nr_events:
    bad('no page events in the trace')


doc = json.load(open(f + '.json'))['page']
x = doc['cross_node']
if x['status'] != 'analysed':
    bad('cross_node status %s, expected analysed' % x['status'])
    sys.exit(1)
for key, want in (('allocations_remote', alloc_remote),
                  ('frees_remote', free_remote),
                  ('freed_on_other_node', free_other)):
    got = [x[key]['count'], x[key]['bytes']]
    print('%-38s perf kmem %s, expected %s' % (key + ':', got, want))
    if got != want:
        bad('%s: perf kmem says %s, expected %s' % (key, got, want))

# The matrix: a row per allocating node, a column per freeing node.
if x['nodes'] != nodes:
    bad('matrix of nodes %s, expected %s' % (x['nodes'], nodes))
    sys.exit(1)
for i, a in enumerate(nodes):
    want = [matrix[a][t] for t in nodes]
    print('matrix row node %d: perf kmem %s, expected %s' %
          (a, x['matrix'][i], want))
    if x['matrix'][i] != want:
        bad('matrix row node %d: perf kmem says %s, expected %s' %
            (a, x['matrix'][i], want))
if sum(matrix[a][t] for a in range(nr_nodes) for t in range(nr_nodes)
       if a != t) != free_other[1]:
    bad('the matrix off the diagonal is not the bytes freed on another node')

# The text shows the same matrix: its row of the first node.
stat = open(f + '.stat').read()
first = ' '.join('.' if v == 0 else '{:,}'.format(v) for v in x['matrix'][0])
if not re.search(r'^ +node %d +%s$' % (nodes[0], re.escape(first).replace('\\ ', ' +')),
                 stat, re.M):
    bad('the text matrix has no row "node %d %s"' % (nodes[0], first))

# --caller: freed_remote of each row, sorted by it with -s xnode, adding
# up to the allocations freed on another node.
freed = [r['freed_remote'] for r in doc['callers']['rows']]
print('Freed remote sums to %d in %d rows' % (sum(freed), len(freed)))
if sum(freed) != free_other[0]:
    bad("'Freed remote' sums to %d, expected %d" % (sum(freed), free_other[0]))
if freed != sorted(freed, reverse=True):
    bad("-s xnode does not sort by 'Freed remote'")
sys.exit(0 if ok else 1)
EOF
}

check_trace two 2
# A memory-only node (CXL, PMEM): an empty cpu list in NUMA_TOPOLOGY.
check_trace three 3 --cpuless 1
# Node numbers with a hole, as some POWER machines have.
check_trace sparse 2 --node-ids 0,2

# One node, as recorded and numbered 1: a single line, no numbers.
python3 "${rewrite}" --nodes 1 --node-ids 1 "${dir}/one.data" \
	"${dir}/node1.data" >/dev/null || fail "kmem_numa_rewrite.py --node-ids 1"
for one in one node1; do
	perf kmem stat --page -i "${dir}/${one}.data" \
		>"${dir}/${one}.txt" 2>&1 ||
		fail "perf kmem stat --page on ${one}.data"
	if ! grep -q "^ All page traffic was node-local" "${dir}/${one}.txt"; then
		fail "${one}.data does not say all traffic was node-local"
	fi
	if grep -q -e "remote memory" -e 'alloc\\free' -e "Freed remote" \
			"${dir}/${one}.txt"; then
		fail "${one}.data prints cross-node numbers"
	fi
done

# No memory topology: a line saying the analysis needs it.
perf kmem stat --page -i "${dir}/nomem.data" >"${dir}/nomem.txt" 2>&1 ||
	fail "perf kmem stat --page on the trace without memory topology"
if ! grep -q "^ Cross-node analysis needs" "${dir}/nomem.txt"; then
	fail "the trace without memory topology does not say what is missing"
fi

if [ "${err}" -ne 0 ]; then
	echo "perf kmem stat --page output on the two-node trace:"
	sed -n '/CROSS-NODE/,$p' "${dir}/two.stat"
fi
kmem_result "kmem page numa test"
