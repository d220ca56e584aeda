#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# For refactoring: every output of perf kmem stat and diff, on real
# traces of this machine, before and after a change, byte for byte.
#
#   scripts/golden.sh record        record the traces (root), build/golden/traces
#   scripts/golden.sh save [PERF]   PERF's outputs (./perf) as the base
#   scripts/golden.sh check [PERF]  PERF's outputs against the base:
#                                   "N differ of M", exit 1 if N > 0
#
# The outputs are text, JSON, CSV, folded stacks, SVG maps, pprof files,
# intervals, every -s key, the diffs (of traces and of saved JSON) and the
# error messages with their exit status: about 480 files, 10 s.  Not a
# test: the traces are this machine's, and a deliberate change of an output
# is for its commit to name.
set -u

TOP=$(cd "$(dirname "$0")/.." && pwd)
DIR=$TOP/build/golden
TRACES=$DIR/traces

die() {
	echo "golden: $*" >&2
	exit 2
}

# Page cache, fork/exec, pipes and anonymous memory; $1 files read.
workload() {
	find /usr/share -type f 2>/dev/null | head -n "$1" |
		xargs cat >/dev/null 2>&1
	for _ in $(seq 40); do /bin/true; done
	dd if=/dev/zero bs=1M count=48 2>/dev/null | cat >/dev/null
	python3 -c 'a = [bytearray(4096) for _ in range(20000)]; del a[::2]
b = [bytearray(65536) for _ in range(300)]'
}

record_one() {
	local name=$1 files=$2

	shift 2
	sync
	echo 3 >/proc/sys/vm/drop_caches
	"$TOP/perf" kmem record "$@" -o "$TRACES/$name.data" -- \
		"$0" workload "$files" >/dev/null 2>&1 ||
		die "cannot record $name"
}

record() {
	[ "$(id -u)" = 0 ] || die "recording needs root"
	mkdir -p "$TRACES" || exit 2
	record_one page-a 2000 --page
	record_one page-b 3000 --page
	record_one slab-a 1500 --slab
	record_one slab-b 2500 --slab
	record_one mixed 2000 --page --slab
	cp "$TOP/data/sample.perf.data" "$TRACES/sample.data"
	if ! PERF=$TOP/perf bash "$TOP/tests/shell/lib/kmem_stall_pressure.sh" \
		"$DIR/stall" >/dev/null 2>&1; then
		echo "golden: no stall trace: memory could not be pressured here"
		return
	fi
	mv "$DIR/stall/perf.data" "$TRACES/stall.data"
}

# stat_of NAME ARGS... TRACE: one output, its stderr and its exit status.
stat_of() {
	local name=$1 trace=${*: -1} extra=()

	set -- "${@:2:$#-2}"
	[ "$trace" = sample ] && extra=(--kallsyms "$TOP/data/sample.kallsyms")
	(cd "$OUT" && "$PERF" kmem "$@" "${extra[@]}" -i "$TRACES/$trace.data" \
		>"$name.$trace.out" 2>"$name.$trace.err"
	 echo "rc $?" >>"$name.$trace.err")
}

diff_of() {
	local name=$1

	shift
	(cd "$OUT" && "$PERF" kmem diff "$@" >"$name.out" 2>"$name.err"
	 echo "rc $?" >>"$name.err")
}

page_outputs() {
	local t=$1 s f

	stat_of p stat --page "$t"
	stat_of pc stat --page --caller "$t"
	stat_of pa stat --page --alloc "$t"
	stat_of pca stat --page --caller --alloc -l 15 "$t"
	stat_of pv stat --page --caller -v "$t"
	stat_of praw stat --page --caller --raw-ip -l 20 "$t"
	stat_of plive stat --page --caller --live "$t"
	for s in bytes hit order migtype gfp xnode frag pid comm stall callsite; do
		stat_of "ps-$s" stat --page --caller --alloc -s "$s,hit" -l 12 "$t"
	done
	stat_of pj stat --page --caller --alloc -j "$t"
	stat_of pjl stat --page --caller --live -j "$t"
	stat_of px stat --page --caller --alloc -x , "$t"
	stat_of pxs stat --page --caller -x ';' "$t"
	stat_of pf stat --page --folded "$t"
	for f in bytes hits stall fallbacks fragmenting; do
		stat_of "pf-$f" stat --page --folded="$f" "$t"
	done
	stat_of pmap stat --page --map "map.$t.svg" "$t"
	stat_of pprof stat --page --pprof "pprof.$t.pb" "$t"
	stat_of pI stat --page -I 500 "$t"
	stat_of pIj stat --page -I 500 -j "$t"
	stat_of pt stat --page --caller --time 0,999999999 "$t"
}

