#!/bin/bash
# perf kmem stat -x and diff -x against their --json (exclusive)
# SPDX-License-Identifier: GPL-2.0
#
# Records page allocations (perf kmem record --page, twice) and slab
# allocations, and reads what -x , prints back with a parser of its own:
# every table a block of '# table:' and '# output:' lines and rows of as
# many cells as the header names, separated by ", " as perf lock
# contention -x separates them; the tables those of --json, and every
# cell of every row the number or name the JSON has for it (a column the
# JSON lacks, frag, from the row's bytes).  The same for perf kmem diff
# -x against diff --json.  -x '\t' and -x TAB give the cells of -x , each
# separator a tab and its space.  -o FILE writes what stdout gets; a
# separator the cells hold and -x with --json or --pprof get one line and
# exit 1.

set -u

# shellcheck source-path=SCRIPTDIR source=lib/kmem_common.sh
. "$(dirname "$0")/lib/kmem_common.sh"
kmem_need_tracepoints mm_page_alloc
kmem_need_commands python3

kmem_scratch csv
page="$dir/page.data"
page2="$dir/page2.data"
slab="$dir/slab.data"

kmem_record_or_skip "$page" --page -- \
	dd if=/dev/zero of="$dir/f" bs=64k count=200 status=none
kmem_record_or_skip "$page2" --page -- sh -c \
	"dd if=/dev/zero of='$dir/f' bs=4k count=800 status=none; ls -R /usr/lib >/dev/null"
kmem_record_or_skip "$slab" --slab -- \
	dd if=/dev/zero of="$dir/f" bs=64k count=200 status=none

