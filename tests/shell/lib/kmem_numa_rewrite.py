#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Give a perf.data file a made-up NUMA topology.

Test machines mostly have one NUMA node, so the cross-node part of
'perf kmem stat --page' cannot be tried on their recordings.  This rewrites
the HEADER_NUMA_TOPOLOGY and HEADER_MEM_TOPOLOGY feature sections of a
perf.data to say that the machine had N nodes (2 by default):

  - the CPUs of the original topology, in order, are cut into N runs of
    about equal length, run k on node k (two CPUs: CPU 0 on node 0, CPU 1
    on node 1; --node-ids numbers them otherwise); with --cpuless M, the last M nodes get no CPUs, as memory
    only nodes (CXL, PMEM) have, and the CPUs go to the others;
  - the memory blocks of the original topology, in address order, are cut
    into N runs, run k on node k.  With --pfns, the cuts are placed so that
    each node holds about as many of the pfns named in that file as the
    others (any text will do: every 'pfn=0x...' in it is one pfn, so
    'perf script -F trace' output can be given as it is); without, each
    node gets about as many blocks.

Every other byte of the file is kept: the feature payloads that follow the
two rewritten ones move, and their entries in the feature section table
say where to.  --drop-mem-topology leaves MEM_TOPOLOGY out altogether, as
a perf older than 4.17 would have.  Only native-endian (little-endian)
files are handled.

The topology written is printed on stdout, one line per node:
  node N cpus LIST blocks LIST
('none' for the CPUs of a memory-only node)
with block numbers in units of the memory block size, also printed:
  block_size BYTES
