#!/bin/bash
# perf kmem stat on bad input: one line, non-zero exit, no crash (exclusive)
# SPDX-License-Identifier: GPL-2.0
#
# Each broken or unsuitable perf.data must get one line on stderr, starting
# "perf kmem:" and naming the problem, and exit 1: never a signal, never a
# page of perf's own warnings.  Where perf's reader stops at a record it
# cannot read, it says where and why first: at most two lines of its own.

set -u

# shellcheck source-path=SCRIPTDIR source=lib/kmem_common.sh
. "$(dirname "$0")/lib/kmem_common.sh"
kmem_need_tracepoints

kmem_scratch bad-input
failures=0

good="$dir/good.data"
if ! perf kmem record --page -o "$good" -- \
	sh -c 'cat /usr/bin/ls >/dev/null; ls -R /usr/lib >/dev/null' \
	>"$dir/record.log" 2>&1; then
	echo "skip: cannot record: $(tail -n 1 "$dir/record.log")"
	exit 2
fi
size=$(stat -c %s "$good")

# expect NAME WORDS FILE [OPTIONS...]: one line on stderr holding WORDS,
# after at most $perf_lines lines of perf's own.
perf_lines=0
expect() {
	local name=$1 words=$2 file=$3 rc lines

	shift 3
	perf kmem stat "$@" -i "$file" >"$dir/out" 2>"$dir/err"
	rc=$?
	lines=$(wc -l <"$dir/err")
	if [ "$rc" -ne 1 ] || [ "$lines" -lt 1 ] ||
	   [ "$lines" -gt $((perf_lines + 1)) ] ||
	   [ "$(grep -c '^perf kmem: ' "$dir/err")" -ne 1 ] ||
	   ! tail -n 1 "$dir/err" | grep -q "^perf kmem: .*$words"; then
		echo "FAIL $name: exit $rc, $lines stderr lines, want 1 line with '$words':"
		sed 's/^/    /' "$dir/err" | head -n 5
		failures=$((failures + 1))
	else
		echo "ok   $name: $(tail -n 1 "$dir/err")"
	fi
}

# Cut in the middle of the data section.
head -c $((size / 2)) "$good" >"$dir/truncated.data"
expect "truncated file" "truncated" "$dir/truncated.data" --page

# 4 KiB of garbage in the middle of the data section.
cp "$good" "$dir/garbage.data"
dd if=/dev/urandom of="$dir/garbage.data" bs=4096 count=1 \
	seek=$((size / 8192)) conv=notrunc status=none
perf_lines=2
expect "garbage in the data" "corrupt after" "$dir/garbage.data" --page
perf_lines=0
# ...and what comes before the garbage is still analysed and shown.
if ! grep -q "SUMMARY (page allocator)" "$dir/out"; then
	echo "FAIL garbage in the data: no analysis of the intact part"
	failures=$((failures + 1))
fi

# What a perf record killed by SIGKILL leaves: data size 0 in the header.
perf kmem record --page -o "$dir/killed.data" -- sleep 10 >/dev/null 2>&1 &
sleep 2
pkill -KILL -f "kmem record --page -o $dir/killed.data"
wait 2>/dev/null
expect "killed perf record" "did not finish" "$dir/killed.data" --page

: >"$dir/empty.data"
expect "empty file" "empty" "$dir/empty.data" --page

echo "not a perf.data file" >"$dir/text.data"
expect "not perf.data" "not a perf.data file" "$dir/text.data" --page

expect "missing file" "No such file" "$dir/nonexistent.data" --page

# A trace whose tracepoint formats are gone: its header's feature table
# without the HEADER_TRACING_DATA (bit 1) entry.
cp "$good" "$dir/noformat.data"
python3 - "$dir/noformat.data" <<'PY'
import struct, sys
path = sys.argv[1]
b = bytearray(open(path, 'rb').read())
data_offset, data_size = struct.unpack_from('<QQ', b, 40)
bitmap = int.from_bytes(b[72:104], 'little')
feats = [i for i in range(256) if bitmap >> i & 1]
table = data_offset + data_size
sections = [b[table + 16 * i:table + 16 * i + 16] for i in range(len(feats))]
kept = [s for f, s in zip(feats, sections) if f != 1]
b[table:table + 16 * len(kept)] = b''.join(kept)
b[72:104] = (bitmap & ~2).to_bytes(32, 'little')
open(path, 'wb').write(b)
PY
expect "no tracepoint formats" "no tracepoint formats" "$dir/noformat.data" --page

perf record -q -e cpu-clock -o "$dir/cycles.data" -- true >/dev/null 2>&1
expect "no page events" "no page allocator events" "$dir/cycles.data" --page
expect "no slab events" \
	"no slab allocator events, but page allocator events: use 'perf kmem stat --page'" \
	"$good" --slab