# csv_check NAME CMD...: CMD -x , against CMD --json, by the parser below.
csv_check() {
	local name=$1

	shift
	if ! "$@" -x , >"$dir/$name.csv" 2>"$dir/err"; then
		fail "$* -x ,: $(tail -n 1 "$dir/err")"
		return
	fi
	if ! "$@" --json >"$dir/$name.json" 2>"$dir/err"; then
		fail "$* --json: $(tail -n 1 "$dir/err")"
		return
	fi
	python3 - "$dir/$name.csv" "$dir/$name.json" "$*" <<'PYEOF' || err=1
import json
import sys

csv_path, json_path, what = sys.argv[1:4]
doc = json.load(open(json_path))
ok = True


def bad(msg):
    global ok
    ok = False
    print('FAIL: %s -x ,: %s' % (what, msg))


# The blocks: '# table: PATH', '# output: a, b', then the rows.
blocks = []
for n, line in enumerate(open(csv_path).read().split('\n')[:-1], 1):
    if line.startswith('# table: '):
        blocks.append({'path': line[9:], 'cols': None, 'rows': []})
    elif line.startswith('# output: '):
        if not blocks or blocks[-1]['cols'] is not None:
            bad('line %d: an output line not after a table line' % n)
            continue
        blocks[-1]['cols'] = line[10:].split(', ')
    elif line.startswith('#') or not blocks or blocks[-1]['cols'] is None:
        bad('line %d: %r is not a row of a table' % (n, line))
    else:
        cells = line.split(', ')
        if len(cells) != len(blocks[-1]['cols']):
            bad('line %d: %d cells, the header names %d' %
                (n, len(cells), len(blocks[-1]['cols'])))
        blocks[-1]['rows'].append(cells)

diff = 'tables' in doc


def json_table(path):
    if diff:
        return doc['tables'].get(path)
    node = doc
    for part in path.split('.'):
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node


def json_tables(node, prefix=''):
    """The paths of the stat document's tables: objects with nr_rows."""
    found = []
    if isinstance(node, dict):
        if 'nr_rows' in node and 'rows' in node:
            found.append(prefix)
        for k, v in node.items():
            found += json_tables(v, prefix + '.' + k if prefix else k)
    return found


def member(row, name):
    node = row
    for part in name.split('.'):
        if not isinstance(node, dict) or part not in node:
            return KeyError
        node = node[part]
    return node


def same(cell, want):
    """Is a cell what the JSON has: a number, a name, null as ''?"""
    if want is None:
        return cell == ''
    if isinstance(want, bool):
        return cell == str(want).lower()
    if isinstance(want, int):
        return cell == str(want)
    if isinstance(want, float):
        return cell != '' and abs(float(cell) - want) < 0.051
    if isinstance(want, str):
        if want.startswith('0x') and cell.startswith('0x'):
            return int(cell, 16) == int(want, 16)
        return cell == want
    if 'names' in want:         # gfp: its names joined as the kernel does
        return cell == '|'.join(want['names']) or not want['names']
    if 'name' in want:          # a migration type or a callsite
        return cell == want['name'] or cell.split('+')[0] == want['name']
    return False


paths = [b['path'] for b in blocks]
if len(set(paths)) != len(paths):
    bad('a table twice: %s' % paths)
if not diff and sorted(paths) != sorted(json_tables(doc)):
    bad('tables %s, the JSON has %s' % (sorted(paths), sorted(json_tables(doc))))
if not blocks or not any(b['rows'] for b in blocks):
    bad('no table has a row')
cells = 0
for b in blocks:
    t = json_table(b['path'])
    if t is None:
        bad('%s is not a table of the JSON' % b['path'])
        continue
    if len(b['rows']) != len(t['rows']):
        bad('%s: %d rows, the JSON %d' % (b['path'], len(b['rows']), len(t['rows'])))
    cols = b['cols'] or []
    for i, (cells_of, row) in enumerate(zip(b['rows'], t['rows'])):
        got = dict(zip(cols, cells_of))
        for name, cell in got.items():
            want = member(row, name)
            if want is KeyError and name == 'frag':
                a, r = row['bytes_alloc'], row['bytes_req']
                want = 100.0 * (a - r) / a if a else 0.0
                if abs(float(cell) - want) > 0.0006:
                    bad('%s row %d: frag %s, the bytes give %.3f' %
                        (b['path'], i, cell, want))
                cells += 1
                continue
            if want is KeyError:
                continue        # a column of the text only
            cells += 1
            if not same(cell, want):
                bad('%s row %d: %s is %r, the JSON has %r' %
                    (b['path'], i, name, cell, want))
        # Every number of the JSON's row is a column of the CSV.
        for k, v in row.items():
            if isinstance(v, int) and not isinstance(v, bool) and k not in got:
                bad('%s: the JSON\'s %s is no column' % (b['path'], k))
print('%s -x ,: %d tables, %d rows, %d cells as the JSON has them' %
      (what, len(blocks), sum(len(b['rows']) for b in blocks), cells))
sys.exit(0 if ok else 1)
PYEOF
}

csv_check page-caller perf kmem stat --page --caller -i "$page"
csv_check page-alloc perf kmem stat --page --alloc -l 40 -i "$page2"
csv_check page-comm perf kmem stat --page --caller -s comm,bytes -i "$page2"
csv_check slab perf kmem stat --slab --caller --alloc -i "$slab"
csv_check diff perf kmem diff --page "$page" "$page2"
csv_check diff-caller perf kmem diff --page --caller -l 5 "$page" "$page2"
csv_check diff-self perf kmem diff --page --caller "$page" "$page"
# Every row of a trace against itself is in both, every delta 0.
if grep -v '^#' "$dir/diff-self.csv" | grep -qv ', both, '; then
	fail "diff -x of a trace against itself has a row not in both"
fi

# -o FILE gets what stdout gets.
for cmd in "stat --page --caller -i $page" "diff --page $page $page2"; do
	# shellcheck disable=SC2086 # $cmd is a list of arguments
	perf kmem $cmd -x ';' >"$dir/stdout" 2>/dev/null
	# shellcheck disable=SC2086
	perf kmem $cmd -x ';' -o "$dir/out.csv" >"$dir/none" 2>"$dir/err" ||
		fail "perf kmem $cmd -x ';' -o FILE: $(tail -n 1 "$dir/err")"
	cmp -s "$dir/stdout" "$dir/out.csv" ||
		fail "perf kmem $cmd -x ';' -o FILE differs from its stdout"
	{ [ -s "$dir/out.csv" ] && [ ! -s "$dir/none" ]; } ||
		fail "perf kmem $cmd -x ';' -o FILE: no file, or output on stdout"
	grep -q '^# output: bytes[.a-z]*; ' "$dir/out.csv" ||
		fail "perf kmem $cmd -x ';': no '# output: bytes...; ' line"
