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

good="$dir/good.data"
kmem_record_or_skip "$good" --page -- \
	sh -c 'cat /usr/bin/ls >/dev/null; ls -R /usr/lib >/dev/null'
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
		fail "$name: exit $rc, $lines stderr lines, want 1 line with '$words':"
		sed 's/^/    /' "$dir/err" | head -n 5
	else
		echo "ok   $name: $(tail -n 1 "$dir/err")"
	fi
}

# expect_line NAME LINE COMMAND...: COMMAND prints LINE and nothing else
# on stderr, nothing on stdout, and exits 1.
expect_line() {
	local name=$1 line=$2 rc

	shift 2
	"$@" >"$dir/out" 2>"$dir/err"
	rc=$?
	if [ "$rc" -ne 1 ] || [ "$(cat "$dir/err")" != "$line" ] ||
	   [ -s "$dir/out" ]; then
		echo "FAIL $name: exit $rc, $(wc -l <"$dir/out") lines of output," \
		     "want exit 1 and only the line '$line':"
		sed 's/^/    /' "$dir/err" | head -n 5
		err=1
	else
		echo "ok   $name: $line"
	fi
}

# A command perf record could not run: one line, and no perf.data.
expect_line "record -- a command not there" \
	"perf kmem: cannot run $dir/none: No such file or directory" \
	perf kmem record --page -o "$dir/none.data" -- "$dir/none"
[ -e "$dir/none.data" ] && fail "record -- a command not there: it left $dir/none.data"
expect_line "record -- a command not in PATH" \
	"perf kmem: cannot run kmem-no-such-command: no such command in PATH" \
	perf kmem record --page -o "$dir/none.data" -- kmem-no-such-command

