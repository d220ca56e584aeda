#!/bin/bash
# perf kmem stat --page --map: an SVG map whose blocks match perf script (exclusive)
# SPDX-License-Identifier: GPL-2.0
#
# Records page allocations with perf kmem record --page and draws them
# with --map.  The file must be XML (xmllint), render (rsvg-convert), and
# every cell's tooltip must give the allocations per migration type column
# that an independent count of perf script's mm_page_alloc events gives
# for the cell's pfn range (each pageblock an allocation lies in counts
# it once).  A cell whose pageblocks got only Movable allocations must
# render in the Movable colour.  And where Debian's chromium is installed
# it must load the file without errors.

set -u

# shellcheck source-path=SCRIPTDIR source=lib/kmem_common.sh
. "$(dirname "$0")/lib/kmem_common.sh"
kmem_need_tracepoints
kmem_need_commands xmllint rsvg-convert python3

kmem_scratch map
data="$dir/perf.data"

kmem_record_or_skip "$data" --page -- sh -c \
	'ls -R /usr/lib >/dev/null; cat /usr/bin/* >/dev/null 2>&1
	 seq 300000 | sort -r >/dev/null'

# The pageblock order from the extfrag format, or the running kernel's.
order=$(awk '/^Page block order:/ { print $4 }' /proc/pagetypeinfo 2>/dev/null)
perf kmem stat --page --map "$dir/map.svg" --pageblock-order "${order:-9}" \
	-i "$data" >/dev/null 2>"$dir/err" ||
	fail "perf kmem stat --page --map: $(tail -n 1 "$dir/err")"
xmllint --noout "$dir/map.svg" 2>"$dir/xmllint" ||
	fail "the map is not XML: $(head -n 2 "$dir/xmllint")"
rsvg-convert -o "$dir/map.png" "$dir/map.svg" 2>"$dir/rsvg" ||
	fail "rsvg-convert cannot render the map: $(head -n 2 "$dir/rsvg")"
perf script -i "$data" -F event,trace 2>/dev/null >"$dir/script"

# The subtitle counts what the text and JSON count: pageblocks allocated
# into, not those only fallen back into.
perf kmem stat --page --json --pageblock-order "${order:-9}" -i "$data" \
	2>/dev/null >"$dir/stat.json"
