#!/bin/bash
# perf kmem stat on corrupt perf.data: no crash, one line or an analysis (exclusive)
# SPDX-License-Identifier: GPL-2.0
#
# Each case edits a real recording the way one crash of perf's readers
# was found (scripts/mutate-perf-data.py finds them) and runs perf kmem
# stat on it, with the perf in PATH and, if KMEM_ASAN_PERF names one, with
# a perf built with ASan+UBSan, which sees what the normal build may
# survive.  A run passes when it ends without a signal or a sanitizer
# report, and either exits 1 with one line on stderr or exits 0 with an
# analysis and nothing on stderr but perf kmem's own lines.

set -u

# shellcheck source-path=SCRIPTDIR source=lib/kmem_common.sh
. "$(dirname "$0")/lib/kmem_common.sh"
kmem_need_tracepoints

kmem_scratch corrupt

good="$dir/good.data"
kmem_record_or_skip "$good" --page -- \
	sh -c 'cat /usr/bin/ls >/dev/null; ls /usr/lib >/dev/null'

perfs=perf
if [ -n "${KMEM_ASAN_PERF:-}" ] && [ -x "$KMEM_ASAN_PERF" ]; then
	perfs="perf $KMEM_ASAN_PERF"
fi
# libtraceevent, a system library, leaks a token when it gives up on a
# corrupt print fmt; perf cannot free that (the man page's KNOWN ISSUES).
echo "leak:libtraceevent.so" >"$dir/lsan.supp"
export ASAN_OPTIONS=detect_leaks=1
export LSAN_OPTIONS="suppressions=$dir/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

# edit.py IN OUT CASE: one corruption of a perf.data file.  It finds the
# parts of the file from its header and feature table; the tracing data
# (feature 1) from its own layout.
cat >"$dir/edit.py" <<'PY'
import struct, sys

src, dst, case = sys.argv[1:4]
b = bytearray(open(src, 'rb').read())
attr_size, attrs_off, attrs_size, data_off, data_size = \
    struct.unpack_from('<QQQQQ', b, 16)
bits = int.from_bytes(b[72:104], 'little')
feats = [f for f in range(256) if bits >> f & 1]
table = data_off + data_size
sections = {f: struct.unpack_from('<QQ', b, table + 16 * i)
            for i, f in enumerate(feats)}


def section(feat):
    off, size = sections[feat]
    return bytearray(b[off:off + size])


def rebuild(new):
    """The file with the contents of some feature sections replaced."""
    out = b[:table]
    pos = table + 16 * len(feats)
    body = bytearray()
    for f in feats:
        sec = new[f] if f in new else section(f)
        out += struct.pack('<QQ', pos + len(body), len(sec))
        body += sec
    return out + body


def event_formats(td):
    """(offset of the size, text) of each event format in tracing data."""
    pos = td.index(b'\0', 10) + 1 + 2 + 4
    for tag in (b'header_page\0', b'header_event\0'):
        pos += len(tag)
        pos += 8 + struct.unpack_from('<Q', td, pos)[0]
    count, = struct.unpack_from('<I', td, pos)
    pos += 4
    for _ in range(count):
        pos += 8 + struct.unpack_from('<Q', td, pos)[0]
    systems, = struct.unpack_from('<I', td, pos)
    pos += 4
    found = []
    for _ in range(systems):
        pos = td.index(b'\0', pos) + 1
        count, = struct.unpack_from('<I', td, pos)
        pos += 4
        for _ in range(count):
            size, = struct.unpack_from('<Q', td, pos)
            found.append((pos, bytes(td[pos + 8:pos + 8 + size])))
            pos += 8 + size
    return found, pos


def format_of(td, name):
    found, _ = event_formats(td)
    return [f for f in found if b'\nname: ' + name + b'\n' in b'\n' + f[1]][0]


def records():
    pos = data_off
    while pos < data_off + data_size:
        rtype, _, size = struct.unpack_from('<IHH', b, pos)
        yield pos, rtype, size
        pos += size


def first_sample():
    return next((p, s) for p, t, s in records() if t == 9)


def grow_record(pos, size, by):
    """Record at @pos longer by @by bytes, all that follows moved."""
    out = b[:pos + size] + bytes(by) + b[pos + size:]
    struct.pack_into('<H', out, pos + 6, size + by)
    struct.pack_into('<Q', out, 48, data_size + by)
    for i, f in enumerate(feats):
        struct.pack_into('<Q', out, table + by + 16 * i,
                         sections[f][0] + by)
    return out


