#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Mutation test of perf kmem stat over whole perf.data files.

Records small real traces with ./perf kmem record (--page, --slab, both),
writes mutants of them (byte flips in the event stream, the file header,
the attrs and the feature sections; edited names and digits in the
tracepoint formats of the tracing data; truncations; duplicated, swapped
and dropped records; record size and type fields; sizes that are not a
multiple of 8) and runs each through a perf, normally the ASan+UBSan one,
in three modes.  A run fails when it ends in a sanitizer report, a signal,
a hang, a non-zero exit without a message or more than three lines on
stderr.  One line per failure class with a reproducer, then a summary.

Everything is deterministic given --seed and the base recordings: mutant
I of seed S is always the same mutation of the same base file
(--base reuses recordings, --only I makes one mutant again).

    scripts/mutate-perf-data.py -n 2000 --perf build/perf-asan/perf
    scripts/mutate-perf-data.py --base a.data --only 17 --keep /tmp/m
"""

import argparse
import concurrent.futures
import os
import random
import re
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import threading
import time

HEADER_SIZE = 104
MAGIC = b'PERFILE2'

FEATURES = [
    None, 'tracing_data', 'build_id', 'hostname', 'osrelease', 'version',
    'arch', 'nrcpus', 'cpudesc', 'cpuid', 'total_mem', 'cmdline',
    'event_desc', 'cpu_topology', 'numa_topology', 'branch_stack',
    'pmu_mappings', 'group_desc', 'auxtrace', 'stat', 'cache',
    'sample_time', 'mem_topology', 'clockid', 'dir_format',
    'bpf_prog_info', 'bpf_btf', 'compressed', 'cpu_pmu_caps', 'clock_data',
    'hybrid_topology', 'pmu_caps',
]
FEAT_TRACING_DATA = 1

# The modes every mutant is analysed in.
MODES = [
    ['--page', '--caller'],
    ['--page', '--alloc', '--live'],
    ['--slab', '--caller'],
]

# The tracepoints perf kmem reads: their formats get most of the edits.
KMEM_EVENTS = {'mm_page_alloc', 'mm_page_free', 'kmalloc', 'kfree',
               'kmem_cache_alloc', 'kmem_cache_free', 'kmalloc_node',
               'kmem_cache_alloc_node', 'mm_page_alloc_extfrag',
               'mm_page_free_batched'}

WORKLOADS = [
    # (name, record options, command)
    ('page', ['--page'],
     "cat /usr/bin/ls >/dev/null; ls /usr/lib >/dev/null; "
     "for i in 1 2 3; do /bin/true; done"),
    ('slab', ['--slab'],
     "cat /usr/bin/ls >/dev/null; ls /usr/share >/dev/null"),
    ('both', ['--page', '--slab'],
     "cat /usr/bin/ls >/dev/null; /bin/true"),
]


def u64_values(orig, limit):
    """Values a corrupt 64-bit field is likely to hold."""
    return [0, 1, 2, 7, 8, 9, 0xff, 0x100, 0xffff, 0x7fffffff, 0x80000000,
            0xffffffff, 0x100000000, 1 << 40, (1 << 63) - 1, 1 << 63,
            (1 << 64) - 1, (orig + 1) % (1 << 64), (orig - 1) % (1 << 64),
            (orig + 8) % (1 << 64), (orig * 2) % (1 << 64), orig >> 1,
            limit, limit + 1, orig ^ (1 << 32)]


def u32_values(orig, limit):
    """Values a corrupt 32-bit field is likely to hold."""
    return [v & 0xffffffff for v in
            (0, 1, 2, 3, 4, 7, 8, 0xff, 0x100, 0xffff, 0x10000, 0x7fffffff,
             0x80000000, 0xffffffff, orig + 1, orig - 1, orig * 2,
             orig >> 1, orig + 0x100, limit, limit + 1)]


# --- reading a perf.data file ------------------------------------------

class TraceFormat:
    """One event format in the tracing data: where it is and its text."""

    def __init__(self, system, size_pos, text_pos, text):
        self.system = system
        self.size_pos = size_pos      # of its u64 size, in the section
        self.text_pos = text_pos      # of its text, in the section
        self.text = text

    @property
    def name(self):
        m = re.search(rb'^name: (\S+)', self.text, re.M)
        return m.group(1).decode('latin-1') if m else '?'


class TracingData:
    """The positions of the parts of a tracing data feature section."""

    def __init__(self, blob):
        self.formats = []
        self.counts = []              # positions of u32 counts
        self.sizes = []               # positions of u64 and u32 sizes
        self.strings = []             # (position, length) of strings
        self.header = (0, 0)
        self.parse(blob)

    def parse(self, b):
        if b[:3] != b'\x17\x08\x44' or b[3:10] != b'tracing':
            raise ValueError('no tracing data magic')
        pos = 10
        end = b.index(b'\0', pos)
        self.strings.append((pos, end - pos))
        pos = end + 1 + 2 + 4         # endian, long size, page size
        self.header = (0, pos)
        for tag in (b'header_page\0', b'header_event\0'):
            if b[pos:pos + len(tag)] != tag:
                raise ValueError('no ' + tag.decode())
            pos += len(tag)
            self.sizes.append((pos, 8))
            size, = struct.unpack_from('<Q', b, pos)
            pos += 8 + size
        self.counts.append(pos)
        count, = struct.unpack_from('<I', b, pos)
        pos += 4
        for _ in range(count):
            self.sizes.append((pos, 8))
            size, = struct.unpack_from('<Q', b, pos)
            pos += 8 + size
        self.counts.append(pos)
        systems, = struct.unpack_from('<I', b, pos)
        pos += 4
        for _ in range(systems):
            end = b.index(b'\0', pos)
            system = b[pos:end].decode('latin-1')
            self.strings.append((pos, end - pos))
            pos = end + 1
            self.counts.append(pos)
            count, = struct.unpack_from('<I', b, pos)
            pos += 4
            for _ in range(count):
                self.sizes.append((pos, 8))
                size, = struct.unpack_from('<Q', b, pos)
                self.formats.append(TraceFormat(system, pos, pos + 8,
                                                b[pos + 8:pos + 8 + size]))
                pos += 8 + size
        for _ in range(2):            # kallsyms, ftrace_printk
            self.sizes.append((pos, 4))
            size, = struct.unpack_from('<I', b, pos)
            pos += 4 + size
        if pos + 8 <= len(b):         # saved cmdlines, version 0.6
            self.sizes.append((pos, 8))


class PerfData:
    """A perf.data file: header, attrs, records and feature sections."""

    def __init__(self, blob):
        self.blob = bytes(blob)
        b = self.blob
        if b[:8] != MAGIC or len(b) < HEADER_SIZE:
            raise ValueError('not a perf.data file')
        (self.attr_size, self.attrs_off, self.attrs_size, self.data_off,
         self.data_size) = struct.unpack_from('<QQQQQ', b, 16)
        self.features = int.from_bytes(b[72:104], 'little')
        self.attrs = []               # (attr offset, ids offset, ids size)
        for pos in range(self.attrs_off, self.attrs_off + self.attrs_size,
                         self.attr_size):
            ids_off, ids_size = struct.unpack_from(
                '<QQ', b, pos + self.attr_size - 16)
            self.attrs.append((pos, ids_off, ids_size))
        self.records = []             # (offset, size, type)
        pos, end = self.data_off, self.data_off + self.data_size
        while pos + 8 <= end:
            rtype, _, size = struct.unpack_from('<IHH', b, pos)
            if size < 8:
                break
            self.records.append((pos, size, rtype))
            pos += size
        self.feat_table = end
        self.feats = []               # (feature, offset, size)
        bits = [f for f in range(256) if self.features >> f & 1]
        for i, feat in enumerate(bits):
            off, size = struct.unpack_from('<QQ', b, end + 16 * i)
            self.feats.append((feat, off, size))
        self.tracing = None
        for feat, off, size in self.feats:
            if feat == FEAT_TRACING_DATA:
                self.tracing = TracingData(b[off:off + size])
                self.tracing_off = off

    def feature(self, feat):
        for f, off, size in self.feats:
            if f == feat:
                return off, size
        return None

    def rebuild(self, data=None, sections=None, features=None):
        """The file with another data section and other feature sections.

        @sections maps a feature to its new contents; @features is the new
        feature bitmap (a feature it drops loses its section).  Feature
        sections are laid out after the table in the table's order.
        """
        b = self.blob
        if data is None:
            data = b[self.data_off:self.data_off + self.data_size]
        if features is None:
            features = self.features
        sections = sections or {}
        head = bytearray(b[:self.data_off])
        struct.pack_into('<Q', head, 48, len(data))
        head[72:104] = features.to_bytes(32, 'little')
        bits = [f for f in range(256) if features >> f & 1]
        table = bytearray()
        body = bytearray()
        pos = self.data_off + len(data) + 16 * len(bits)
        for feat in bits:
            if feat in sections:
                contents = sections[feat]
            else:
                where = self.feature(feat)
                contents = b[where[0]:where[0] + where[1]] if where else b''
            table += struct.pack('<QQ', pos + len(body), len(contents))
            body += contents
        return bytes(head) + data + bytes(table) + bytes(body)


# --- mutations ------------------------------------------------------------

class Mutator:
    """Mutations of one base file; each returns (bytes, description)."""

    def __init__(self, pd, rng):
        self.pd = pd
        self.rng = rng
        self.b = pd.blob

    def flip(self, lo, hi, what):
        if hi <= lo:
            return None
        b = bytearray(self.b)
        pos = self.rng.randrange(lo, hi)
        mask = (1 << self.rng.randrange(8) if self.rng.random() < 0.6
                else self.rng.randrange(1, 256))
        b[pos] ^= mask
        return bytes(b), f'{what}: byte {pos:#x} ^= {mask:#04x}'

    def set_int(self, b, pos, size, values, what):
        fmt = {2: '<H', 4: '<I', 8: '<Q'}[size]
        orig, = struct.unpack_from(fmt, b, pos)
        new = self.rng.choice([v for v in values if v != orig] or [orig ^ 1])
        new &= (1 << 8 * size) - 1
        b = bytearray(b)
        struct.pack_into(fmt, b, pos, new)
        return bytes(b), (f'{what}: {size * 8}-bit at {pos:#x}: '
                          f'{orig:#x} -> {new:#x}')

    # the file header
    def header_flip(self):
        return self.flip(8, HEADER_SIZE, 'header flip')

    def header_field(self):
        names = ['size', 'attr_size', 'attrs.offset', 'attrs.size',
                 'data.offset', 'data.size', 'event_types.offset',
                 'event_types.size']
        i = self.rng.randrange(len(names))
        pos = 8 + 8 * i
        orig, = struct.unpack_from('<Q', self.b, pos)
        return self.set_int(self.b, pos, 8, u64_values(orig, len(self.b)),
                            f'header {names[i]}')

    def feature_bits(self):
        b = bytearray(self.b)
        bit = self.rng.randrange(256 if self.rng.random() < 0.3 else 32)
        b[72 + bit // 8] ^= 1 << bit % 8
        return bytes(b), f'header feature bit {bit} flipped'

    # the attrs and their ids
    def attr_flip(self):
        pd = self.pd
        return self.flip(pd.attrs_off, pd.attrs_off + pd.attrs_size,
                         'attr flip')

    def attr_field(self):
        pd = self.pd
        if not pd.attrs:
            return None
        i = self.rng.randrange(len(pd.attrs))
        base = pd.attrs[i][0]
        fields = [('type', 0, 4), ('size', 4, 4), ('config', 8, 8),
                  ('sample_period', 16, 8), ('sample_type', 24, 8),
                  ('read_format', 32, 8), ('flags', 40, 8),
                  ('sample_regs_user', 80, 8), ('sample_stack_user', 88, 4),
                  ('sample_max_stack', 108, 2),
                  ('ids.offset', pd.attr_size - 16, 8),
                  ('ids.size', pd.attr_size - 8, 8)]
        name, off, size = self.rng.choice(fields)
        fmt = {2: '<H', 4: '<I', 8: '<Q'}[size]
        orig, = struct.unpack_from(fmt, self.b, base + off)
        values = (u64_values(orig, len(self.b)) if size == 8 else
                  u32_values(orig, len(self.b)))
        if name in ('sample_type', 'read_format', 'flags'):
            values = [orig ^ (1 << self.rng.randrange(24))] * 3 + values
        return self.set_int(self.b, base + off, size, values,
                            f'attr {i} {name}')

    def ids_flip(self):
        pd = self.pd
        if not pd.attrs:
            return None
        _, off, size = self.rng.choice(pd.attrs)
        return self.flip(off, min(off + size, len(self.b)), 'ids flip')

    # the event stream
    def pick_record(self, types=None):
        recs = self.pd.records
        if types:
            recs = [r for r in recs if r[2] in types] or recs
        return self.rng.choice(recs) if recs else None

    def event_flip(self):
        pd = self.pd
        if self.rng.random() < 0.5:
            rec = self.pick_record({9})
            if rec:
                return self.flip(rec[0] + 8, rec[0] + rec[1], 'sample flip')
        return self.flip(pd.data_off, pd.data_off + pd.data_size,
                         'event stream flip')

    def record_size(self):
        rec = self.pick_record()
        if not rec:
            return None
        pos, size, rtype = rec
        values = [0, 1, 4, 7, 8, 9, 15, 16, 0xffff, 0x8000, size * 2,
                  size + 8, size - 8] + [size + d for d in range(-7, 8)]
        return self.set_int(self.b, pos + 6, 2, [v & 0xffff for v in values],
                            f'record at {pos:#x} (type {rtype}) size')

    def record_type(self):
        rec = self.pick_record()
        if not rec:
            return None
        pos, _, rtype = rec
        values = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
                  17, 18, 19, 20, 21, 64, 67, 68, 69, 70, 71, 72, 73, 74,
                  75, 76, 77, 78, 79, 80, 81, 82, 83, 84, 100, 0xffff,
                  0xffffffff, rtype | 0x10000]
        return self.set_int(self.b, pos, 4, values,
                            f'record at {pos:#x} type')

    def record_misc(self):
        rec = self.pick_record()
        if not rec:
            return None
        pos = rec[0]
        orig, = struct.unpack_from('<H', self.b, pos + 4)
        values = [orig ^ (1 << i) for i in range(16)] + [0, 0xffff]
        return self.set_int(self.b, pos + 4, 2, values,
                            f'record at {pos:#x} misc')

    def record_unaligned(self):
        """A record that grows by 1-7 bytes: what follows is misaligned."""
        rec = self.pick_record()
        if not rec:
            return None
        pos, size, rtype = rec
        grow = self.rng.randrange(1, 8)
        if size + grow > 0xffff:
            return None
        pd = self.pd
        rel = pos - pd.data_off
        data = bytearray(self.b[pd.data_off:pd.data_off + pd.data_size])
        data[rel + size:rel + size] = bytes(self.rng.randrange(256)
                                            for _ in range(grow))
        struct.pack_into('<H', data, rel + 6, size + grow)
        return (pd.rebuild(data=bytes(data)),
                f'record at {pos:#x} (type {rtype}) grown by {grow} bytes')

    def record_duplicate(self):
        rec = self.pick_record()
        if not rec:
            return None
        pos, size, rtype = rec
        pd = self.pd
        rel = pos - pd.data_off
        data = self.b[pd.data_off:pd.data_off + pd.data_size]
        copies = self.rng.choice([1, 1, 1, 2, 50])
        data = data[:rel + size] + data[rel:rel + size] * copies + \
            data[rel + size:]
        return (pd.rebuild(data=data),
                f'record at {pos:#x} (type {rtype}) repeated {copies} times')

    def record_drop(self):
        rec = self.pick_record()
        if not rec:
            return None
        pos, size, rtype = rec
        pd = self.pd
        rel = pos - pd.data_off
        data = self.b[pd.data_off:pd.data_off + pd.data_size]
        data = data[:rel] + data[rel + size:]
        return (pd.rebuild(data=data),
                f'record at {pos:#x} (type {rtype}) dropped')

    def record_swap(self):
        recs = self.pd.records
        if len(recs) < 2:
            return None
        i = self.rng.randrange(len(recs) - 1)
        j = i + 1 if self.rng.random() < 0.6 else \
            self.rng.randrange(i + 1, len(recs))
        (p1, s1, t1), (p2, s2, t2) = recs[i], recs[j]
        b = self.b
        out = b[:p1] + b[p2:p2 + s2] + b[p1 + s1:p2] + b[p1:p1 + s1] + \
            b[p2 + s2:]
        return out, (f'records at {p1:#x} (type {t1}) and {p2:#x} '
                     f'(type {t2}) swapped')

    def record_garbage(self):
        """A run of random bytes over the stream."""
        pd = self.pd
        if pd.data_size < 16:
            return None
        pos = self.rng.randrange(pd.data_off, pd.data_off + pd.data_size - 8)
        n = min(self.rng.choice([8, 16, 64, 512, 4096]),
                pd.data_off + pd.data_size - pos)
        b = bytearray(self.b)
        b[pos:pos + n] = bytes(self.rng.randrange(256) for _ in range(n))
        return bytes(b), f'{n} random bytes at {pos:#x}'

    # truncations
    def truncate(self):
        pd = self.pd
        where = self.rng.choice(['data', 'data', 'features', 'header'])
        if where == 'data':
            cut = self.rng.randrange(pd.data_off, pd.data_off + pd.data_size)
        elif where == 'features':
            cut = self.rng.randrange(pd.feat_table, len(self.b))
        else:
            cut = self.rng.randrange(0, pd.data_off)
        return self.b[:cut], f'truncated to {cut} bytes (in the {where})'

    def truncate_data_size(self):
        """data.size cut short: the stream ends inside a record."""
        pd = self.pd
        cut = self.rng.randrange(0, pd.data_size)
        b = bytearray(self.b)
        struct.pack_into('<Q', b, 48, cut)
        return bytes(b), f'header data.size {pd.data_size} -> {cut}'

    # feature sections
    def pick_feature(self, prefer_kmem=True):
        feats = self.pd.feats
        if not feats:
            return None
        if prefer_kmem and self.rng.random() < 0.5:
            wanted = {1, 2, 4, 7, 13, 14, 22, 21}
            feats = [f for f in feats if f[0] in wanted] or feats
        return self.rng.choice(feats)

    def feature_flip(self):
        f = self.pick_feature()
        if not f:
            return None
        feat, off, size = f
        return self.flip(off, off + size, f'feature {FEATURES[feat]} flip')

    def feature_int(self):
        f = self.pick_feature()
        if not f:
            return None
        feat, off, size = f
        width = self.rng.choice([4, 8])
        if size < width:
            return None
        pos = off + self.rng.randrange(0, size - width + 1, 4)
        fmt = '<I' if width == 4 else '<Q'
        orig, = struct.unpack_from(fmt, self.b, pos)
        values = (u32_values(orig, size) if width == 4 else
                  u64_values(orig, size))
        return self.set_int(self.b, pos, width, values,
                            f'feature {FEATURES[feat]} +{pos - off:#x}')

    def feature_table(self):
        pd = self.pd
        if not pd.feats:
            return None
        i = self.rng.randrange(len(pd.feats))
        feat, off, size = pd.feats[i]
        field = self.rng.choice(['offset', 'size'])
        pos = pd.feat_table + 16 * i + (8 if field == 'size' else 0)
        orig = size if field == 'size' else off
        return self.set_int(self.b, pos, 8, u64_values(orig, len(self.b)),
                            f'feature {FEATURES[feat]} section {field}')

    def feature_cut(self):
        """A feature section that ends early (its size in the table too)."""
        f = self.pick_feature()
        if not f or f[2] == 0:
            return None
        feat, off, size = f
        keep = self.rng.randrange(0, size)
        out = self.pd.rebuild(sections={feat: self.b[off:off + keep]})
        return out, f'feature {FEATURES[feat]} cut to {keep} of {size} bytes'

    def feature_drop(self):
        f = self.pick_feature()
        if not f:
            return None
        feat = f[0]
        out = self.pd.rebuild(features=self.pd.features & ~(1 << feat))
        return out, f'feature {FEATURES[feat]} dropped'

    # the tracing data
    def pick_format(self):
        td = self.pd.tracing
        if not td or not td.formats:
            return None
        kmem = [f for f in td.formats if f.name in KMEM_EVENTS]
        if kmem and self.rng.random() < 0.8:
            return self.rng.choice(kmem)
        return self.rng.choice(td.formats)

    def edit_format_text(self, fmt, start, end, new, what):
        """Replace fmt.text[start:end] with @new, fixing the format's size
        (or, one time in five, leaving it as it was)."""
        td_fix = self.rng.random() < 0.8
        text = fmt.text[:start] + new + fmt.text[end:]
        off, size = self.pd.feature(FEAT_TRACING_DATA)
        sec = bytearray(self.b[off:off + size])
        blob = (struct.pack('<Q', len(text) if td_fix else len(fmt.text)) +
                text)
        sec[fmt.size_pos:fmt.text_pos + len(fmt.text)] = blob
        if len(text) != len(fmt.text) and not td_fix:
            what += ' (format size left as it was)'
        out = self.pd.rebuild(sections={FEAT_TRACING_DATA: bytes(sec)})
        return out, what

    def mutate_word(self, word):
        """Another word of (mostly) the same length."""
        r = self.rng.random()
        i = self.rng.randrange(len(word))
        if r < 0.6:
            c = self.rng.choice(b'abcdefghijklmnopqrstuvwxyz_X')
            return word[:i] + bytes([c]) + word[i + 1:]
        if r < 0.8:
            return word + b'x'
        if r < 0.9 and len(word) > 1:
            return word[:i] + word[i + 1:]
        return b''

    def tracing_rename_event(self):
        fmt = self.pick_format()
        if not fmt:
            return None
        m = re.search(rb'^name: (\S+)', fmt.text, re.M)
        if not m:
            return None
        new = self.mutate_word(m.group(1))
        return self.edit_format_text(
            fmt, m.start(1), m.end(1), new,
            f'tracing: event {fmt.system}:{fmt.name} renamed to '
            f'{new.decode()!r}')

    def tracing_rename_field(self):
        fmt = self.pick_format()
        if not fmt:
            return None
        fields = list(re.finditer(rb'field:[^;]*?(\w+)(\[\w*\])?;', fmt.text))
        if not fields:
            return None
        m = self.rng.choice(fields)
        new = self.mutate_word(m.group(1))
        return self.edit_format_text(
            fmt, m.start(1), m.end(1), new,
            f'tracing: {fmt.name} field {m.group(1).decode()} renamed to '
            f'{new.decode()!r}')

    def tracing_field_type(self):
        fmt = self.pick_format()
        if not fmt:
            return None
        fields = list(re.finditer(rb'field:([^;]*?)\w+(\[\w*\])?;', fmt.text))
        if not fields:
            return None
        m = self.rng.choice(fields)
        new = self.rng.choice([b'char ', b'int ', b'unsigned long ',
                               b'__data_loc char[] ', b'u8 ', b's64 ',
                               b'struct page * ', b'', b'unsigned '])
        return self.edit_format_text(
            fmt, m.start(1), m.end(1), new,
            f'tracing: {fmt.name} type {m.group(1).decode()!r} -> '
            f'{new.decode()!r}')

    def tracing_digit(self):
        fmt = self.pick_format()
        if not fmt:
            return None
        nums = list(re.finditer(rb'(offset|size|signed|ID):\s*(\d+)',
                                fmt.text))
        if not nums:
            return None
        m = self.rng.choice(nums)
        old = m.group(2)
        r = self.rng.random()
        if r < 0.5:
            i = self.rng.randrange(len(old))
            new = old[:i] + str(self.rng.randrange(10)).encode() + old[i + 1:]
        elif r < 0.8:
            new = self.rng.choice([b'0', b'1', b'2', b'4', b'8', b'16',
                                   b'255', b'4096', b'65535', b'4294967295',
                                   b'-1', b'99999999999'])
        else:
            new = old + str(self.rng.randrange(10)).encode()
        return self.edit_format_text(
            fmt, m.start(2), m.end(2), new,
            f'tracing: {fmt.name} {m.group(1).decode()} {old.decode()} -> '
            f'{new.decode()}')

    def tracing_field_break(self):
        """A field's first word followed by no other: a field without a
        type, which libtraceevent leaked a word on (patches/0020)."""
        fmt = self.pick_format()
        if not fmt:
            return None
        fields = list(re.finditer(rb'field:(\w+)([ \t]+)\w', fmt.text))
        if not fields:
            return None
        m = self.rng.choice(fields)
        new = self.rng.choice([b'`', b';', b'\n', b'(', b' ; '])
        return self.edit_format_text(
            fmt, m.start(2), m.end(2), new,
            f'tracing: {fmt.name} field:{m.group(1).decode()} then {new!r}')

    def tracing_print_fmt(self):
        fmt = self.pick_format()
        if not fmt:
            return None
        m = re.search(rb'print fmt: (.*)', fmt.text, re.S)
        if not m or m.end(1) <= m.start(1):
            return None
        i = self.rng.randrange(m.start(1), m.end(1))
        c = self.rng.choice(b'"()[],%|&?:0x1{}\\ \n')
        return self.edit_format_text(
            fmt, i, i + 1, bytes([c]),
            f'tracing: {fmt.name} print fmt char {i - m.start(1)} -> '
            f'{chr(c)!r}')

    def tracing_struct(self):
        """The sizes, counts and strings that frame the tracing data."""
        td = self.pd.tracing
        if not td:
            return None
        off, size = self.pd.feature(FEAT_TRACING_DATA)
        sec = self.b[off:off + size]
        r = self.rng.random()
        if r < 0.45:
            pos, width = self.rng.choice(td.sizes)
            fmt = '<Q' if width == 8 else '<I'
            orig, = struct.unpack_from(fmt, sec, pos)
            values = (u64_values(orig, size) if width == 8 else
                      u32_values(orig, size))
            new, what = self.set_int(sec, pos, width, values,
                                     'tracing: size')
        elif r < 0.75:
            pos = self.rng.choice(td.counts)
            orig, = struct.unpack_from('<I', sec, pos)
            new, what = self.set_int(sec, pos, 4, u32_values(orig, size),
                                     'tracing: count')
        elif r < 0.9:
            pos, length = self.rng.choice(td.strings)
            b = bytearray(sec)
            i = pos + self.rng.randrange(max(length, 1))
            b[i] = self.rng.choice(b'x.0\0\xff')
            new, what = bytes(b), f'tracing: string at {pos:#x} byte {i - pos}'
        else:
            lo, hi = td.header
            b = bytearray(sec)
            i = self.rng.randrange(lo, hi)
            b[i] ^= 1 << self.rng.randrange(8)
            new, what = bytes(b), f'tracing: header byte {i}'
        return self.pd.rebuild(sections={FEAT_TRACING_DATA: new}), what

    def tracing_flip(self):
        off, size = self.pd.feature(FEAT_TRACING_DATA) or (0, 0)
        return self.flip(off, off + size, 'tracing flip')

    def mutate(self):
        """One random mutation, by weight: (bytes, description, kind)."""
        kinds = [
            (self.header_flip, 3), (self.header_field, 4),
            (self.feature_bits, 2),
            (self.attr_flip, 3), (self.attr_field, 5), (self.ids_flip, 1),
            (self.event_flip, 8), (self.record_garbage, 2),
            (self.record_size, 5), (self.record_type, 4),
            (self.record_misc, 1), (self.record_unaligned, 3),
            (self.record_duplicate, 3), (self.record_drop, 2),
            (self.record_swap, 3),
            (self.truncate, 4), (self.truncate_data_size, 1),
            (self.feature_flip, 6), (self.feature_int, 6),
            (self.feature_table, 3), (self.feature_cut, 2),
            (self.feature_drop, 2),
            (self.tracing_rename_event, 4), (self.tracing_rename_field, 4),
            (self.tracing_field_type, 2), (self.tracing_field_break, 2),
            (self.tracing_digit, 5),
            (self.tracing_print_fmt, 2), (self.tracing_struct, 4),
            (self.tracing_flip, 3),
        ]
        funcs = [k for k, _ in kinds]
        weights = [w for _, w in kinds]
        for _ in range(50):
            kind = self.rng.choices(funcs, weights)[0]
            res = kind()
            if res and res[0] != self.b:
                out, what = res
                # A second mutation, now and then, on top of the first.
                if self.rng.random() < 0.1:
                    try:
                        again = Mutator(PerfData(out), self.rng).mutate()
                        if again:
                            return (again[0], what + '; ' + again[1],
                                    kind.__name__ + '+' + again[2])
                    except (ValueError, struct.error, IndexError):
                        pass
                return out, what, kind.__name__
        return None


# --- running perf ---------------------------------------------------------

SAN_RE = re.compile(r'ERROR: (Address|Leak)Sanitizer|runtime error:|'
                    r'SUMMARY: \w+Sanitizer|AddressSanitizer:DEADLYSIGNAL')
FRAME_RE = re.compile(r'^\s*#\d+ 0x[0-9a-f]+ in (\S+)(?: (\S+))?')
# Frames that say where a sanitizer caught it, not where the bug is.
NOT_THE_BUG = re.compile(r'^(__interceptor_|__asan|__ubsan|__sanitizer|__lsan|'
                         r'__libc|__GI_|_IO_|__pthread|__assert|__vsnprintf|'
                         r'__printf|__sprintf|__snprintf|__read)|'
                         r'^(malloc|calloc|realloc|free|strdup|strndup|memcpy|'
                         r'memmove|memset|memcmp|strlen|strcmp|strncmp|'
                         r'bsearch|qsort|zalloc|abort|raise|bitmap_zalloc|'
                         r'vsnprintf|printf|sprintf|snprintf|strcpy|fread|'
                         r'read|ion|readn|printf_common)$')


def where(frames):
    """The first frame of a stack that is not the sanitizer or libc."""
    for func, path in frames:
        if not NOT_THE_BUG.match(func):
            loc = ''
            if path and '.c:' in path:
                loc = ' (' + path.split('tools/')[-1].split(':')[0] + ')'
            return func + loc
    return frames[0][0] if frames else '?'


def sanitizer_class(err):
    """A short name for the first sanitizer report in @err."""
    lines = err.splitlines()
    for i, line in enumerate(lines):
        m = re.search(r'(\S+):(\d+):\d+: runtime error: (.*)', line)
        if m:
            what = re.sub(r'0x[0-9a-f]+', 'ADDR', m.group(3))
            what = re.sub(r'\d+', 'N', what)
            return (f'ubsan: {what[:70]} at '
                    f'{m.group(1).split("tools/perf/")[-1]}:{m.group(2)}')
        m = re.search(r'ERROR: (\w+Sanitizer): (.*)', line)
        if m:
            kind = m.group(2)
            kind = re.sub(r' on (unknown )?address.*| at pc.*|\(.*', '',
                          kind).strip()
            kind = re.sub(r'0x[0-9a-f]+', 'ADDR', kind)
            frames = []
            for follow in lines[i + 1:]:
                f = FRAME_RE.match(follow)
                if f:
                    frames.append((f.group(1), f.group(2)))
                elif frames:
                    break
            san = m.group(1).replace('Sanitizer', 'San').lower()
            return f'{san}: {kind} in {where(frames)}'
    return 'sanitizer: unrecognised report'


def area(kind):
    """The parts of the file that mutations of @kind ('a+b') changed."""
    parts = set()
    for k in kind.split('+'):
        if k.startswith(('record_', 'event_', 'truncate')):
            parts.add('the events')
        elif k.startswith('tracing_'):
            parts.add('the tracing data')
        elif k.startswith(('attr_', 'ids_')):
            parts.add('the attrs')
        elif k.startswith('feature_') and k != 'feature_bits':
            parts.add('the feature sections')
        else:
            parts.add('the file header')
    return ' and '.join(sorted(parts))


def normalise(line):
    """A stderr line with its numbers and paths made generic."""
    line = re.sub(r'[^\s:]*/[^\s:]+', 'PATH', line)
    line = re.sub(r'0x[0-9a-fA-F]+', 'HEX', line)
    return re.sub(r'\d[\d,.]*', 'N', line).strip()


class Result:
    """What one run of perf did."""

    def __init__(self, rc, out, err, hung):
        self.rc, self.out, self.err, self.hung = rc, out, err, hung
        self.err_lines = [ln for ln in err.splitlines() if ln.strip()]

    def failure(self, max_lines):
        """(category, class name) of a failure, or None."""
        if SAN_RE.search(self.err):
            return 'sanitizer', sanitizer_class(self.err)
        if self.hung:
            return 'hang', 'hang'
        if self.rc < 0:
            try:
                name = signal.Signals(-self.rc).name
            except ValueError:
                name = f'signal {-self.rc}'
            return 'signal', f'{name}'
        if self.rc != 0 and not self.err_lines:
            return 'silent', f'exit {self.rc} without a message'
        if len(self.err_lines) > max_lines:
            n = len(self.err_lines)
            said = [ln for ln in self.err_lines if ln.strip() != 'Warning:']
            return 'noisy', (f'{n if n < 10 else "10+"} stderr lines: '
                             f'{normalise(said[0] if said else "")[:80]}')
        return None

    def notes(self, base, kind):
        """Things worth a look that are not failures, for a mutation of
        @kind of a file whose run gave @base."""
        base_out, base_said = base
        found = []
        err = '\n'.join(self.err_lines)
        for pat, name in ((r'covers the 0 events', 'covers the 0 events'),
                          (r'unknown events', '"Found N unknown events"'),
                          (r'assertion failed', 'perf assertion line')):
            if re.search(pat, err):
                found.append(name)
        if self.rc == 0 and self.err_lines:
            found.append('exit 0 with stderr: ' +
                         normalise(self.err_lines[0])[:70])
        if self.rc == 0 and not self.err_lines:
            if re.search(r'\n\s*Total allocations:\s+0 ', self.out):
                found.append('exit 0, silent, no allocations counted')
            elif self.out != base_out:
                # Other numbers are to be expected where the events changed.
                found.append('exit 0, silent, other output than the '
                             f'original after a change of {area(kind)}')
        if self.rc != 0 and self.err_lines:
            said = normalise(self.err_lines[-1])
            # Not what the original file got already (no page events...).
            if said != base_said:
                found.append(f'exit {self.rc}: ' + said[:90])
        return found

    def said(self):
        """The last line on stderr, made generic."""
        return normalise(self.err_lines[-1]) if self.err_lines else ''


# libtraceevent (a system library, stripped: its frames have no names)
# leaks a token or two when it gives up parsing a corrupt print fmt, deep in
# its recursive descent (the man page's KNOWN ISSUES); perf cannot free
# that, nor tell such a print fmt beforehand.  A mutant whose print fmts are
# not those of its recording is run with these suppressions; every other
# one is run without: a leak in libtraceevent there is a failure, as
# the one on a field without a type was before patches/0020.  A leak whose
# allocation has no libtraceevent frame counts either way.
LSAN_SUPPRESSIONS = 'leak:libtraceevent.so\n'


def print_formats(blob):
    """The print fmt of each event format of @blob's tracing data, as perf
    hands them to libtraceevent; None where it cannot be read that far."""
    try:
        td = PerfData(blob).tracing
    except (ValueError, struct.error, IndexError, OverflowError):
        return None
    if not td:
        return None
    return [f.text[f.text.find(b'\nprint fmt:'):] for f in td.formats]


def run_perf(perf, mode, path, timeout, suppressions):
    """perf kmem stat @mode on @path, killed after @timeout seconds, with the
    LSan suppressions file @suppressions (None: none)."""
    env = dict(os.environ)
    env['ASAN_OPTIONS'] = ('detect_leaks=1:abort_on_error=0:'
                           'allocator_may_return_null=0:handle_abort=1')
    env['LSAN_OPTIONS'] = (f'suppressions={suppressions}:' if suppressions
                           else '') + 'print_suppressions=0'
    env['UBSAN_OPTIONS'] = 'print_stacktrace=1:halt_on_error=1'
    env['PAGER'] = 'cat'
    proc = subprocess.Popen([perf, 'kmem', 'stat', *mode, '-i', path],
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env,
                            start_new_session=True)
    hung = False
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        hung = True
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
    return Result(proc.returncode, out.decode('latin-1'),
                  err.decode('latin-1'), hung)


# --- the campaign ------------------------------------------------------------

def record_bases(perf, workdir):
    bases = []
    for name, opts, cmd in WORKLOADS:
        path = os.path.join(workdir, f'base-{name}.data')
        res = subprocess.run([perf, 'kmem', 'record', *opts, '-o', path,
                              '--', 'sh', '-c', cmd],
                             stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, check=False)
        if res.returncode != 0 or not os.path.exists(path):
            sys.exit(f'mutate-perf-data: cannot record {name}: '
                     f'{res.stderr.decode(errors="replace").strip()[-200:]}')
        bases.append(path)
    return bases


def slug(text):
    return re.sub(r'[^A-Za-z0-9]+', '-', text).strip('-')[:60].lower()


class Campaign:
    def __init__(self, args, bases):
        self.args = args
        self.bases = []
        self.base_out = {}
        self.base_prints = {}         # path -> the print fmts of its formats
        for path in bases:
            with open(path, 'rb') as f:
                pd = PerfData(f.read())
            self.bases.append((path, pd))
            self.base_prints[path] = print_formats(pd.blob)
        self.classes = {}             # class -> [count, first reproducer]
        self.notes = {}               # note -> [count, first reproducer]
        self.per_mode = [dict() for _ in MODES]
        self.mutants = 0
        self.strict = 0               # mutants with every leak counted
        self.runs = 0
        self.ok = 0
        self.lock = threading.Lock()
        os.makedirs(args.out, exist_ok=True)
        self.suppressions = os.path.join(args.out, 'lsan.supp')
        with open(self.suppressions, 'w') as f:
            f.write(LSAN_SUPPRESSIONS)

    def baseline(self):
        """The output of each mode on each unmutated base, which must be
        clean: a failure there is not the mutation's."""
        bad = 0
        for path, _ in self.bases:
            for m, mode in enumerate(MODES):
                res = run_perf(self.args.perf, mode, path, self.args.timeout,
                               None)
                self.base_out[(path, m)] = (res.out, res.said())
                fail = res.failure(self.args.max_lines)
                if fail:
                    bad += 1
                    print(f'BASE FAIL {" ".join(mode)} {path}: {fail[1]}')
                    for ln in res.err_lines[:5]:
                        print('    ' + ln)
        return bad

    def make(self, index):
        """Mutant @index: (base path, bytes, description, kind)."""
        rng = random.Random(f'{self.args.seed}:{index}')
        path, pd = self.bases[rng.randrange(len(self.bases))]
        res = Mutator(pd, rng).mutate()
        if not res:
            return None
        return (path, *res)

    def keep(self, kind, name, mutant, mode, base, what, res):
        """Copy a reproducer of a new class into the output directory."""
        d = os.path.join(self.args.out, kind)
        os.makedirs(d, exist_ok=True)
        stem = os.path.join(d, slug(name) or 'x')
        n = 1
        while os.path.exists(stem + '.data'):
            n += 1
            stem = os.path.join(d, f'{slug(name)}-{n}')
        shutil.copyfile(mutant, stem + '.data')
        with open(stem + '.txt', 'w') as f:
            f.write(f'class: {name}\nmutation: {what}\nbase: {base}\n'
                    f'command: {self.args.perf} kmem stat {" ".join(mode)} '
                    f'-i {stem}.data\nexit: {res.rc}'
                    f'{" (hung)" if res.hung else ""}\n--- stderr ---\n'
                    f'{res.err[:20000]}')
        return stem + '.data'

    def record(self, table, key, kind, mutant, mode, base, what, res):
        if key not in table:
            repro = self.keep(kind, key, mutant, mode, base, what, res)
            table[key] = [0, repro, ' '.join(mode), what]
        table[key][0] += 1

    def run_one(self, index, tmpdir):
        made = self.make(index)
        if not made:
            return
        base, blob, what, kind = made
        mutant = os.path.join(tmpdir, f'mutant-{index}.data')
        with open(mutant, 'wb') as f:
            f.write(blob)
        prints = print_formats(blob)
        supp = (None if prints is not None and
                prints == self.base_prints[base] else self.suppressions)
        results = []
        for m, mode in enumerate(MODES):
            res = run_perf(self.args.perf, mode, mutant, self.args.timeout,
                           supp)
            results.append((m, mode, res))
        with self.lock:
            self.strict += supp is None
            self.tally(index, base, mutant, (what, kind), results)
        os.unlink(mutant)

    def tally(self, index, base, mutant, mutation, results):
        what, kind = mutation
        self.mutants += 1
        for m, mode, res in results:
            self.runs += 1
            fail = res.failure(self.args.max_lines)
            if fail:
                kind, name = fail
                key = f'{kind}: {name}'
                self.per_mode[m][kind] = self.per_mode[m].get(kind, 0) + 1
                self.record(self.classes, key, kind, mutant, mode, base,
                            what, res)
                if self.args.verbose:
                    print(f'  #{index} {" ".join(mode)}: {key}  [{what}]')
            else:
                self.ok += 1
            for note in res.notes(self.base_out[(base, m)], kind):
                self.record(self.notes, note, 'notes', mutant, mode, base,
                            what, res)

    def report(self, elapsed, failing):
        fails = sorted(self.classes.items(), key=lambda kv: -kv[1][0])
        for key, (count, repro, mode, what) in fails:
            label = 'FAIL' if key.split(':')[0] in failing else 'seen'
            print(f'{label} {count:5d}x {key}\n      {repro}  '
                  f'[{mode}; {what}]')
        if self.args.notes:
            for key, (count, repro, mode, what) in sorted(
                    self.notes.items(), key=lambda kv: -kv[1][0]):
                print(f'note {count:5d}x {key}\n      {repro}  '
                      f'[{mode}; {what}]')
        kinds = ['sanitizer', 'signal', 'hang', 'silent', 'noisy']
        for m, mode in enumerate(MODES):
            counts = ', '.join(f'{k} {self.per_mode[m].get(k, 0)}'
                               for k in kinds)
            print(f'mode {" ".join(mode):24s} {self.mutants} runs: {counts}')
        failed = sum(c for key, (c, *_) in fails
                     if key.split(':')[0] in failing)
        print(f'{self.mutants} mutants, {self.runs} runs, {self.ok} clean, '
              f'{failed} failed, {self.runs - self.ok - failed} seen, '
              f'{self.strict} mutants with every leak counted '
              f'({elapsed:.0f} s; reproducers in {self.args.out})')


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('-n', '--count', type=int, default=200,
                    help='number of mutants (default 200)')
    ap.add_argument('--seed', default='1', help='seed (default 1)')
    ap.add_argument('--perf', default='build/perf-asan/perf',
                    help='perf to test (default build/perf-asan/perf)')
    ap.add_argument('--record-perf', default='./perf',
                    help='perf to record the base files with (./perf)')
    ap.add_argument('--base', action='append',
                    help='use this recording instead of recording (repeat)')
    ap.add_argument('--out', default='build/fuzz-files',
                    help='where reproducers go (build/fuzz-files)')
    ap.add_argument('--timeout', type=float, default=20,
                    help='seconds before a run counts as a hang (20)')
    ap.add_argument('--max-lines', type=int, default=3,
                    help='more stderr lines than this is a failure (3)')
    ap.add_argument('--only', type=int,
                    help='write mutant ONLY (with --keep) and run nothing')
    ap.add_argument('--keep', help='with --only: where to write it')
    ap.add_argument('--jobs', '-j', type=int, default=1,
                    help='mutants run at the same time (1)')
    ap.add_argument('--notes', action='store_true',
                    help='also list what is not a failure but looks wrong')
    ap.add_argument('--fail-on', default='sanitizer,signal,hang,silent,noisy',
                    help='categories that make the exit status 1')
    ap.add_argument('-v', '--verbose', action='store_true')
    args = ap.parse_args()
    if args.only is not None and not args.base:
        ap.error('--only needs the --base recordings the mutants came from')
    out = os.path.realpath(args.out) + os.sep
    if any(os.path.realpath(b).startswith(out) for b in args.base or []):
        ap.error('--out is emptied first: copy the --base files elsewhere')

    workdir = tempfile.mkdtemp(prefix='mutate-perf-data.')
    try:
        if args.only is None:
            if os.path.isdir(args.out):
                shutil.rmtree(args.out)
            os.makedirs(os.path.join(args.out, 'bases'))
        # The recordings stay with the reproducers: --base brings them back.
        bases = args.base or record_bases(args.record_perf,
                                          os.path.join(args.out, 'bases'))
        camp = Campaign(args, bases)
        if args.only is not None:
            made = camp.make(args.only)
            if not made:
                sys.exit('no mutation applies')
            dest = args.keep or f'mutant-{args.only}.data'
            if os.path.isdir(dest):
                dest = os.path.join(dest, f'mutant-{args.only}.data')
            with open(dest, 'wb') as f:
                f.write(made[1])
            print(f'{dest}: {made[2]} (of {made[0]})')
            return 0
        start = time.monotonic()
        if camp.baseline():
            print('the unmutated recordings fail already')
            return 1
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            list(pool.map(lambda i: camp.run_one(i, workdir),
                          range(args.count)))
        failing = set(args.fail_on.split(','))
        camp.report(time.monotonic() - start, failing)
        bad = sum(c for key, (c, *_) in camp.classes.items()
                  if key.split(':')[0] in failing)
        return 1 if bad else 0
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == '__main__':
    sys.exit(main())
