#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Move the kernel of a perf.data recording, as KASLR moves it at boot.

  kmem_kaslr_shift.py IN OUT [DELTA]

Writes OUT, a copy of IN whose kernel lies DELTA bytes higher (0x200000
by default): the kernel's PERF_RECORD_MMAP ("[kernel.kallsyms]_text"),
its start and the _text address perf keeps in its pgoff, and every sample
address inside the kernel's text (the sample IP, the callchain frames)
move by DELTA.  Markers (PERF_CONTEXT_*), user and module addresses stay.
The same workload seen on another boot of the same kernel: every callsite
has another address and the same name.

Prints "moved N addresses in M samples".  Only native-endian
(little-endian) files whose samples carry PERF_SAMPLE_IDENTIFIER, or
whose events all sample alike, are handled.
"""

import struct
import sys

PERF_RECORD_MMAP = 1
PERF_RECORD_SAMPLE = 9
PERF_RECORD_MMAP2 = 10

SAMPLE_IP = 1 << 0
SAMPLE_TID = 1 << 1
SAMPLE_TIME = 1 << 2
SAMPLE_ADDR = 1 << 3
SAMPLE_READ = 1 << 4
SAMPLE_CALLCHAIN = 1 << 5
SAMPLE_ID = 1 << 6
SAMPLE_CPU = 1 << 7
SAMPLE_PERIOD = 1 << 8
SAMPLE_STREAM_ID = 1 << 9
SAMPLE_IDENTIFIER = 1 << 16

# The u64 fields before the callchain, in the order the kernel writes them.
BEFORE_CALLCHAIN = (SAMPLE_IDENTIFIER, SAMPLE_IP, SAMPLE_TID, SAMPLE_TIME,
                    SAMPLE_ADDR, SAMPLE_ID, SAMPLE_STREAM_ID, SAMPLE_CPU,
                    SAMPLE_PERIOD)


class Error(Exception):
    pass


def attrs(b):
    """sample_type by sample id, and the sample types there are."""
    attr_size, off, size = struct.unpack_from('<QQQ', b, 16)
    by_id, types = {}, set()
    for pos in range(off, off + size, attr_size):
        sample_type = struct.unpack_from('<Q', b, pos + 24)[0]
        ids_off, ids_size = struct.unpack_from('<QQ', b, pos + attr_size - 16)
        types.add(sample_type)
        for i in range(ids_off, ids_off + ids_size, 8):
            by_id[struct.unpack_from('<Q', b, i)[0]] = sample_type
    return by_id, types


def records(b):
    data_off, data_size = struct.unpack_from('<QQ', b, 40)
    pos, end = data_off, data_off + data_size
    while pos + 8 <= end:
        rtype, _, size = struct.unpack_from('<IHH', b, pos)
        if size < 8:
            raise Error('record of size %d at %d' % (size, pos))
        yield rtype, pos, size
        pos += size


def kernel_map(b):
    """The kernel mmap record: its position, start and length."""
    for rtype, pos, size in records(b):
        if rtype not in (PERF_RECORD_MMAP, PERF_RECORD_MMAP2):
            continue
        # pid, tid, then start, len, pgoff; mmap2 has 24 more bytes first.
        name_at = pos + 8 + 8 + 24 + (24 if rtype == PERF_RECORD_MMAP2 else 0)
        name = bytes(b[name_at:pos + size]).split(b'\0', 1)[0]
        if name.startswith(b'[kernel.kallsyms]'):
            start, length = struct.unpack_from('<QQ', b, pos + 16)
            return pos, start, length
    raise Error('no kernel mmap record')


def shift(b, delta):
    by_id, types = attrs(b)
    map_pos, start, length = kernel_map(b)
    end = start + length
    moved = samples = 0

    def move(at):
        nonlocal moved
        ip = struct.unpack_from('<Q', b, at)[0]
        if start <= ip < end:
            struct.pack_into('<Q', b, at, ip + delta)
            moved += 1

    for rtype, pos, size in records(b):
        if rtype != PERF_RECORD_SAMPLE:
            continue
        at = pos + 8
        if len(types) == 1:
            sample_type = next(iter(types))
        else:
            sample_type = by_id.get(struct.unpack_from('<Q', b, at)[0])
            if sample_type is None or not sample_type & SAMPLE_IDENTIFIER:
                raise Error('sample at %d of no known event' % pos)
        for bit in BEFORE_CALLCHAIN:
            if not sample_type & bit:
                continue
            if bit == SAMPLE_IP:
                move(at)
            at += 8
        if sample_type & SAMPLE_READ:
            raise Error('samples with PERF_SAMPLE_READ are not handled')
        if sample_type & SAMPLE_CALLCHAIN:
            nr = struct.unpack_from('<Q', b, at)[0]
            for i in range(nr):
                move(at + 8 + 8 * i)
        samples += 1
    # The kernel map: start, and pgoff, which holds _text.
    for field in (16, 32):
        value = struct.unpack_from('<Q', b, map_pos + field)[0]
        struct.pack_into('<Q', b, map_pos + field, value + delta)
    return moved, samples


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    delta = int(sys.argv[3], 0) if len(sys.argv) == 4 else 0x200000
    b = bytearray(open(sys.argv[1], 'rb').read())
    if b[:8] != b'PERFILE2':
        sys.exit('%s: not a perf.data file' % sys.argv[1])
    try:
        moved, samples = shift(b, delta)
    except Error as e:
        sys.exit('%s: %s' % (sys.argv[1], e))
    open(sys.argv[2], 'wb').write(b)
    print('moved %d addresses in %d samples' % (moved, samples))


if __name__ == '__main__':
    main()