want=$(python3 -c 'import json, sys
print(json.load(open(sys.argv[1]))["page"]["fragmentation"]["mixed_pageblocks"]["touched"])' \
	"$dir/stat.json" 2>/dev/null)
got=$(grep -o '[0-9]* pageblocks allocated into' "$dir/map.svg" | cut -d' ' -f1)
if [ -z "$want" ] || [ "$got" != "$want" ]; then
	fail "the map says ${got:-no} pageblocks allocated into, the JSON ${want:-none}"
fi

python3 - "$dir" "${order:-9}" "$(getconf PAGESIZE)" <<'PYEOF' || err=1
import re
import struct
import sys
import zlib

d, pbo, page_size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
COLUMNS = {0: 0, 1: 2, 2: 1}    # Unmovable, Movable, Reclaimable; else Special
ok = True


def bad(msg):
    global ok
    ok = False
    print('FAIL: ' + msg)


# Allocations per pageblock and column, from perf script.
blocks = {}
for line in open(d + '/script'):
    m = re.search(r'mm_page_alloc: .*pfn=0x([0-9a-f]+) order=(\d+) '
                  r'migratetype=(-?\d+)', line)
    if not m:
        continue
    pfn, order, mt = int(m.group(1), 16), int(m.group(2)), int(m.group(3))
    for i in range(max(1, 1 << max(0, order - pbo))):
        b = ((pfn >> pbo) + i) << pbo
        blocks.setdefault(b, [0, 0, 0, 0])[COLUMNS.get(mt, 3)] += 1

svg = open(d + '/map.svg').read()
cells = re.findall(r'<g><title>pfn 0x([0-9a-f]+)-0x([0-9a-f]+): [^\n]*\n'
                   r'allocations: Unmovable (\d+), Reclaimable (\d+), '
                   r'Movable (\d+), Special (\d+)\n[^<]*</title>'
                   r'<rect x="(\d+)" y="(\d+)" width="(\d+)" height="(\d+)"',
                   svg)
seen, drawn, movable = 0, 0, None
for c in cells:
    lo, hi = int(c[0], 16), int(c[1], 16)
    got = [int(x) for x in c[2:6]]
    want = [0, 0, 0, 0]
    for b, counts in blocks.items():
        if lo <= b <= hi:
            want = [w + n for w, n in zip(want, counts)]
    seen += 1
    drawn += sum(got)
    if got != want:
        bad('cell 0x%x-0x%x: map %s, perf script %s' % (lo, hi, got, want))
    if movable is None and got[2] and not got[0] + got[1] + got[3]:
        movable = [int(x) for x in c[6:10]]
total = sum(sum(v) for v in blocks.values())
print('%d cells, %d allocations in them, %d in perf script' %
      (seen, drawn, total))
if drawn != total or seen < 5:
    bad('the cells hold %d allocations of %d' % (drawn, total))

# The PNG: a Movable-only cell's centre has the Movable colour.
png = open(d + '/map.png', 'rb').read()
w, h, depth, ctype = struct.unpack('>IIBB', png[16:26])
idat = b''
pos = 8
while pos < len(png):
    n, kind = struct.unpack('>I4s', png[pos:pos + 8])
    if kind == b'IDAT':
        idat += png[pos + 8:pos + 8 + n]
    pos += 12 + n
raw = zlib.decompress(idat)
bpp = {2: 3, 6: 4}[ctype]
stride = w * bpp
rows, prev = [], bytearray(stride)
for y in range(h):
    f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = line[i - bpp] if i >= bpp else 0
        b, c = prev[i], prev[i - bpp] if i >= bpp else 0
        p = a + b - c
        pred = {0: 0, 1: a, 2: b, 3: (a + b) // 2,
                4: a if abs(p - a) <= abs(p - b) and abs(p - a) <= abs(p - c)
                else (b if abs(p - b) <= abs(p - c) else c)}[f]
        line[i] = (line[i] + pred) & 0xff
    rows.append(bytes(line))
    prev = line
style = re.search(r'\.m\s*\{[^}]*fill:\s*#([0-9a-fA-F]{6})', svg)
if movable and style:
    x, y = movable[0] + movable[2] // 2, movable[1] + movable[3] // 2
    pix = rows[y][x * bpp:x * bpp + 3].hex()
    print('a Movable-only cell at %d,%d renders #%s, Movable is #%s' %
          (x, y, pix, style.group(1).lower()))
    if pix != style.group(1).lower():
        bad('a Movable-only cell renders #%s, not #%s' % (pix, style.group(1)))
elif not movable:
    bad('no cell of Movable allocations only')
sys.exit(0 if ok else 1)
PYEOF

# A real browser loads it, where one is installed.
for browser in chromium chromium-browser; do
	command -v $browser >/dev/null || continue
	timeout 60 $browser --headless --no-sandbox --disable-gpu \
		--disable-background-networking --no-first-run \
		--user-data-dir="$dir/chromium" --dump-dom "file://$dir/map.svg" \
		>"$dir/dom" 2>"$dir/chromium.log"
	grep -q '<svg' "$dir/dom" || fail "$browser cannot load the map"
	grep -qi 'error on line' "$dir/dom" && fail "$browser: $(grep -i -m1 'error' "$dir/dom")"
	break
done

# Bad input: a trace without page allocations, an unwritable file.
perf kmem stat --page --map /nonexistent/dir/map.svg -i "$data" \
	>/dev/null 2>"$dir/err"
rc=$?
if [ $rc -ne 1 ] || [ "$(wc -l <"$dir/err")" -ne 1 ]; then
	fail "an unwritable --map: exit $rc, $(cat "$dir/err")"
fi
perf record -q -e cpu-clock -o "$dir/cycles.data" -- true >/dev/null 2>&1
perf kmem stat --page --map "$dir/none.svg" -i "$dir/cycles.data" \
	>/dev/null 2>"$dir/err"
rc=$?
if [ $rc -ne 1 ] || [ "$(wc -l <"$dir/err")" -ne 1 ] || [ -e "$dir/none.svg" ]; then
	fail "a trace without page events: exit $rc, $(cat "$dir/err")"
fi
[ -e /nonexistent/dir/map.svg ] && fail "a half-written map was left"

kmem_result "kmem map test"