# Without --page, --slab or kmem.default: what the trace has.
if perf kmem stat -i "$good" 2>"$dir/err" | grep -q "SUMMARY (page allocator)"; then
	echo "ok   page-only trace, no --page: the page analysis"
else
	echo "FAIL page-only trace, no --page: $(head -n 1 "$dir/err")"
	failures=$((failures + 1))
fi
expect "no slab events at all" "no slab allocator events: record them with 'perf kmem record --slab'" \
	"$dir/cycles.data"
# The same advice under diff names diff.
want="no slab allocator events, but page allocator events: use 'perf kmem diff --page'"
perf kmem diff --slab "$good" "$good" >"$dir/out" 2>"$dir/err"
rc=$?
if [ "$rc" -ne 1 ] || [ "$(grep -c . "$dir/err")" -ne 1 ] ||
   ! grep -q "^perf kmem: .*$want" "$dir/err"; then
	echo "FAIL no slab events, diff: exit $rc: $(head -n 2 "$dir/err")"
	failures=$((failures + 1))
else
	echo "ok   no slab events, diff: $(cat "$dir/err")"
fi

# A perf.data file given as standard input is not a stream.
expect "file on stdin" "no 'perf record -o -' stream on it" - --page <"$good"

expect "unknown sort key" "unknown sort key 'bogus'" "$good" --page -s bogus
expect "bad --time" "invalid --time" "$good" --page --time nonsense
expect "--time outside" "no kmem event in --time 1,2: the trace's are from" \
	"$good" --page --time 1,2
# parse-options' OPT_INTEGER would take 4294967297 as 1.
expect "-l too big" "invalid -l '4294967297'" "$good" --page -l 4294967297
expect "-l negative" "invalid -l '-3'" "$good" --page -l -3
expect "--pageblock-order" "invalid --pageblock-order '4294967305'" \
	"$good" --page --pageblock-order 4294967305
expect "nine sort keys" "too many sort keys for --page: at most 8" "$good" \
	--page -s bytes,hit,order,gfp,migtype,page,xnode,callsite,frag
expect "--map of order 31" "--map draws pageblocks of order 30 at most, not 31" \
	"$good" --page --map "$dir/map.svg" --pageblock-order 31
expect "--map without --page" "--map draws the page analysis: add --page" \
	"$good" --slab --map "$dir/map.svg"
expect "unreadable --kallsyms" "cannot read --kallsyms $dir/none: No such file" \
	"$good" --page --kallsyms "$dir/none"

# Another machine's trace without its kernel's symbols (the bundled one,
# an empty build-id cache): one line, and callsites marked unresolved.
sample="${KMEM_DATA:-$(dirname "$0")/../../data}/sample.perf.data"
if [ -f "$sample" ] && ! grep -q "$(uname -r)" "$sample" 2>/dev/null; then
	mkdir -p "$dir/no-buildids"
	perf --buildid-dir "$dir/no-buildids" kmem stat --page --caller -l 3 \
		-i "$sample" >"$dir/out" 2>"$dir/err"
	line="no symbols of the recording kernel (.*, build-id [0-9a-f]*)"
	line="$line in the build-id cache .*perf archive"
	if [ "$(grep -c . "$dir/err")" -ne 1 ] || ! grep -q "$line" "$dir/err" ||
	   ! grep -q "| (unresolved) 0x" "$dir/out"; then
		echo "FAIL no kernel symbols: $(head -n 2 "$dir/err")"
		failures=$((failures + 1))
	else
		echo "ok   no kernel symbols: $(cut -c1-100 "$dir/err")..."
	fi
fi

# Sampled: counts of sampled events, and no allocated+freed split.
sampled="kmem:mm_page_alloc was sampled, one event in 2: counts are of"
sampled="$sampled sampled events, and allocations and frees cannot be paired"
if perf record -q -c 2 -e kmem:mm_page_alloc -e kmem:mm_page_free \
	-o "$dir/sampled.data" -- true >/dev/null 2>&1; then
	if ! perf kmem stat --page -i "$dir/sampled.data" >"$dir/out" 2>"$dir/err" ||
	   ! grep -q "$sampled" "$dir/err" ||
	   grep -q "allocated+freed" "$dir/out" ||
	   ! grep -q "Total allocations:" "$dir/out" ||
	   ! perf kmem stat --page --json -i "$dir/sampled.data" 2>/dev/null |
		grep -q '"sampled": "kmem:mm_page_alloc was sampled, one event in 2"'; then
		echo "FAIL sampled recording: $(tail -n 1 "$dir/err")"
		failures=$((failures + 1))
	else
		echo "ok   sampled recording: $(tail -n 1 "$dir/err")"
	fi
fi

if [ "$failures" -ne 0 ]; then
	echo "kmem bad input test [Failed: $failures]"
	exit 1
fi
echo "kmem bad input test [Success]"
exit 0
