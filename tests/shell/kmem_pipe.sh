#!/bin/bash
# perf kmem stat reads a pipe as it reads a file (exclusive)
# SPDX-License-Identifier: GPL-2.0
#
# One recording, as a file and as the stream perf record -o - writes
# (lib/kmem_pipe_format.py makes it from the file's own parts): perf kmem
# stat must print the same analysis, byte for byte, from the file, from a
# pipe on standard input (with and without -i -) and from a named pipe.
# A live perf kmem record -o - | perf kmem stat must analyse what the same
# stream, saved by tee, gives, and name each allocation's task as perf
# script does, those that ran before the recording too, which perf
# record -o - sends before the end of its header (kmem_pipe_format.py
# sends them after).  A stream cut before its first sample, or
# not a stream, gets one line; one cut inside a later record, the
# analysis of the records before and one line.  A stream with its
# FINISHED_INIT where perf record writes it, or without one, gives the
# file's analysis too, the tasks named by the records before it (-s comm).
# kmem.default (page, slab) gives stat and diff without --page or --slab
# the analysis of the option it names.

set -u

# shellcheck source-path=SCRIPTDIR source=lib/kmem_common.sh
. "$(dirname "$0")/lib/kmem_common.sh"
kmem_need_tracepoints

kmem_scratch pipe
lib=$(cd "$(dirname "$0")" && pwd)/lib

workload='ls -R /usr/lib >/dev/null; cat /usr/bin/* >/dev/null 2>&1
	seq 100000 | sort -r >/dev/null'
kmem_record_or_skip "$dir/file.data" --page --slab -- sh -c "$workload"
python3 "$lib/kmem_pipe_format.py" "$dir/file.data" >"$dir/stream.data" ||
	fail "cannot make the stream of the recording"
mkfifo "$dir/fifo"

# same NAME OPTIONS...: the file's analysis, then the stream's, three ways.
same() {
	local name=$1 how

	shift
	perf kmem stat "$@" -i "$dir/file.data" >"$dir/file.out" 2>&1 ||
		fail "$name: from the file: $(tail -n 1 "$dir/file.out")"
	grep -q . "$dir/file.out" || fail "$name: from the file: no output"
	for how in stdin dash fifo; do
		# A pipe, not a redirect: cat is what makes it one.
		# shellcheck disable=SC2002
		case $how in
		stdin) cat "$dir/stream.data" | perf kmem stat "$@" ;;
		dash) cat "$dir/stream.data" | perf kmem stat "$@" -i - ;;
		fifo)
			cat "$dir/stream.data" >"$dir/fifo" &
			perf kmem stat "$@" -i "$dir/fifo"
			wait
			;;
		esac >"$dir/$how.out" 2>&1
		# The JSON names its input: the file, or "-".
		sed -i 's|"path": ".*"|"path": PATH|' "$dir/$how.out" "$dir/file.out"
		if cmp -s "$dir/file.out" "$dir/$how.out"; then
			echo "ok   $name ($how): $(wc -l <"$dir/$how.out") lines as from the file"
		else
			fail "$name ($how) differs from the file's:"
			diff "$dir/file.out" "$dir/$how.out" | head -n 6 | sed 's/^/    /'
		fi
	done
}

same "page callers" --page --caller
same "page pages" --page --alloc --live -s order,hit
same "slab" --slab --caller --alloc
same "json" --page --slab --caller --json
same "folded" --page --folded=hits

# FINISHED_INIT where perf record writes it, after the records it
# synthesizes, among them the comm of every task running (a stream of
# perf record); and none at all (of a perf older than that record): the
# analysis is the file's, -s comm naming those tasks as the file does
# (their records come before the analyses are set up).
for where in recorded none; do
	for opts in "--page --caller -s comm" "--page --caller --json -s comm" "--slab --caller"; do
		# shellcheck disable=SC2086 # $opts is a list of options
		perf kmem stat $opts -i "$dir/file.data" >"$dir/file.out" 2>&1
		# shellcheck disable=SC2086
		python3 "$lib/kmem_pipe_format.py" --finished-init=$where "$dir/file.data" \
			2>"$dir/format.err" | perf kmem stat $opts >"$dir/init.out" 2>&1
		sed -i 's|"path": ".*"|"path": PATH|' "$dir/init.out" "$dir/file.out"
		if [[ $opts == *comm* ]] && ! grep -q 'Command\|"comm": "' "$dir/file.out"; then
			fail "FINISHED_INIT $where, $opts: no command in the file's analysis"
		elif ! grep -q -i 'summary' "$dir/file.out"; then
			fail "FINISHED_INIT $where, $opts: the file gives no analysis"
		elif cmp -s "$dir/file.out" "$dir/init.out"; then
			echo "ok   FINISHED_INIT $where, $opts: as from the file"
		else
			fail "FINISHED_INIT $where, $opts: differs from the file's:"
			diff "$dir/file.out" "$dir/init.out" | head -n 6 | sed 's/^/    /'
		fi
	done
