#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Rewrite a perf.data file as the stream 'perf record -o -' writes.

perf kmem stat must give the same analysis of a recording read from a
pipe as of the same recording read from a file.  perf inject cannot make
the pipe form of a recording with tracepoints (its pipe output of the
tracing data does not read back), so this does, from the file's own
parts: the attrs as HEADER_ATTR records, the feature sections as
HEADER_FEATURE records, the tracing data as a HEADER_TRACING_DATA record
and the data that follows it, the build-ids as HEADER_BUILD_ID records,
FINISHED_INIT, then the event records as they are.

FINISHED_INIT says that the header records are all there.  perf record
writes it, to a file as to a stream, after the records it synthesizes
(the kernel's maps, the comm of each task already running) and before
the first of the ring buffers: --finished-init=recorded keeps only that
one, as a stream of perf record has it; --finished-init=none leaves
every FINISHED_INIT out, as a stream of a perf older than the record
has none.

usage: kmem_pipe_format.py [--finished-init=first|recorded|none] FILE.data > STREAM
"""
import struct
import sys

HEADER_ATTR = 64
HEADER_TRACING_DATA = 66
HEADER_BUILD_ID = 67
HEADER_FEATURE = 80
FINISHED_INIT = 82
FEAT_TRACING_DATA = 1
FEAT_BUILD_ID = 2
# The BPF programs and their BTF, loaded on the machine while it
# recorded: perf record does not write them into a stream (header.c's
# synthesize false), and they outgrow a record's 64 KiB.
FEAT_BPF_PROG_INFO = 25
FEAT_BPF_BTF = 26


def record(rtype, body):
    """A record of @rtype: its 8-byte header, @body padded to 8 bytes."""
    body += bytes(-(8 + len(body)) % 8)
    size = 8 + len(body)
    if size > 0xffff:
        sys.exit(f'kmem_pipe_format: a record of type {rtype} would be {size} bytes')
    return struct.pack('<IHH', rtype, 0, size) + body


def without_finished_init(data):
    """The event records of @data but its FINISHED_INIT ones."""
    out, off = bytearray(), 0
    while off + 8 <= len(data):
        rtype, _, size = struct.unpack_from('<IHH', data, off)
        if size < 8:
            sys.exit('kmem_pipe_format: a record of %d bytes in the data' % size)
        if rtype != FINISHED_INIT:
            out += data[off:off + size]
        off += size
    return out + data[off:]


def main():
    args = sys.argv[1:]
    where = 'first'
    if args and args[0].startswith('--finished-init='):
        where = args.pop(0).split('=', 1)[1]
    if len(args) != 1 or where not in ('first', 'recorded', 'none'):
        sys.exit(__doc__.strip().splitlines()[-1])
    data = open(args[0], 'rb').read()
    magic, hdr_size, attr_size = struct.unpack_from('<8sQQ', data, 0)
    if magic != b'PERFILE2' or hdr_size != 104:
        sys.exit('kmem_pipe_format: not a perf.data file')
    attrs_off, attrs_size, data_off, data_size = struct.unpack_from('<QQQQ', data, 24)
    bits = int.from_bytes(data[72:104], 'little')
    feats = [f for f in range(256) if bits >> f & 1]
    table = data_off + data_size
    sections = {f: struct.unpack_from('<QQ', data, table + 16 * i)
                for i, f in enumerate(feats)}

    out = bytearray(struct.pack('<8sQ', b'PERFILE2', 16))
    # The attrs, each with the ids of its events.
    for pos in range(attrs_off, attrs_off + attrs_size, attr_size):
        attr = data[pos:pos + attr_size - 16]
        ids_off, ids_size = struct.unpack_from('<QQ', data, pos + attr_size - 16)
        out += record(HEADER_ATTR, attr + data[ids_off:ids_off + ids_size])
    for f in feats:
        if f in (FEAT_TRACING_DATA, FEAT_BUILD_ID, FEAT_BPF_PROG_INFO,
                 FEAT_BPF_BTF):
            continue
        off, size = sections[f]
        out += record(HEADER_FEATURE, struct.pack('<Q', f) + data[off:off + size])
    if FEAT_TRACING_DATA in sections:
        off, size = sections[FEAT_TRACING_DATA]
        aligned = size + (-size % 8)
        # The record is 12 bytes; the tracing data follows it, padded.
        out += struct.pack('<IHHI', HEADER_TRACING_DATA, 0, 12, aligned)
        out += data[off:off + size] + bytes(aligned - size)
    if FEAT_BUILD_ID in sections:
        off, size = sections[FEAT_BUILD_ID]
        end = off + size
        while off + 8 <= end:
            _, misc, rsize = struct.unpack_from('<IHH', data, off)
            if rsize < 8:
                sys.exit('kmem_pipe_format: corrupt build-id section')
            out += struct.pack('<IHH', HEADER_BUILD_ID, misc, rsize)
            out += data[off + 8:off + rsize]
            off += rsize
    events = data[data_off:data_off + data_size]
    if where == 'first':
        out += record(FINISHED_INIT, b'')
    elif where == 'none':
        events = without_finished_init(events)
    sys.stdout.buffer.write(out)
    sys.stdout.buffer.write(events)


main()