SAMPLE_RAW = 1 << 10
SAMPLE_IDENTIFIER = 1 << 16
# identifier, ip, tid, time, addr, id, stream_id, cpu, period: before the
# callchain and the raw data.
BEFORE_CHAIN = (1 << 16, 1, 2, 4, 8, 64, 512, 128, 256)


def sample_type_of(pos, types):
    if len(set(types.values())) == 1:
        return next(iter(types.values()))
    return types.get(struct.unpack_from('<Q', b, pos + 8)[0], 0)


def raw_samples(nr):
    """The first @nr samples with raw data: (record, size, raw size at)."""
    types, found = {}, []
    for pos in range(attrs_off, attrs_off + attrs_size, attr_size):
        st = struct.unpack_from('<Q', b, pos + 24)[0]
        ids_off, ids_size = struct.unpack_from('<QQ', b, pos + attr_size - 16)
        for i in range(ids_off, ids_off + ids_size, 8):
            types[struct.unpack_from('<Q', b, i)[0]] = st
    for pos, rtype, size in records():
        st = sample_type_of(pos, types) if rtype == 9 else 0
        if not st & SAMPLE_RAW:
            continue
        at = pos + 8 + 8 * sum(1 for bit in BEFORE_CHAIN if st & bit)
        if st & (1 << 5):
            at += 8 + 8 * struct.unpack_from('<Q', b, at)[0]
        found.append((pos, size, at))
        if len(found) == nr:
            break
    if len(found) < nr:
        sys.exit('fewer than %d samples with raw data' % nr)
    return found


def drop_records(spans):
    """The file without the records of @spans, all that follows moved."""
    out, last, gone = bytearray(), 0, 0
    for pos, size, _ in spans:
        out += b[last:pos]
        last, gone = pos + size, gone + size
    out += b[last:]
    struct.pack_into('<Q', out, 48, data_size - gone)
    for i, f in enumerate(feats):
        struct.pack_into('<Q', out, table - gone + 16 * i,
                         sections[f][0] - gone)
    return out


td = section(1)
if case == 'longer-event-name':
    # The format's size left as it was: the reader runs into the next one.
    pos, text = format_of(td, b'mm_page_free')
    td[pos + 8:pos + 8 + len(text)] = text.replace(
        b'name: mm_page_free', b'name: mm_page_freeXX', 1)
    b = rebuild({1: td})
elif case == 'renamed-field':
    # print fmt still says __print_flags(REC->gfp_flags, ...).
    pos, text = format_of(td, b'mm_page_alloc')
    td[pos + 8:pos + 8 + len(text)] = text.replace(
        b' gfp_flags;', b' gfp_flagx;', 1)
    b = rebuild({1: td})
elif case == 'header-event-size':
    # Skipped in 2^37 reads of BUFSIZ bytes, each failing at the end of
    # the file: hours.
    pos = td.index(b'header_event\0') + len(b'header_event\0')
    struct.pack_into('<Q', td, pos, 1 << 50)
    b = rebuild({1: td})
elif case == 'field-without-type':
    # libtraceevent leaked the "unsigned" it took for a name (patches/0020).
    pos, text = format_of(td, b'mm_page_alloc')
    new = text.replace(b'field:unsigned char common_preempt_count',
                       b'field:unsigned`char common_preempt_count', 1)
    assert new != text
    td[pos + 8:pos + 8 + len(text)] = new
    b = rebuild({1: td})
elif case == 'field-offset':
    # pfn moved onto common_pid: the numbers would come from other bytes.
    pos, text = format_of(td, b'mm_page_alloc')
    new = text.replace(b'pfn;\toffset:8;', b'pfn;\toffset:4;', 1)
    assert new != text
    td[pos + 8:pos + 8 + len(text)] = new
    b = rebuild({1: td})
elif case == 'huge-format-size':
    pos, _ = format_of(td, b'mm_page_alloc')
    struct.pack_into('<Q', td, pos, 1 << 62)
    b = rebuild({1: td})
elif case == 'printk-without-format':
    _, pos = event_formats(td)
    pos += 4 + struct.unpack_from('<I', td, pos)[0]      # kallsyms
    size, = struct.unpack_from('<I', td, pos)
    line = b'0xffffffff81000000\n'
    td[pos:pos + 4 + size] = struct.pack('<I', len(line)) + line
    b = rebuild({1: td})
elif case == 'cpu-string-unterminated':
    # The first list of sibling cores, after their count: no zero in it.
    cpus = section(13)
    size, = struct.unpack_from('<I', cpus, 4)
    cpus[8:8 + size] = b'0' * size
    b = rebuild({13: cpus})
elif case == 'mem-bitmap-size':
    # version, block size, nodes; node 0: number, size, bitmap size.
    mem = section(22)
    struct.pack_into('<Q', mem, 40, (1 << 32) + 64)
    b = rebuild({22: mem})