slab_outputs() {
	local t=$1 s

	stat_of s stat "$t"
	stat_of sc stat --slab --caller "$t"
	stat_of sa stat --slab --alloc "$t"
	stat_of sca stat --slab --caller --alloc -l 10 "$t"
	for s in ptr callsite cache hit bytes pingpong frag; do
		stat_of "ss-$s" stat --slab --caller --alloc -s "$s" -l 12 "$t"
	done
	stat_of sj stat --slab --caller --alloc -j "$t"
	stat_of sx stat --slab --caller --alloc -x , "$t"
	stat_of sv stat --slab --caller -v "$t"
}

diff_outputs() {
	local T=$TRACES

	diff_of dp --page "$T/page-a.data" "$T/page-b.data"
	diff_of dpc --page --caller "$T/page-a.data" "$T/page-b.data"
	diff_of dpj --page --caller --json "$T/page-a.data" "$T/page-b.data"
	diff_of dpx --page --caller -x , "$T/page-a.data" "$T/page-b.data"
	diff_of dps --page --caller -s frag -l 10 "$T/page-a.data" "$T/page-b.data"
	diff_of dpm --page --caller "$T/page-a.data" "$T/mixed.data"
	diff_of dpmj --page --caller --json "$T/page-b.data" "$T/mixed.data"
	diff_of ds --slab "$T/slab-a.data" "$T/slab-b.data"
	diff_of dsc --slab --caller "$T/slab-a.data" "$T/slab-b.data"
	diff_of dsj --slab --caller --json "$T/slab-a.data" "$T/slab-b.data"
	diff_of dsx --slab --caller -x , "$T/slab-a.data" "$T/slab-b.data"
	if [ -e "$T/stall.data" ]; then
		diff_of dss --page --caller "$T/stall.data" "$T/page-a.data"
		diff_of dssj --page --caller --json "$T/stall.data" "$T/page-a.data"
	fi
	stat_of pa.json stat --page --caller -j -o pa.json page-a
	stat_of pb.json stat --page --caller -j -o pb.json page-b
	diff_of djson --page --caller "$OUT/pa.json" "$OUT/pb.json"
}

# outputs DIR: every output of $PERF into DIR.
outputs() {
	local t

	[ -e "$TRACES/page-a.data" ] || die "no traces: run $0 record first"
	OUT=$1
	rm -rf "$OUT"
	mkdir -p "$OUT" || exit 2
	for t in page-a page-b mixed sample stall; do
		[ -e "$TRACES/$t.data" ] && page_outputs "$t"
	done
	for t in slab-a slab-b mixed sample; do
		slab_outputs "$t"
	done
	diff_outputs
}

check() {
	local f n=0 differ=0

	outputs "$DIR/new"
	for f in "$DIR"/base/*; do
		n=$((n + 1))
		if ! cmp -s "$f" "$DIR/new/${f##*/}"; then
			differ=$((differ + 1))
			echo "differ: ${f##*/}"
		fi
	done
	echo "$differ differ of $n"
	[ "$differ" = 0 ]
}

PERF=$(readlink -f "${2:-$TOP/perf}")
case ${1:-} in
record) record ;;
save) outputs "$DIR/base" && echo "$(find "$DIR/base" -type f | wc -l) outputs saved" ;;
check) [ -d "$DIR/base" ] || die "no base: run $0 save first"; check ;;
workload) workload "${2:-2000}" ;;
*) sed -n '4,16s/^# \{0,1\}//p' "$0"; exit 2 ;;
esac