done

# kmem.default, of a recording with both allocators: stat and diff without
# --page or --slab analyse what it says, as the option would; an option
# given still wins.  Without it (an empty config): the slab allocator.
: >"$dir/empty.config"
for mode in page slab; do
	printf '[kmem]\n\tdefault = %s\n' "$mode" >"$dir/$mode.config"
done
# by_config NAME CONFIG OPTIONS... -- OPTIONS...: perf kmem with CONFIG and
# the first options prints what it prints with the second ones.
by_config() {
	local name=$1 config=$2 opts=()

	shift 2
	while [ "$1" != -- ]; do
		opts+=("$1")
		shift
	done
	shift
	PERF_CONFIG="$dir/$config.config" perf kmem "${opts[@]}" >"$dir/config.out" 2>&1 ||
		fail "$name: $(tail -n 1 "$dir/config.out")"
	PERF_CONFIG="$dir/empty.config" perf kmem "$@" >"$dir/option.out" 2>&1 ||
		fail "$name, perf kmem $*: $(tail -n 1 "$dir/option.out")"
	if ! grep -q "SUMMARY" "$dir/option.out"; then
		fail "$name: perf kmem $* gives no analysis"
	elif cmp -s "$dir/config.out" "$dir/option.out"; then
		echo "ok   $name: as perf kmem $*"
	else
		fail "$name: not what perf kmem $* prints:"
		diff "$dir/option.out" "$dir/config.out" | head -n 6 | sed 's/^/    /'
	fi
}
f=$dir/file.data
by_config "kmem.default = page" page stat --caller -i "$f" -- stat --page --caller -i "$f"
by_config "kmem.default = slab" slab stat --caller -i "$f" -- stat --slab --caller -i "$f"
by_config "no kmem.default" empty stat --caller -i "$f" -- stat --slab --caller -i "$f"
by_config "kmem.default = page, --slab" page stat --slab -i "$f" -- stat --slab -i "$f"
by_config "kmem.default = slab, --page" slab stat --page -i "$f" -- stat --page -i "$f"
by_config "kmem.default = page, diff" page diff "$f" "$f" -- diff --page "$f" "$f"
by_config "kmem.default = slab, diff" slab diff "$f" "$f" -- diff --slab "$f" "$f"
# Each the analysis it names alone, or the checks above tell nothing.
for mode in page slab; do
	got=$(PERF_CONFIG="$dir/$mode.config" perf kmem stat -i "$f" 2>&1 | grep "^ SUMMARY")
	[ "$got" = " SUMMARY ($mode allocator)" ] ||
		fail "kmem.default = $mode: the summaries are '$got'"
done

# A live stream, and the same stream saved on the way by tee, its reader.
perf kmem record --page -o - -- sh -c "$workload" 2>/dev/null |
	{ echo "$BASHPID" >"$dir/tee.pid"; exec tee "$dir/live.data"; } |
	perf kmem stat --page --caller >"$dir/live.out" 2>&1 ||
	fail "record -o - | stat: $(tail -n 1 "$dir/live.out")"
perf kmem stat --page --caller -i "$dir/live.data" >"$dir/saved.out" 2>&1
if ! grep -q "SUMMARY (page allocator)" "$dir/live.out"; then
	fail "record -o - | stat printed no analysis"
elif ! cmp -s "$dir/live.out" "$dir/saved.out"; then
	fail "record -o - | stat differs from the saved stream's analysis"
else
	echo "ok   record -o - | stat: the saved stream's analysis"
fi

# perf record -o - names the tasks it found running (the command too, as
# perf-exec until its exec) before the records that end its header: each
# command has at least the allocations perf script names it by (more: one
# that allocates after its exit is ':TID' to perf script), and all add up.
# The reader of the stream, tee, allocates as it reads: left out, as perf
# record's own process is.
perf script -G -F comm,pid,event -i "$dir/live.data" 2>/dev/null >"$dir/live.script"
perf kmem stat --page --caller -s comm -l 2147483647 --json -i "$dir/live.data" \
	>"$dir/live.json" 2>"$dir/err" || fail "-s comm of the stream: $(tail -n 1 "$dir/err")"