elif case == 'nr-cpus':
    cpus = section(7)
    struct.pack_into('<I', cpus, 0, 0x80000000)
    b = rebuild({7: cpus})
elif case == 'cmdline-count':
    cmd = section(11)
    struct.pack_into('<I', cmd, 0, 0xffffffff)
    b = rebuild({11: cmd})
elif case == 'build-id-size':
    ids = section(2)
    struct.pack_into('<H', ids, 6, 0x2000)
    b = rebuild({2: ids})
elif case == 'attr-ids-size':
    struct.pack_into('<Q', b, attrs_off + attr_size - 8, (1 << 64) - 8)
elif case == 'hostname-length':
    # Every feature after the hostname must still be read.
    host = section(3)
    struct.pack_into('<I', host, 0, 0xffffffff)
    b = rebuild({3: host})
elif case == 'numa-outside-file':
    # The NUMA topology's section points past the end of the file.
    i = feats.index(14)
    struct.pack_into('<Q', b, table + 16 * i, len(b) + 4096)
elif case == 'numa-node-id':
    # Node 0's id, after the node count, as 2^31 - 1.
    numa = section(14)
    struct.pack_into('<I', numa, 4, 0x7fffffff)
    b = rebuild({14: numa})
elif case == 'dir-format-bit':
    b[72 + 24 // 8] |= 1 << 24 % 8
elif case == 'record-size-unaligned':
    pos, size = first_sample()
    b = grow_record(pos, size, 4)
elif case == 'auxtrace-skip':
    # An auxtrace record skips the data after it, 4 bytes here.
    pos, size = first_sample()
    struct.pack_into('<IHHQ', b, pos, 71, 0, size, 4)
elif case == 'short-raw-data':
    # The first 100 page events' raw data said to be 8 bytes long.
    for _, _, at in raw_samples(100):
        struct.pack_into('<I', b, at, 8)
elif case == 'short-raw-dropped':
    b = drop_records(raw_samples(100))
else:
    sys.exit('unknown case ' + case)
open(dst, 'wb').write(b)
PY

# A sanitizer report, or a signal (an exit status above 128; 137 is the
# timeout's SIGKILL of a hung run).
crashed() {
	grep -qE 'ERROR: (Address|Leak)Sanitizer|runtime error:|SUMMARY: .*Sanitizer' "$1" ||
		[ "$2" -gt 128 ]
}

# One line naming the problem and exit 1, or an analysis and exit 0 with
# nothing on stderr but perf kmem's own lines.
well_behaved() {
	local rc=$1 err=$2 out=$3 lines

	lines=$(grep -c . "$err")
	if [ "$rc" -eq 1 ]; then
		[ "$lines" -eq 1 ] && grep -q '^perf kmem: ' "$err"
	else
		[ "$rc" -eq 0 ] && grep -q 'SUMMARY (page allocator)' "$out" &&
			! grep -qv '^perf kmem: ' "$err"
	fi
}

# expect CASE [WORDS]: the edited recording gets no crash and one line or
# an analysis from each perf; with WORDS (an extended regex), stdout must
# match it.
expect() {
	local name=$1 words=${2:-} file="$dir/$1.data" p rc

	if ! python3 "$dir/edit.py" "$good" "$file" "$name"; then
		fail "$name: cannot make the input"
		return
	fi
	for p in $perfs; do
		timeout -s KILL 120 "$p" kmem stat --page --caller -i "$file" \
			>"$dir/out" 2>"$dir/err"
		rc=$?
		if crashed "$dir/err" "$rc" ||
		   ! well_behaved "$rc" "$dir/err" "$dir/out" ||
		   { [ -n "$words" ] && ! grep -qE "$words" "$dir/out"; }; then
			fail "$name ($p): exit $rc${words:+, want: $words}"
			grep -v '^ *#[0-9]* 0x' "$dir/err" | head -n 8 | sed 's/^/    /'
		else
			echo "ok   $name ($p): exit $rc, $(head -n 1 "$dir/err")"
		fi
	done
}

# expect_error CASE REGEX [strict]: exit 1 from each perf, its one line
# matching REGEX; with strict, a leak in libtraceevent counts too.
expect_error() {
	local name=$1 words=$2 file="$dir/$1.data" p rc lsan=$LSAN_OPTIONS

	if ! python3 "$dir/edit.py" "$good" "$file" "$name"; then
		fail "$name: cannot make the input"
		return
	fi
	[ -n "${3:-}" ] && lsan=print_suppressions=0
	for p in $perfs; do
		LSAN_OPTIONS=$lsan timeout -s KILL 120 "$p" kmem stat --page \
			--caller -i "$file" >"$dir/out" 2>"$dir/err"
		rc=$?
		if crashed "$dir/err" "$rc" || [ "$rc" -ne 1 ] ||
		   [ "$(grep -c . "$dir/err")" -ne 1 ] ||
		   ! grep -qE "$words" "$dir/err"; then
			fail "$name ($p): exit $rc, want: $words"
			head -n 8 "$dir/err" | sed 's/^/    /'
		else
			echo "ok   $name ($p): exit $rc, $(head -n 1 "$dir/err")"
		fi
	done
}

# The tracing data (util/trace-event-*.c).
expect longer-event-name
expect renamed-field
expect huge-format-size
expect header-event-size
expect printk-without-format
# A field without a type, which libtraceevent leaked a word on.
expect_error field-without-type "its tracing data is corrupt" strict
# Found by perf kmem's decoder: a format that would be read wrong.
expect_error field-offset "format of kmem:mm_page_alloc is corrupt: field 'pfn'"
# The feature sections (util/header.c).
expect cpu-string-unterminated
expect mem-bitmap-size
expect nr-cpus
expect cmdline-count
expect build-id-size
expect attr-ids-size
# The NUMA topology, read after the corrupt hostname, is there: one node,
# or the cross-node analysis of several.
expect hostname-length \
	"the trace has one NUMA node|CROSS-NODE TRAFFIC|NUMA nodes, perf kmem follows"
expect dir-format-bit
# A topology that cannot be read, or names a node no kernel can have, is
# not "not in this trace".
expect numa-outside-file "NUMA or memory topology in this trace is corrupt"
expect numa-node-id "NUMA or memory topology in this trace is corrupt"
# The event stream (util/session.c).
expect record-size-unaligned
expect auxtrace-skip

# A failure that quotes perf kmem's line that it stopped in a recording
# keeps a copy of the recording, once, with perf's own line of where it
# stopped and why (kmem_keep_rejected, which fail calls): that offset in
# the file is the data section's, from the file header, plus the bytes
# the line says were read.
keep_check() {
	local file="$dir/record-size-unaligned.data" line got kept why off read

	[ -f "$file" ] || return
	line=$(perf kmem stat --page -i "$file" 2>&1 >/dev/null | tail -n 1)
	got=$(KMEM_KEEP_DIR=$dir
	      kmem_keep_rejected "first: $line"
	      kmem_keep_rejected "again: $line"
	      kmem_keep_rejected "no recording named here")
	kept=$(sed -n 's/^kept: .* in \(.*\)\/ (.*$/\1/p' <<<"$got")
	why=$(sed -n 's/^\(0x[0-9a-f]*\) \[0x[0-9a-f]*\]: failed to process type: 9 .*/\1/p' \
		"$kept/why" 2>/dev/null)
	off=$(python3 -c 'import struct, sys
print(struct.unpack_from("<Q", open(sys.argv[1], "rb").read(), 40)[0])' "$file")
	read=$(sed -En 's/.* corrupt (data )?after ([0-9,]+) of .*/\2/p' <<<"$line" | tr -d ,)
	if [ "$(grep -c '^kept: ' <<<"$got")" -ne 1 ] || [ -z "$kept" ] ||
	   ! cmp -s "$file" "$kept/${file##*/}"; then
		fail "kept recording: once, a copy: got '$got' of '$line'"
	elif [ -z "$why" ] || [ -z "$read" ] || [ $((why)) -ne $((off + read)) ]; then
		fail "kept recording: perf's stop at ${why:-none}, want $off + ${read:-none}"
	else
		echo "ok   kept recording: $got"
	fi
}
keep_check
# Samples too short for their fields are counted and left out: every
# number but that count is the analysis of the file without them.
expect short-raw-data "Events ignored \(too short\): +100$"
if python3 "$dir/edit.py" "$good" "$dir/dropped.data" short-raw-dropped; then
	for f in short-raw-data dropped; do
		perf kmem stat --page --caller -i "$dir/$f.data" 2>/dev/null |
			grep -v 'Events ignored (too short)' >"$dir/$f.out"
	done
	if cmp -s "$dir/short-raw-data.out" "$dir/dropped.out" &&
	   grep -q 'SUMMARY (page allocator)' "$dir/dropped.out"; then
		echo "ok   short-raw-data: the analysis of the file without them"
	else
		fail "short-raw-data: not the analysis of the file without them"
		diff "$dir/short-raw-data.out" "$dir/dropped.out" | head -n 8
	fi
else
	fail "short-raw-dropped: cannot make the input"
fi

kmem_result "kmem corrupt input test"