done

# -x '\t' is a tab, as is a tab given as such: the cells of -x , each
# separated from the next by a tab and its space.
tab=$(printf '\t')
for cmd in "stat --page --caller -i $page" "stat --slab --caller --alloc -i $slab" \
	   "diff --page --caller $page $page2"; do
	# shellcheck disable=SC2086 # $cmd is a list of arguments
	perf kmem $cmd -x , >"$dir/comma.csv" 2>/dev/null
	# shellcheck disable=SC2086
	perf kmem $cmd -x '\t' >"$dir/tab.csv" 2>"$dir/err" ||
		fail "perf kmem $cmd -x '\t': $(tail -n 1 "$dir/err")"
	# shellcheck disable=SC2086
	perf kmem $cmd -x "$tab" >"$dir/tab2.csv" 2>/dev/null
	cmp -s "$dir/tab.csv" "$dir/tab2.csv" ||
		fail "perf kmem $cmd: -x '\t' and -x TAB differ"
	python3 - "$dir/comma.csv" "$dir/tab.csv" "perf kmem $cmd" <<'PYEOF' || err=1
import sys

comma, tab, what = sys.argv[1:4]
a = [line.split(', ') for line in open(comma).read().split('\n')]
b = [line.split('\t ') for line in open(tab).read().split('\n')]
rows = sum(1 for r in a if r[0] and not r[0].startswith('#'))
cells = sum(len(r) for r in a if r[0] and not r[0].startswith('#'))
if rows < 2:
    print('FAIL: %s -x ,: %d rows: the check proves little' % (what, rows))
    sys.exit(1)
for n, (x, y) in enumerate(zip(a, b), 1):
    if x != y:
        print('FAIL: %s -x \'\\t\' line %d: %r, -x , has %r' % (what, n, y, x))
        sys.exit(1)
if len(a) != len(b) or any('\t' in c for r in b for c in r):
    print('FAIL: %s -x \'\\t\': %d lines, -x , %d; or a stray tab'
          % (what, len(b), len(a)))
    sys.exit(1)
print('%s -x \'\\t\': %d rows, %d cells, as -x , has them' % (what, rows, cells))
PYEOF
done

# refused OPTIONS... : one line, exit 1, nothing written.
refused() {
	rm -f "$dir/out.csv"
	perf kmem "$@" -o "$dir/out.csv" >"$dir/stdout" 2>"$dir/err"
	local rc=$? lines

	lines=$(wc -l <"$dir/err")
	[ "$rc" = 1 ] || fail "perf kmem $*: exit $rc, want 1"
	[ "$lines" = 1 ] || fail "perf kmem $*: $lines lines on stderr, want 1"
	{ [ ! -e "$dir/out.csv" ] && [ ! -s "$dir/stdout" ]; } ||
		fail "perf kmem $*: wrote output"
	grep -q -- "-x" "$dir/err" ||
		fail "perf kmem $*: the line does not name -x: $(head -n 1 "$dir/err")"
}
for sep in '|' '+' '.' ':' '::'; do
	refused stat -x "$sep" --page -i "$page"
done
grep -q "a separator cannot hold '|', '+', '.' or ':'" "$dir/err" ||
	fail "-x '::' is not refused for its ':': $(head -n 1 "$dir/err")"
refused diff -x '|' --page "$page" "$page2"
refused stat -x , --json --page -i "$page"
refused stat -x , --pprof "$dir/p.pb.gz" --page -i "$page"
[ ! -e "$dir/p.pb.gz" ] || fail "-x , --pprof wrote the profile"
refused stat -x , --folded --page -i "$page"
refused stat -x , -I 100 --page -i "$page"
refused diff -x , --json --page "$page" "$page2"

kmem_result "kmem -x test"
