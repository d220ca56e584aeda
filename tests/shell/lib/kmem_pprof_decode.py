#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Read a pprof profile as profile.proto defines it, with no protobuf library.

An independent reader of what perf kmem stat --pprof writes: it checks
that the file is gzip, then reads the protobuf wire format by hand
(varints, length-delimited fields, packed repeated numbers) with the
field numbers of github.com/google/pprof's proto/profile.proto, and
checks what the format requires: string_table[0] is "", every string is
UTF-8, every string index is inside the table, ids are non-zero and
unique, every id a sample, location or line refers to exists, and every
sample has one value per sample type.

usage: kmem_pprof_decode.py FILE    prints the profile as JSON: sample
types, per-type sums, samples (stacks as function names, leaf first,
values, labels), mappings, comments, times; exit 1 with a line on a
broken rule
"""
import gzip
import json
import sys


class Broken(Exception):
    pass


def need(ok, what):
    if not ok:
        raise Broken(what)


def varint(buf, i):
    v, shift = 0, 0
    while True:
        need(i < len(buf), 'varint runs past its message')
        b = buf[i]
        i += 1
        v |= (b & 0x7f) << shift
        if b < 0x80:
            return v, i
        shift += 7
        need(shift < 70, 'varint longer than ten bytes')


def fields(buf):
    """(number, value) pairs; value an int (varint) or bytes."""
    i, out = 0, []
    while i < len(buf):
        key, i = varint(buf, i)
        num, wire = key >> 3, key & 7
        need(num > 0, 'field number 0')
        if wire == 0:
            v, i = varint(buf, i)
        elif wire == 2:
            n, i = varint(buf, i)
            need(i + n <= len(buf), 'length past its message')
            v, i = buf[i:i + n], i + n
        else:
            raise Broken('wire type %d' % wire)
        out.append((num, v))
    return out


def packed(v):
    """A repeated number: packed bytes, or one varint."""
    if isinstance(v, int):
        return [v]
    out, i = [], 0
    while i < len(v):
        x, i = varint(v, i)
        out.append(x)
    return out


def signed(v):
    return v - (1 << 64) if v >= 1 << 63 else v


def message(v, names):
    need(isinstance(v, bytes), 'a message where a number is')
    m = {}
    for num, x in fields(v):
        if num in names:
            m.setdefault(names[num], []).append(x)
    return m


def one(m, key, default=0):
    return m.get(key, [default])[-1]


def decode(path):
    raw = open(path, 'rb').read()
    need(raw[:2] == b'\x1f\x8b', 'not gzip')
    buf = gzip.decompress(raw)
    top = {}
    for num, v in fields(buf):
        top.setdefault(num, []).append(v)
    strings = []
    for s in top.get(6, []):
        need(isinstance(s, bytes), 'a string that is a number')
        try:
            strings.append(s.decode('utf-8'))
        except UnicodeDecodeError:
            raise Broken('a string that is not UTF-8')
    need(strings and strings[0] == '', 'string_table[0] is not ""')

    def string(i):
        need(0 <= i < len(strings), 'string index %d outside the table' % i)
        return strings[i]

    types = []
    for v in top.get(1, []):
        m = message(v, {1: 'type', 2: 'unit'})
        types.append((string(one(m, 'type')), string(one(m, 'unit'))))
    mappings = {}
    for v in top.get(3, []):
        m = message(v, {1: 'id', 2: 'start', 3: 'limit', 4: 'offset',
                        5: 'file', 6: 'build_id', 7: 'has_functions'})
        mid = one(m, 'id')
        need(mid and mid not in mappings, 'mapping id 0 or twice')
        mappings[mid] = {'start': one(m, 'start'), 'limit': one(m, 'limit'),
                         'file': string(one(m, 'file')),
                         'build_id': string(one(m, 'build_id')),
                         'has_functions': bool(one(m, 'has_functions'))}
    functions = {}
    for v in top.get(5, []):
        m = message(v, {1: 'id', 2: 'name', 3: 'system_name', 4: 'filename'})
        fid = one(m, 'id')
        need(fid and fid not in functions, 'function id 0 or twice')
        functions[fid] = string(one(m, 'name'))
        string(one(m, 'system_name'))
        string(one(m, 'filename'))
    locations = {}
    for v in top.get(4, []):
        m = message(v, {1: 'id', 2: 'mapping_id', 3: 'address', 4: 'line'})
        lid = one(m, 'id')
        need(lid and lid not in locations, 'location id 0 or twice')
        mid = one(m, 'mapping_id')
        need(not mid or mid in mappings, 'a location of no mapping')
        addr = one(m, 'address')
        if mid:
            need(mappings[mid]['start'] <= addr < mappings[mid]['limit'],
                 'an address outside its mapping')
        lines = []
        for line in m.get('line', []):
            fid = one(message(line, {1: 'function_id'}), 'function_id')
            need(fid in functions, 'a line of no function')
            lines.append(functions[fid])
        locations[lid] = {'address': addr, 'mapping': mid, 'lines': lines}
    addrs = [loc['address'] for loc in locations.values()]
    need(len(addrs) == len(set(addrs)), 'two locations of one address')
    samples, sums = [], [0] * len(types)
    for v in top.get(2, []):
        m = message(v, {1: 'location_id', 2: 'value', 3: 'label'})
        ids = [x for p in m.get('location_id', []) for x in packed(p)]
        values = [signed(x) for p in m.get('value', []) for x in packed(p)]
        need(len(values) == len(types), 'a sample without a value per type')
        need(all(i in locations for i in ids), 'a sample of no location')
        labels = {}
        for lab in m.get('label', []):
            lm = message(lab, {1: 'key', 2: 'str', 3: 'num', 4: 'num_unit'})
            key = string(one(lm, 'key'))
            need(key, 'a label without a key')
            need(key not in labels, 'a label key twice in a sample')
            if one(lm, 'str'):
                labels[key] = string(one(lm, 'str'))
            else:
                labels[key] = [signed(one(lm, 'num')),
                               string(one(lm, 'num_unit'))]
        stack = [locations[i]['lines'][0] if locations[i]['lines'] else
                 '0x%x' % locations[i]['address'] for i in ids]
        samples.append({'stack': stack, 'values': values, 'labels': labels,
                        'mappings': [locations[i]['mapping'] for i in ids]})
        sums = [a + b for a, b in zip(sums, values)]
    comments = [string(i) for p in top.get(13, []) for i in packed(p)]
    default = string(top.get(14, [0])[-1])
    period_type = None
    if 11 in top:
        m = message(top[11][-1], {1: 'type', 2: 'unit'})
        period_type = [string(one(m, 'type')), string(one(m, 'unit'))]
    return {
        'types': ['%s/%s' % t for t in types],
        'sums': dict(('%s/%s' % t, s) for t, s in zip(types, sums)),
        'samples': samples,
        'mappings': list(mappings.values()),
        'nr_locations': len(locations),
        'nr_functions': len(functions),
        'nr_strings': len(strings),
        'comments': comments,
        'default_sample_type': default,
        'period_type': period_type,
        'period': signed(top.get(12, [0])[-1]),
        'time_nanos': signed(top.get(9, [0])[-1]),
        'duration_nanos': signed(top.get(10, [0])[-1]),
    }


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip().split('\n\n')[-1], file=sys.stderr)
        return 2
    try:
        json.dump(decode(sys.argv[1]), sys.stdout, indent=1)
    except (Broken, OSError, EOFError) as e:
        print('kmem_pprof_decode: %s: %s' % (sys.argv[1], e), file=sys.stderr)
        return 1
    print()
    return 0


if __name__ == '__main__':
    sys.exit(main())