"""

import argparse
import re
import struct
import sys

MAGIC = b'PERFILE2'
HEADER_FEAT_BITS = 256
# enum in tools/perf/util/header.h
HEADER_NUMA_TOPOLOGY = 14
HEADER_MEM_TOPOLOGY = 22
NAME_ALIGN = 64

# struct perf_file_header: magic, size, attr_size, then the attrs, data and
# event_types perf_file_sections (offset, size), then the feature bitmap.
FILE_HEADER = struct.Struct('<8sQQ QQ QQ QQ 32s')


class FormatError(Exception):
    pass


class Reader:
    def __init__(self, buf):
        self.buf = buf
        self.pos = 0

    def take(self, fmt):
        size = struct.calcsize(fmt)
        if self.pos + size > len(self.buf):
            raise FormatError('feature payload is truncated')
        vals = struct.unpack_from(fmt, self.buf, self.pos)
        self.pos += size
        return vals if len(vals) > 1 else vals[0]

    def string(self):
        length = self.take('<I')
        raw = self.buf[self.pos:self.pos + length]
        if len(raw) != length:
            raise FormatError('feature string is truncated')
        self.pos += length
        return raw.split(b'\0', 1)[0].decode()


def parse_cpu_list(text):
    cpus = []
    for part in filter(None, text.split(',')):
        lo, _, hi = part.partition('-')
        cpus.extend(range(int(lo), int(hi or lo) + 1))
    return cpus


def format_list(nums):
    """[0, 1, 2, 5] -> '0-2,5', as perf prints cpu lists."""
    runs = []
    for n in sorted(nums):
        if runs and runs[-1][1] == n - 1:
            runs[-1][1] = n
        else:
            runs.append([n, n])
    return ','.join(str(a) if a == b else '%d-%d' % (a, b) for a, b in runs)


def parse_numa(payload):
    """write_numa_topology(): u32 nr; nr x {u32 node, u64 total, u64 free,
    string cpus}, a string being u32 len then len bytes, NUL padded."""
    r = Reader(payload)
    nodes = []
    for _ in range(r.take('<I')):
        node, total, free = r.take('<IQQ')
        nodes.append((node, total, free, parse_cpu_list(r.string())))
    return nodes


def parse_mem(payload):
    """write_mem_topology(): u64 version (1), u64 block size, u64 nr; nr x
    {u64 node, u64 bits, bitmap}, the bitmap being written by
    do_write_bitmap(): u64 bits again, then the u64 words.  Returns the
    block size and the set block numbers."""
    r = Reader(payload)
    version, bsize, nr = r.take('<QQQ')
    if version != 1:
        raise FormatError('MEM_TOPOLOGY version %d, not 1' % version)
    blocks = set()
    for _ in range(nr):
        _node, bits, bitmap_bits = r.take('<QQQ')
        if bitmap_bits != bits:
            raise FormatError('MEM_TOPOLOGY bitmap of %d bits, not %d' %
                              (bitmap_bits, bits))
        for w in range((bits + 63) // 64):
            word = r.take('<Q')
            blocks.update(w * 64 + b for b in range(64) if word >> b & 1)
    return bsize, sorted(b for b in blocks)


def pack_string(text):
    raw = text.encode() + b'\0'
    length = -(-len(raw) // NAME_ALIGN) * NAME_ALIGN
    return struct.pack('<I', length) + raw.ljust(length, b'\0')


def pack_numa(nodes):
    out = struct.pack('<I', len(nodes))
    for node, total, free, cpus in nodes:
        out += struct.pack('<IQQ', node, total, free)
        out += pack_string(format_list(cpus))
    return out


def pack_mem(bsize, node_ids, node_blocks):
    out = struct.pack('<QQQ', 1, bsize, len(node_blocks))
    for node, blocks in zip(node_ids, node_blocks):
        bits = max(blocks) + 1 if blocks else 0
        words = [0] * ((bits + 63) // 64)
        for b in blocks:
            words[b // 64] |= 1 << (b % 64)
        out += struct.pack('<QQQ', node, bits, bits)
        out += b''.join(struct.pack('<Q', w) for w in words)
    return out


def split_evenly(items, nr):
    """Cut @items into @nr runs whose lengths differ by at most one."""
    runs, start = [], 0
    for k in range(nr):
        end = start + (len(items) - start) // (nr - k)
        runs.append(items[start:end])
        start = end
    return runs


def split_blocks(blocks, nr, weights):
    """Cut the sorted @blocks into @nr non-empty runs so that the weights
    (pfns seen per block) of the runs are as even as the blocks allow."""
    if not weights or not sum(weights.get(b, 0) for b in blocks):
        return split_evenly(blocks, nr)
    total = sum(weights.get(b, 0) for b in blocks)
    runs, start, seen = [], 0, 0
    for k in range(1, nr):
        target = total * k / nr
        end, best = start + 1, None
        # Leave at least one block for each node still to come.
        for cut in range(start + 1, len(blocks) - (nr - k) + 1):
            here = seen + sum(weights.get(b, 0) for b in blocks[start:cut])
            if best is None or abs(here - target) < best:
                best, end = abs(here - target), cut
        seen += sum(weights.get(b, 0) for b in blocks[start:end])
        runs.append(blocks[start:end])
        start = end
    runs.append(blocks[start:])
    return runs


def read_pfns(path):
    text = sys.stdin.read() if path == '-' else open(path).read()
    pfns = []
    for m in re.finditer(r'\bpfn=(0x[0-9a-fA-F]+|\d+)', text):
        pfn = int(m.group(1), 0)
        if pfn != (1 << 64) - 1 and pfn != (1 << 32) - 1:
            pfns.append(pfn)
    return pfns


def rewrite(data, nr_nodes, pfn_file, page_size, drop_mem=False,
            cpuless=0, node_ids=None):
    if len(data) < FILE_HEADER.size:
        raise FormatError('too short for a perf.data header')
    (magic, _size, _attr_size, _ao, _asz, data_off, data_size, _eo, _esz,
     feat_bits) = FILE_HEADER.unpack_from(data)
    if magic != MAGIC:
        raise FormatError('not a native-endian perf.data (PERFILE2) file')
    if _size < FILE_HEADER.size:
        raise FormatError('a pipe-mode perf.data has no feature sections')
    bitmap = int.from_bytes(feat_bits, 'little')
    feats = [b for b in range(HEADER_FEAT_BITS) if bitmap >> b & 1]
    table_off = data_off + data_size
    table_end = table_off + 16 * len(feats)
    if table_end > len(data):
        raise FormatError('feature section table lies past the end')
    sections = {}
    for i, feat in enumerate(feats):
        sections[feat] = list(struct.unpack_from('<QQ', data,
                                                 table_off + 16 * i))
    for feat, name in ((HEADER_NUMA_TOPOLOGY, 'NUMA_TOPOLOGY'),
                       (HEADER_MEM_TOPOLOGY, 'MEM_TOPOLOGY')):
        if feat not in sections:
            raise FormatError('no %s feature to rewrite' % name)

    def payload(feat):
        off, size = sections[feat]
        if off + size > len(data):
            raise FormatError('feature %d lies past the end' % feat)
        return data[off:off + size]

    numa = parse_numa(payload(HEADER_NUMA_TOPOLOGY))
    bsize, blocks = parse_mem(payload(HEADER_MEM_TOPOLOGY))
    cpus = sorted(set(c for n in numa for c in n[3]))
    if len(cpus) < nr_nodes - cpuless or len(blocks) < nr_nodes:
        raise FormatError('%d CPUs and %d memory blocks cannot make %d nodes'
                          % (len(cpus), len(blocks), nr_nodes))
    weights = {}
    if pfn_file:
        for pfn in read_pfns(pfn_file):
            block = pfn * page_size // bsize
            weights[block] = weights.get(block, 0) + 1
    node_blocks = split_blocks(blocks, nr_nodes, weights)
    node_cpus = split_evenly(cpus, nr_nodes - cpuless) + [[]] * cpuless
    mem_total = sum(n[1] for n in numa)
    mem_free = sum(n[2] for n in numa)
    node_ids = node_ids or list(range(nr_nodes))
    new_numa = [(node_ids[k], mem_total * len(node_blocks[k]) // len(blocks),
                 mem_free * len(node_blocks[k]) // len(blocks), node_cpus[k])
                for k in range(nr_nodes)]
    new = {HEADER_NUMA_TOPOLOGY: pack_numa(new_numa),
           HEADER_MEM_TOPOLOGY: pack_mem(bsize, node_ids, node_blocks)}

    # Lay the payloads out again in their old order, keeping any bytes
    # between them; only the rewritten ones change size.
    kept = [f for f in feats if not (drop_mem and f == HEADER_MEM_TOPOLOGY)]
    out = bytearray(data[:table_off])
    if drop_mem:
        bitmap &= ~(1 << HEADER_MEM_TOPOLOGY)
        FILE_HEADER.pack_into(out, 0, magic, _size, _attr_size, _ao, _asz,
                              data_off, data_size, _eo, _esz,
                              bitmap.to_bytes(32, 'little'))
    out += bytes(16 * len(kept))
    cursor = table_end
    for feat in sorted(feats, key=lambda f: sections[f][0]):
        off, size = sections[feat]
        if off < cursor:
            raise FormatError('feature payloads overlap or precede the table')
        out += data[cursor:off]
        cursor = off + size
        if feat not in kept:
            continue
        body = new.get(feat, data[off:off + size])
        sections[feat] = [len(out), len(body)]
        out += body
    out += data[cursor:]
    for i, feat in enumerate(kept):
        struct.pack_into('<QQ', out, table_off + 16 * i, *sections[feat])

    report = ['block_size %d' % bsize]
    for k in range(nr_nodes):
        report.append('node %d cpus %s blocks %s' %
                      (node_ids[k], format_list(node_cpus[k]) or 'none',
                       format_list(node_blocks[k])))
    return bytes(out), report


def main():
    ap = argparse.ArgumentParser(
        description='Rewrite the NUMA and memory topology of a perf.data.')
    ap.add_argument('input')
    ap.add_argument('output')
    ap.add_argument('-n', '--nodes', type=int, default=2,
                    help='number of nodes to make (default 2)')
    ap.add_argument('--pfns', metavar='FILE',
                    help="text with 'pfn=0x...' in it ('-': stdin), to "
                         'share the pfns seen evenly between the nodes')
    ap.add_argument('--page-size', type=int, default=4096)
    ap.add_argument('--drop-mem-topology', action='store_true',
                    help='leave MEM_TOPOLOGY out, as perf before 4.17 did')
    ap.add_argument('--cpuless', type=int, default=0, metavar='N',
                    help='give the last N nodes memory but no CPUs, as '
                         'CXL or PMEM nodes have')
    ap.add_argument('--node-ids', metavar='LIST',
                    type=lambda t: [int(n) for n in t.split(',')],
                    help='number the nodes so (default 0,1,...), e.g. '
                         '0,8 as on some POWER machines')
    args = ap.parse_args()
    if args.node_ids and (len(args.node_ids) != args.nodes or
                          sorted(set(args.node_ids)) != args.node_ids):
        ap.error('--node-ids wants --nodes ascending node numbers')
    if args.nodes < 1:
        ap.error('--nodes must be at least 1')
    if not 0 <= args.cpuless < args.nodes:
        ap.error('--cpuless must leave a node with CPUs')
    try:
        with open(args.input, 'rb') as f:
            data = f.read()
        out, report = rewrite(data, args.nodes, args.pfns, args.page_size,
                              args.drop_mem_topology, args.cpuless,
                              args.node_ids)
    except (OSError, FormatError) as e:
        print('kmem_numa_rewrite: %s: %s' % (args.input, e), file=sys.stderr)
        return 1
    with open(args.output, 'wb') as f:
        f.write(out)
    print('\n'.join(report))
    return 0


if __name__ == '__main__':
    sys.exit(main())