python3 - "$dir/live.script" "$dir/live.json" "$(cat "$dir/tee.pid")" <<'PYEOF' || err=1
import collections
import json
import re
import sys

script = collections.Counter()
reader = 0
for line in open(sys.argv[1]):
    m = re.match(r'^\s*(.*?)\s+(\d+)\s+(kmem:\w+):\s*$', line)
    if m and m.group(2) == sys.argv[3] and m.group(3) != 'kmem:mm_page_free':
        reader += 1
    if m and m.group(3) == 'kmem:mm_page_alloc':
        script[m.group(1)] += 1
if reader:
    print(f'FAIL the stream\'s reader, tee (pid {sys.argv[3]}), has {reader} events')
    sys.exit(1)
print(f'ok   the stream\'s reader, tee (pid {sys.argv[3]}): none of its events')
kmem = collections.Counter()
for row in json.load(open(sys.argv[2]))['page']['callers']['rows']:
    kmem[row['comm']] += row['hits']
short = [f'{c} {kmem[c]} < {n}' for c, n in sorted(script.items())
         if not c.startswith(':') and kmem[c] < n]
if short or not script or sum(kmem.values()) != sum(script.values()):
    print(f'FAIL -s comm of the stream against perf script: {sum(kmem.values())} '
          f'allocations, {sum(script.values())} in perf script; ' + ', '.join(short[:4]))
    sys.exit(1)
print(f'ok   -s comm of the stream: {len(kmem)} commands, as perf script names '
      f'{len(script)}, {sum(kmem.values()):,} allocations')
PYEOF

# one_line NAME WORDS: stdin to perf kmem stat --page gets one line.
one_line() {
	local name=$1 words=$2

	if perf kmem stat --page >"$dir/out" 2>"$dir/err"; then
		fail "$name: exit 0"
	elif [ "$(grep -c . "$dir/err")" -ne 1 ] || ! grep -q "$words" "$dir/err"; then
		fail "$name: want one line with '$words':"
		head -n 4 "$dir/err" | sed 's/^/    /'
	else
		echo "ok   $name: $(cat "$dir/err")"
	fi
}

head -c 100 "$dir/stream.data" | one_line "cut stream" "the stream ended before its first sample"
# shellcheck disable=SC2002 # a pipe, not a redirect
cat "$dir/file.data" | one_line "a file through a pipe" "no 'perf record -o -' stream on it"
true | one_line "empty pipe" "no 'perf record -o -' stream on it"

# The offset of a sample record halfway through the stream, the records
# before it and the samples among them, with commas.
middle_sample() {
	python3 - "$1" <<'PY'
import struct
import sys

data = open(sys.argv[1], 'rb').read()
offs, off = [], 16
while off + 8 <= len(data):
    rtype, _, size = struct.unpack_from('<IHH', data, off)
    offs.append((off, rtype, size))
    off += size
    if rtype == 66:  # HEADER_TRACING_DATA: the tracing data follows it
        off += struct.unpack_from('<I', data, off - 4)[0]
i = len(offs) // 2
while offs[i][1] != 9 or offs[i][2] < 24:
    i += 1
print(offs[i][0], f'{i:,}', f'{sum(1 for o in offs[:i] if o[1] == 9):,}')
PY
}

# A stream cut inside a record, its header or its body: the analysis of
# the records before the cut, as of the stream cut before that record,
# then one line that says where, and exit 1.  Its count of events is of
# page and slab events: every sample of this recording.
read -r at nr_records nr_samples < <(middle_sample "$dir/stream.data")
head -c "$at" "$dir/stream.data" | perf kmem stat --page --slab --caller \
	>"$dir/whole.out" 2>&1 ||
	fail "a stream cut between two records: $(tail -n 1 "$dir/whole.out")"
want="perf kmem: - ends inside a record after $nr_records records:"
want="$want the analysis covers the $nr_samples events before"
for cut in 4 16; do
	head -c $((at + cut)) "$dir/stream.data" |
		perf kmem stat --page --slab --caller >"$dir/cut.out" 2>"$dir/cut.err" &&
		fail "cut $cut bytes into a record: exit 0"
	if [ "$(cat "$dir/cut.err")" != "$want" ]; then
		fail "cut $cut bytes into a record: want '$want', got:"
		head -n 3 "$dir/cut.err" | sed 's/^/    /'
	elif ! cmp -s "$dir/whole.out" "$dir/cut.out"; then
		fail "cut $cut bytes into a record: not the analysis of the records before"
	else
		echo "ok   cut $cut bytes into a record: $(cat "$dir/cut.err")"
	fi
done

kmem_result "kmem pipe test"