# Cut in the middle of the data section.
head -c $((size / 2)) "$good" >"$dir/truncated.data"
expect "truncated file" "truncated" "$dir/truncated.data" --page
# Cut inside the event attributes, just after the data (in the table of
# the header's features) and 8 bytes short of its end (in the last
# feature): perf read them as a corrupt header, corrupt tracing data, or
# as whole; each is truncated, and says where.
data_end=$(python3 -c 'import struct, sys
o, s = struct.unpack_from("<QQ", open(sys.argv[1], "rb").read(56), 40)
print(o + s)' "$good")
for cut in "1000 its event attributes" "$data_end its header features" \
	   "$((size - 8)) its header features"; do
	head -c "${cut%% *}" "$good" >"$dir/cut.data"
	expect "cut after ${cut%% *} of $size bytes" \
		"truncated: the file ends inside ${cut#* }, after" "$dir/cut.data" --page
done

# 4 KiB of garbage in the middle of the data section.
cp "$good" "$dir/garbage.data"
dd if=/dev/urandom of="$dir/garbage.data" bs=4096 count=1 \
	seek=$((size / 8192)) conv=notrunc status=none
perf_lines=2
expect "garbage in the data" "corrupt after" "$dir/garbage.data" --page
perf_lines=0
# ...and what comes before the garbage is still analysed and shown.
if ! grep -q "SUMMARY (page allocator)" "$dir/out"; then
	fail "garbage in the data: no analysis of the intact part"
fi
# The line comes last also where stdout and stderr are one pipe: it was
# written into the middle of the buffered results.
for cmd in "stat --page -i" "diff --page $good"; do
	# shellcheck disable=SC2086 # $cmd is words
	last=$(perf kmem $cmd "$dir/garbage.data" 2>&1 | cat | tail -n 1)
	if [[ $last != "perf kmem: $dir/garbage.data is corrupt after "*" events before" ]]; then
		echo "FAIL garbage, 2>&1 | cat, $cmd: the last line is '$last'"
		err=1
	else
		echo "ok   garbage, 2>&1 | cat, ${cmd%% *}: the line about it is the last"
	fi
done

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
mkdir "$dir/notperf"
want="perf kmem: cannot read $dir/notperf: a directory,"
want="$want not one of perf record --threads: it has no data file"
expect_line "-i DIR" "$want" perf kmem stat --page -i "$dir/notperf"

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
# kmem.default says it for stat without --page or --slab: its refusals.
printf '[kmem]\n\tdefault = slab\n' >"$dir/slab.config"
printf '[kmem]\n\tdefault = page\n' >"$dir/page.config"
perf kmem stat --slab -i "$good" 2>"$dir/want" >/dev/null
expect_line "kmem.default = slab, page-only trace" "$(cat "$dir/want")" \
	env PERF_CONFIG="$dir/slab.config" perf kmem stat -i "$good"
perf kmem stat --page -i "$dir/cycles.data" 2>"$dir/want" >/dev/null
expect_line "kmem.default = page, no kmem events" "$(cat "$dir/want")" \
	env PERF_CONFIG="$dir/page.config" perf kmem stat -i "$dir/cycles.data"
# Without --page, --slab or kmem.default: what the trace has.
if perf kmem stat -i "$good" 2>"$dir/err" | grep -q "SUMMARY (page allocator)"; then
	echo "ok   page-only trace, no --page: the page analysis"
else
	fail "page-only trace, no --page: $(head -n 1 "$dir/err")"
fi
expect "no slab events at all" \
	"no slab allocator events: record them with 'perf kmem record --slab'" \
	"$dir/cycles.data"
# ...and diff of two page-only traces, as stat of each.
if perf kmem diff "$good" "$good" 2>"$dir/err" | grep -q "SUMMARY (page allocator)"; then
	echo "ok   page-only traces, diff without --page: the page analysis"
else
	echo "FAIL page-only traces, diff without --page: $(head -n 1 "$dir/err")"
	err=1
fi
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

# A perf config value refused: one line, exit 1.  perf's reader of the
# config added a line of its own, and perf exited 255; a negative
# kmem.queue-size was taken for 16 EiB.
printf '[kmem]\n\tdefault = pages\n' >"$dir/default.config"
want="perf kmem: invalid kmem.default 'pages': use page or slab"
expect_line "kmem.default = pages" "$want" \
	env PERF_CONFIG="$dir/default.config" perf kmem stat -i "$good"
expect_line "kmem.default = pages, diff" "$want" \
	env PERF_CONFIG="$dir/default.config" perf kmem diff "$good" "$good"
for size in 4095 -5 -4096 abc 4x 64kb; do
	printf '[kmem]\n\tqueue-size = %s\n' "$size" >"$dir/queue.config"
	expect_line "kmem.queue-size = $size" \
		"perf kmem: invalid kmem.queue-size '$size': use a size of at least 4096 bytes" \
		env PERF_CONFIG="$dir/queue.config" perf kmem stat --page -i "$good"
done
# ...and sizes perf's config takes.
for size in 4096 64k 0x10000 1M; do
	printf '[kmem]\n\tqueue-size = %s\n' "$size" >"$dir/queue.config"
	if PERF_CONFIG="$dir/queue.config" perf kmem stat --page -i "$good" \
		>"$dir/out" 2>"$dir/err" && [ ! -s "$dir/err" ] &&
	   grep -q "SUMMARY (page allocator)" "$dir/out"; then
		echo "ok   kmem.queue-size = $size: taken"
	else
		fail "kmem.queue-size = $size: $(head -n 2 "$dir/err")"
	fi
done

# A perf.data file given as standard input is not a stream.
expect "file on stdin" "no 'perf record -o -' stream on it" - --page <"$good"

expect "unknown sort key" "unknown sort key 'bogus'" "$good" --page -s bogus
for keys in "" "bytes," ",hit" "bytes,,hit"; do
	expect_line "-s '$keys'" \
		"perf kmem: invalid -s '$keys': a sort key is empty: use key[,key...]" \
		perf kmem stat --page -s "$keys" -i "$good"
done
expect_line "diff -s 'bytes,'" \
	"perf kmem: invalid -s 'bytes,': a sort key is empty: use key[,key...]" \
	perf kmem diff --page -s bytes, "$good" "$good"
expect "bad --time" "invalid --time" "$good" --page --time nonsense
# The span said is of the first and the last event in time, as perf
# script sorts them (the file has them in the order of the CPUs' buffers).
span=$(perf script -i "$good" -F time 2>/dev/null | tr -d ' :' | sort -n |
	sed -n '1p;$p' | tr '\n' ' ')
read -r t0 t1 <<<"$span"
expect "--time outside" "no kmem event in --time 1,2: the trace's are from $t0 to $t1\$" \
	"$good" --page --time 1,2
# perf report's shares of the trace's time span were refused; they take
# the allocations perf script --time counts in them, and under diff each
# trace's own span.
perf kmem record --page -o "$dir/later.data" -- \
	sh -c 'sleep 0.2; ls -R /usr/share >/dev/null' >/dev/null 2>&1
# Wide shares, which the workload has allocations in however it ran.
for window in 50%/2 0%-30%,70%-100%; do
	want=$(perf script --time "$window" -F event,trace -i "$good" 2>/dev/null |
		grep -c "kmem:mm_page_alloc: .* pfn=0x")
	got=$(perf kmem stat --page --time "$window" -i "$good" 2>&1 |
		sed -n 's/^ Total allocations: *\([0-9,]*\) .*/\1/p' | tr -d ,)
	old_new=$(perf kmem diff --page --json --time "$window" "$good" \
			"$dir/later.data" 2>/dev/null |
		python3 -c 'import json, sys
n = json.load(sys.stdin)["numbers"]["page.summary.total_allocations.count"]
print(n["old"], n["new"])')
	want_new=$(perf kmem stat --page --json --time "$window" -i "$dir/later.data" 2>/dev/null |
		python3 -c 'import json, sys
print(json.load(sys.stdin)["page"]["summary"]["total_allocations"]["count"])')
	if [ -n "$want" ] && [ "$want" -gt 0 ] && [ "$got" = "$want" ] &&
	   [ "$old_new" = "$want $want_new" ]; then
		echo "ok   --time $window: $got allocations, as perf script; diff: $old_new"
	else
		echo "FAIL --time $window: $got allocations, perf script $want;" \
		     "diff '$old_new', stat of the second $want_new"
		err=1
	fi
done
want="perf kmem: invalid --time '10%/0': use start,stop in seconds, or shares"
want="$want of the trace's time as perf report takes them (10%/2, 0%-10%)"
expect_line "--time 10%/0" "$want" perf kmem stat --page --time 10%/0 -i "$good"
# parse-options' OPT_INTEGER would take 4294967297 as 1.
expect "-l too big" "invalid -l '4294967297'" "$good" --page -l 4294967297
expect "-l negative" "invalid -l '-3'" "$good" --page -l -3
expect_line "-l 0" "perf kmem: invalid -l '0': use 1 to 2147483647" \
	perf kmem stat --page -l 0 -i "$good"
expect_line "-l 2147483648" \
	"perf kmem: invalid -l '2147483648': use 1 to 2147483647" \
	perf kmem stat --page -l 2147483648 -i "$good"
expect "--pageblock-order" "invalid --pageblock-order '4294967305'" \
	"$good" --page --pageblock-order 4294967305
expect "nine sort keys" "too many sort keys for --page: at most 8" "$good" \
	--page -s bytes,hit,order,gfp,migtype,page,xnode,callsite,frag
expect "--map of order 31" "--map draws pageblocks of order 30 at most, not 31" \
	"$good" --page --map "$dir/map.svg" --pageblock-order 31
expect "--map without --page" "--map draws the page analysis: add --page" \
	"$good" --slab --map "$dir/map.svg"
expect_line "--map x.png" \
	"perf kmem: --map writes SVG, which $dir/x.png does not name: use a .svg name" \
	perf kmem stat --page --map "$dir/x.png" -i "$good"
expect "unreadable --kallsyms" "cannot read --kallsyms $dir/none: No such file" \
	"$good" --page --kallsyms "$dir/none"
# What only stat -b takes, given to a reading of traces: one line, not
# an option ignored.
for opts in -a "--cgroup x" "--sample-bytes 1" --exact-live "-M 5" "--max-stack 3"; do
	want="perf kmem: ${opts%% *} is for stat -b, counting in the kernel,"
	want="$want not for reading a trace"
	# shellcheck disable=SC2086 # $opts is an option and its value
	expect_line "stat $opts" "$want" perf kmem stat --page $opts -i "$good"
	# shellcheck disable=SC2086
	expect_line "diff $opts" "$want" perf kmem diff --page $opts "$good" "$good"
done
want="perf kmem: --include-perf is for record and stat -b:"
want="$want a trace has perf's own allocations if recorded with it"
expect_line "stat --include-perf" "$want" perf kmem stat --page --include-perf -i "$good"
expect_line "diff --include-perf" "$want" perf kmem diff --include-perf "$good" "$good"
expect_line "diff -b" \
	"perf kmem: diff takes no -b: it pairs the --caller rows and the numbers of two traces" \
	perf kmem diff --page -b "$good" "$good"
# A write that failed, of any output: one line with the reason the write
# got, and exit 1.  It was perf's own line about standard output without
# a newline, no line at all (-j, -x, --folded), the line twice (--pprof),
# or "Input/output error" for a full disk.
# out_to FILE COMMAND...: COMMAND with its standard output to FILE.
# shellcheck disable=SC2317 # run by expect_line
out_to() {
	local file=$1

	shift
	"$@" >"$file"
}
nospc="No space left on device"
for fmt in --caller "--caller --json" "--caller -x ," --folded "-I 100" \
	   "-I 100 --json"; do
	# shellcheck disable=SC2086 # $fmt is options
	expect_line "stat $fmt >/dev/full" \
		"perf kmem: cannot write standard output: $nospc" \
		out_to /dev/full perf kmem stat --page $fmt -i "$good"
	# shellcheck disable=SC2086 # $fmt is options
	expect_line "stat $fmt -o /dev/full" \
		"perf kmem: cannot write /dev/full: $nospc" \
		perf kmem stat --page $fmt -o /dev/full -i "$good"
done
for fmt in --caller "--caller --json" "--caller -x ,"; do
	# shellcheck disable=SC2086 # $fmt is options
	expect_line "diff $fmt >/dev/full" \
		"perf kmem: cannot write standard output: $nospc" \
		out_to /dev/full perf kmem diff --page $fmt "$good" "$good"
	# shellcheck disable=SC2086 # $fmt is options
	expect_line "diff $fmt -o /dev/full" \
		"perf kmem: cannot write /dev/full: $nospc" \
		perf kmem diff --page $fmt -o /dev/full "$good" "$good"
done
expect_line "--pprof /dev/full" "perf kmem: cannot write /dev/full: $nospc" \
	perf kmem stat --page --pprof /dev/full -i "$good"
# --map takes a .svg name, -I --pprof writes FILE.0...: links to /dev/full.
ln -s /dev/full "$dir/full.svg"
ln -s /dev/full "$dir/full.pb.gz.0"
expect_line "--map to /dev/full" \
	"perf kmem: cannot write $dir/full.svg: $nospc" \
	out_to /dev/null perf kmem stat --page --map "$dir/full.svg" -i "$good"
expect_line "-I 100 --pprof, FILE.0 to /dev/full" \
	"perf kmem: cannot write $dir/full.pb.gz.0: $nospc" \
	perf kmem stat --page -I 100 --pprof "$dir/full.pb.gz" -i "$good"
# A full disk: the same line, and no part of the file left, under its
# name or the one it is written under.
tiny="$dir/tiny"
mkdir "$tiny"
if mount -t tmpfs -o size=64k tmpfs "$tiny" 2>/dev/null; then
	# shellcheck disable=SC2064 # $tiny and $dir are known now
	trap "umount '$tiny'; rm -rf '$dir'" EXIT
	dd if=/dev/zero of="$tiny/fill" bs=1k count=100 status=none 2>/dev/null
	for out in "-o $tiny/c.txt" "--json -o $tiny/c.json" \
		   "-x , -o $tiny/c.csv" "--folded -o $tiny/c.folded" \
		   "--pprof $tiny/c.pb.gz" "--map $tiny/c.svg"; do
		# shellcheck disable=SC2086 # $out is options
		expect_line "full disk, $out" \
			"perf kmem: cannot write ${out##* }: $nospc" \
			out_to /dev/null perf kmem stat --page $out -i "$good"
		left=$(cd "$tiny" && echo *)
		[ "$left" = fill ] || fail "full disk, $out: left $left"
	done
else
	echo "skip full disk: no tmpfs can be mounted here"
fi

# --pid and --tid take decimal ids: perf's list reader said only "cannot
# set up symbol resolution", and took -5 as a pid.
for bad in abc 1e3 -5 "12779,,"; do
	item=${bad%%,*}
	[ "$item" = "$bad" ] || item=
	expect_line "--pid $bad" \
		"perf kmem: invalid --pid '$bad': '$item' is not a process id: use pid[,pid...]" \
		perf kmem stat --page --pid "$bad" -i "$good"
done
expect_line "--tid x1" \
	"perf kmem: invalid --tid 'x1': 'x1' is not a thread id: use tid[,tid...]" \
	perf kmem stat --page --tid x1 -i "$good"

# Rows tied on every -s key come in the table's own order, bytes then
# hits, largest first: -s frag of a trace without fragmenting fallbacks
# listed them by callsite address.  ties_ordered KEY: the rows of
# "perf kmem stat --page --caller -s KEY", read from its text, are in
# (KEY, bytes, hits) order, and those of one Command are together.
ties_ordered() {
	perf kmem stat --page --caller -l 1000 -s "$1" -i "$good" 2>&1 |
	python3 -c '
import sys
key = sys.argv[1]
lines = [l for l in sys.stdin if " | " in l]
head = [c.strip() for c in lines[0].split(" | ")]
def num(s):
	return int(s.split("/")[0].replace(",", "") or 0)
rows = []
for l in lines[1:]:
	# The allocation table only: FRAGMENTATION has tables of its own.
	if not l.split(" | ")[0].strip()[:1].isdigit():
		break
	c = dict(zip(head, [x.strip() for x in l.split(" | ")]))
	rows.append(({"frag": -num(c.get("Fragmenting", "0")),
		      "xnode": -num(c.get("Freed remote", "0")),
		      "comm": c.get("Command")}[key],
		     -num(c["Total_alloc/Size"]), -num(c["Hits"])))
comms = [r[0] for r in rows]
grouped = all(comms.index(c) == i or comms[i - 1] == c
	      for i, c in enumerate(comms))
ordered = all(a[1:] <= b[1:] for a, b in zip(rows, rows[1:])
	      if a[0] == b[0])
if key != "comm":
	ordered = ordered and rows == sorted(rows)
if len(rows) <= 3 or not grouped or not ordered:
	print("  %d rows, grouped %s, ordered %s: %s" %
	      (len(rows), grouped, ordered, rows[:4]))
	sys.exit(1)
' "$1"
}
for key in frag xnode comm; do
	if ties_ordered "$key"; then
		echo "ok   -s $key: tied rows by bytes, then hits"
	else
		echo "FAIL -s $key: tied rows not by bytes, then hits"
		err=1
	fi
done

# A recording to a pipe, as "| tail -5" or -o - makes it: perf record
# named it "(null)", and perf kmem advised perf archive, which packs a
# file's symbols, not a stream's.
for how in "pipe" "-o -"; do
	if [ "$how" = pipe ]; then
		perf kmem record --page -- true 2>"$dir/err" | cat >"$dir/stream.data"
	else
		perf kmem record --page -o - -- true 2>"$dir/err" >"$dir/stream.data"
	fi
	if grep -q -e "(null)" -e "perf archive" "$dir/err" ||
	   [ "$(grep -c . "$dir/err")" -ne 2 ] ||
	   ! tail -n 1 "$dir/err" |
	     grep -q "^\[ perf record: Captured and wrote [0-9.]* MB - \]$" ||
	   ! perf kmem stat --page -i - <"$dir/stream.data" 2>/dev/null |
		grep -q "SUMMARY (page allocator)"; then
		echo "FAIL record to a $how: $(tail -n 2 "$dir/err" | paste -sd' ')"
		err=1
	else
		echo "ok   record to a $how: $(tail -n 1 "$dir/err")"
	fi
done
# A stream has no first and last sample times to take shares of.
want="perf kmem: --time 10%/2 takes shares of the time span of -, which it does"
want="$want not record (a stream does not): use start,stop in seconds"
# shellcheck disable=SC2016 # $1 is the inner shell's argument
expect_line "stream, --time 10%/2" "$want" \
	sh -c 'perf kmem stat --page --time 10%/2 -i - <"$1"' sh "$dir/stream.data"

# A file given to stat as diff takes them, and a subcommand mistyped:
# one line naming the problem, not the usage and exit 129.
expect_line "stat FILE" \
	"perf kmem: stat takes its trace with -i: perf kmem stat -i $good" \
	perf kmem stat --page "$good"
expect_line "stat FILE FILE" \
	"perf kmem: stat takes one trace, with -i, not 2: perf kmem diff compares two" \
	perf kmem stat --page "$good" "$good"
# A command, as perf stat takes one: where it goes instead.
want="perf kmem: stat reads a trace given with -i, and sleep is no file: a command is"
want="$want recorded with perf kmem record -- CMD, or counted with perf kmem stat -b -- CMD"
expect_line "stat -- sleep 1" "$want" perf kmem stat --page -- sleep 1
expect_line "kmem stats" \
	"perf kmem: unknown subcommand 'stats': did you mean 'stat'?" \
	perf kmem stats
expect_line "kmem dif" \
	"perf kmem: unknown subcommand 'dif': did you mean 'diff'?" \
	perf kmem dif
expect_line "kmem report" \
	"perf kmem: unknown subcommand 'report': use record, stat or diff" \
	perf kmem report

# Under --live the bytes column holds live bytes, and says so.  Columns
# are as wide as their numbers: the spaces before a header are the trace's.
head=$(perf kmem stat --page --caller --live -i "$good" 2>/dev/null | sed -n 3p)
live_header='^ *Live_bytes/Size \| +Live \| Order \| '
if [[ $head =~ $live_header ]]; then
	echo "ok   --live header: ${head:0:40}"
else
	echo "FAIL --live header: '$head'"
	err=1
fi

# Options that did nothing in these combinations are refused.
expect_line "--slab --live" \
	"perf kmem: --live is for the page analysis: use --page without --slab" \
	perf kmem stat --slab --live -i "$good"
expect_line "--live -s frag" \
	"perf kmem: -s frag sorts by the Fragmenting column, which --live leaves out" \
	perf kmem stat --page --live -s frag -i "$good"
expect_line "--live -s xnode" \
	"perf kmem: -s xnode sorts by the Freed remote column, which --live leaves out" \
	perf kmem stat --page --live -s bytes,xnode -i "$good"
for opt in "-I 100" --alloc --raw-ip; do
	want="perf kmem: --folded takes no ${opt% *}: it writes the stacks"
	want="$want of all the allocations, for flame graphs"
	# shellcheck disable=SC2086 # $opt is an option and its value
	expect_line "--folded $opt" "$want" \
		perf kmem stat --page --folded $opt -i "$good"
done
expect_line "--folded=fragmenting --live" \
	"perf kmem: --folded=fragmenting weighs fallbacks, which --live has no part in" \
	perf kmem stat --page --folded=fragmenting --live -i "$good"
sample="${KMEM_DATA:-$(dirname "$0")/../../data}/sample.perf.data"
for weight in fallbacks fragmenting; do
	[ -f "$sample" ] || break
	want="perf kmem: --folded=$weight needs the kmem:mm_page_alloc_extfrag"
	want="$want events, which $sample has not: record with perf kmem record --page"
	expect_line "--folded=$weight of a trace without fallbacks" "$want" \
		perf kmem stat --page --folded="$weight" -i "$sample" \
		--kallsyms "${sample%.perf.data}.kallsyms"
done
if [ -f "$sample" ]; then
	want="perf kmem: --folded=stall needs the reclaim and compaction events,"
	want="$want which $sample has not: record with perf kmem record --page"
	expect_line "--folded=stall of a trace without stall events" "$want" \
		perf kmem stat --page --folded=stall -i "$sample" \
		--kallsyms "${sample%.perf.data}.kallsyms"
fi
# Of a trace with the events and none of them there is no stack to
# write: one line, as of --comm that chose nothing (it wrote nothing,
# exit 0).  perf script says what the trace has.
if perf script -F event -i "$good" 2>/dev/null |
   grep -q -e reclaim_begin -e try_to_compact -e extfrag; then
	echo "skip --folded of nothing: $good has stalls or fallbacks"
else
	while IFS='|' read -r weight what; do
		expect_line "--folded=$weight of none" \
			"perf kmem: --folded=$weight: $what $good, no stack to write" \
			perf kmem stat --page --folded="$weight" -i "$good"
	done <<EOF
stall|no allocation stalled in
fallbacks|no allocation fell back in
fragmenting|no fallback fragmented in
EOF
fi

# A --kallsyms or -k of the wrong kind, or of another kernel: one line
# naming it.  It was blamed on the build-id cache and /proc/kallsyms,
# with every callsite unresolved and exit 0.
expect_line "-k /etc/passwd" \
	"perf kmem: cannot use --vmlinux /etc/passwd: not an ELF file" \
	perf kmem stat --page --caller -k /etc/passwd -i "$good"
want="perf kmem: cannot use --kallsyms /etc/passwd: not a kallsyms file:"
want="$want its first line is not 'address type symbol'"
expect_line "--kallsyms /etc/passwd" "$want" \
	perf kmem stat --page --caller --kallsyms /etc/passwd -i "$good"
printf 'ffffffff00000000 T foo\n' >"$dir/other.kallsyms"
want="perf kmem: no symbol of --kallsyms $dir/other.kallsyms covers a callsite"
want="$want of $good: it is another kernel's"
expect_line "--kallsyms of another kernel" "$want" \
	perf kmem stat --page --caller --kallsyms "$dir/other.kallsyms" -i "$good"
printf '0000000000000000 T foo\n0000000000000000 T bar\n' >"$dir/zero.kallsyms"
expect_line "--kallsyms of zeros" \
	"perf kmem: cannot use --kallsyms $dir/zero.kallsyms: every address is 0 (kptr_restrict)" \
	perf kmem diff --page --kallsyms "$dir/zero.kallsyms" "$good" "$good"
ls_bid=$(perf buildid-list -i /bin/ls 2>/dev/null)
kernel_bid=$(perf buildid-list -i "$good" 2>/dev/null |
	     awk '$2 == "[kernel.kallsyms]" { print $1 }')
if [ -n "$ls_bid" ] && [ -n "$kernel_bid" ]; then
	want="perf kmem: no symbol of --vmlinux /bin/ls covers a callsite of $good:"
	want="$want its build-id is $ls_bid, the recording kernel's $kernel_bid"
	expect_line "-k /bin/ls" "$want" \
		perf kmem stat --page --caller -k /bin/ls -i "$good"
fi

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
		fail "no kernel symbols: $(head -n 2 "$dir/err")"
	else
		echo "ok   no kernel symbols: $(cut -c1-100 "$dir/err")..."
	fi
fi

# A trace without callchains: its tables end in the GFP flags, and the
# rules were as wide as the header, 71 columns, over rows of 140.  Each
# rule of a table is as wide as its widest line.
if perf record -q -e kmem:mm_page_alloc -e kmem:mm_page_free \
	-o "$dir/nocc.data" -- ls -R /usr/lib >/dev/null 2>&1; then
	widths=$(perf kmem stat --page --caller -i "$dir/nocc.data" 2>/dev/null |
		awk '/^-+$/ { rules[length($0)]++; next }
		     / \| / && length($0) > widest { widest = length($0) }
		     END { for (r in rules) printf "%s ", r; print "widest " widest }')
	if [[ $widths =~ ^([0-9]+)\ widest\ ([0-9]+)$ ]] &&
	   [ "${BASH_REMATCH[1]}" = "${BASH_REMATCH[2]}" ]; then
		echo "ok   no callchains: rules and widest line $widths"
	else
		echo "FAIL no callchains: rules of width $widths"
		err=1
	fi
	# Nor the extfrag format, which gives the pageblock order: the map's
	# line says how to give it, as the text's does.
	perf kmem stat --page --map "$dir/map.svg" -i "$dir/nocc.data" \
		>/dev/null 2>"$dir/err"
	rc=$?
	line="perf kmem: --map needs the pageblock order: the trace has no"
	line="$line kmem:mm_page_alloc_extfrag format to read it from;"
	line="$line --pageblock-order N gives it"
	if [ "$rc" -ne 1 ] || [ "$(tail -n 1 "$dir/err")" != "$line" ]; then
		echo "FAIL --map, no pageblock order: exit $rc, $(tail -n 1 "$dir/err")"
		err=1
	else
		echo "ok   --map, no pageblock order: $line"
	fi
fi

# Without kmem:mm_page_free every page looks still allocated: a line says
# why, which a trace with the frees has not.
nofree="perf kmem: no kmem:mm_page_free in $dir/nofree.data: no page is seen freed,"
nofree="$nofree the lifetimes need 'perf kmem record --page'"
if perf record -q -e kmem:mm_page_alloc -o "$dir/nofree.data" -- \
	ls -R /usr/lib >/dev/null 2>&1; then
	perf kmem stat --page -i "$dir/nofree.data" >/dev/null 2>"$dir/err"
	rc=$?
	perf kmem stat --page -i "$dir/nocc.data" >/dev/null 2>"$dir/err2"
	if [ "$rc" -ne 0 ] || ! grep -qxF "$nofree" "$dir/err" ||
	   grep -q "mm_page_free" "$dir/err2"; then
		fail "no mm_page_free: exit $rc, $(grep mm_page_free "$dir/err" "$dir/err2")"
	else
		echo "ok   no mm_page_free: $(cut -c1-100 <<<"$nofree")..."
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
		fail "sampled recording: $(tail -n 1 "$dir/err")"
	else
		echo "ok   sampled recording: $(tail -n 1 "$dir/err")"
	fi
fi


# Paths no other case reached.  A --folded that is no weight, or with
# --json; -s of both task keys; page options under --slab.
want="perf kmem: --folded=bogus: the weights are bytes, hits, stall, fallbacks"
want="$want and fragmenting"
expect_line "--folded=bogus" "$want" \
	perf kmem stat --page --folded=bogus -i "$good"
expect_line "--folded --json" \
	"perf kmem: --folded and --json are two output formats: use one of them" \
	perf kmem stat --page --folded --json -i "$good"
expect_line "--folded --slab" "perf kmem: --folded writes the page analysis: add --page" \
	perf kmem stat --slab --folded -i "$good"
expect_line "--alloc-func-add (" "perf kmem: --alloc-func-add '(': Unmatched ( or \\(" \
	perf kmem stat --page --alloc-func-add '(' -i "$good"
expect_line "-s pid,comm" "perf kmem: -s takes one of pid and comm" \
	perf kmem stat --page -s pid,comm -i "$good"
# A key of a table not shown sorted nothing: page and ptr are the --alloc
# rows', cache the --caller rows'.
page_keys="the --caller table of --page takes bytes, hit, order, migtype, gfp, xnode,"
page_keys="$page_keys frag, pid, comm, stall, callsite"
slab_keys="callsite, hit, bytes, pingpong, frag"
while IFS='|' read -r opts key rows want; do
	# shellcheck disable=SC2086 # $opts is options and values
	expect_line "$opts" "perf kmem: sort key '$key' sorts only the rows of --$rows: $want" \
		perf kmem stat $opts -i "$good"
done <<EOF
--page --caller -s page|page|alloc|$page_keys
--page -s hit,page|page|alloc|$page_keys
--slab --caller -s ptr|ptr|alloc|the --caller tables of --slab take ${slab_keys/,/, cache,}
--slab --alloc -s cache|cache|caller|the --alloc table of --slab takes ptr, $slab_keys
EOF
for opt in "-I 100" "--alloc-func kmalloc" "--alloc-func-add kmalloc" \
	   "--pageblock-order 9"; do
	# shellcheck disable=SC2086 # $opt is an option and its value
	expect_line "$opt --slab" "perf kmem: ${opt% *} is for the page analysis: use --page" \
		perf kmem stat --slab $opt -i "$good"
done
expect_line "--pid 1 --slab" \
	"perf kmem: --pid, --tid and --comm are for the page analysis: use --page without --slab" \
	perf kmem stat --slab --pid 1 -i "$good"
if perf kmem record --slab -o "$dir/slab.data" -- true >/dev/null 2>&1; then
	want="perf kmem: $dir/slab.data has no page allocator events:"
	want="$want record them with 'perf kmem record --page'"
	expect_line "--map of a --slab recording" "$want" \
		perf kmem stat --page --map "$dir/map.svg" -i "$dir/slab.data"
fi

# A stream with a record of size 0 at 9/10 of its records: where perf's
# reader stopped, in records, and what the analysis covers.
python3 -c '
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
starts, off = [], 16
while off + 8 <= len(b):
	starts.append(off)
	kind, size = struct.unpack_from("<I2xH", b, off)
	if kind == 66:	# PERF_RECORD_HEADER_TRACING_DATA: its data follows
		off += struct.unpack_from("<I", b, off + 8)[0]
	off += size or len(b)
at = starts[len(starts) * 9 // 10]
b[at:at + 8] = bytes(8)
open(sys.argv[2], "wb").write(b)
' "$dir/stream.data" "$dir/broken-stream.data"
perf kmem stat --page -i - <"$dir/broken-stream.data" >/dev/null 2>"$dir/err"
rc=$?
line="^perf kmem: - is corrupt after [0-9,]+ records: the analysis covers"
line="$line the [0-9,]+ events before$"
if [ "$rc" -ne 1 ] || [ "$(grep -c . "$dir/err")" -ne 1 ] ||
   ! grep -Eq "$line" "$dir/err"; then
	fail "corrupt stream: exit $rc, $(head -n 2 "$dir/err" | paste -sd' ')"
else
	echo "ok   corrupt stream: $(cat "$dir/err")"
fi

# stat -b refuses what a count in the kernel cannot give, a missing
# target and numbers out of range, before it loads anything.
if perf kmem stat --page -b -a -o "$dir/probe.txt" -- true 2>/dev/null; then
	huge=99999999999999999999
	bytes_range="use a number from 1 to 1099511627776"
	while IFS='|' read -r opts want; do
		# shellcheck disable=SC2086 # $opts is options and values
		expect_line "stat -b $opts" "perf kmem: $want" \
			perf kmem stat --page -b -a $opts -- true
	done <<EOF
--alloc|--alloc: stat -b keeps no row per page
--map $dir/b.svg|--map: stat -b keeps no pageblock callsites
--time 1,2|--time: stat -b counts from its start to its end
--comm X|--comm, -s pid and -s comm: stat -b keeps no task of each allocation
-s pid|--comm, -s pid and -s comm: stat -b keeps no task of each allocation
-s bytes,comm|--comm, -s pid and -s comm: stat -b keeps no task of each allocation
--folded=fallbacks|--folded=fallbacks: the weights of -b are bytes, hits and stall
--kallsyms /proc/kallsyms|--kallsyms, --vmlinux: stat -b names callsites with /proc/kallsyms
-M 0|invalid -M '0': use a number from 1 to 16777216
-M 16777217|invalid -M '16777217': use a number from 1 to 16777216
--sample-bytes 0|invalid --sample-bytes '0': $bytes_range
--sample-bytes $huge|invalid --sample-bytes '$huge': $bytes_range
EOF
	want="perf kmem: stat -b counts the tasks of one of -a, -p PID, --tid TID and"
	want="$want --cgroup CG, or without them of -- CMD"
	expect_line "stat -b without a target" "$want" perf kmem stat --page -b
fi

kmem_result "kmem bad input test"
