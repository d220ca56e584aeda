#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench: how fast, and in how much memory, our 'perf kmem --page
# --caller stat' reads two real page traces, and 'perf kmem --slab --caller
# stat' a real slab trace, next to upstream perf kmem on the same file and
# next to the floor: 'perf report --stats', which only reads and parses the
# same events and counts them (it does not sort them by time, as perf kmem
# must to pair frees with allocations across CPUs).  Then what observing
# an allocation-heavy workload costs it: perf kmem stat -b at the default
# rate and with every stack, perf kmem record --page, and bpftrace's
# kstack(8) aggregation where bpftrace is installed, as ratios to the
# untraced workload of the same round.
#
#   scripts/bench.sh                  1M page samples of our perf kmem
#                                     record, 1M of stock perf's, 3M slab
#                                     samples (recorded once, then cached)
#   scripts/bench.sh --5m             5M samples, plus a linearity check
#   scripts/bench.sh --bpf            only what observing the workload costs
#   BENCH_SAMPLES=N scripts/bench.sh  any size (>= 1M for the check)
#   BENCH_RUNS=N                      timed runs of each command (9; >= 5)
#   BENCH_BPF_RUNS=N                  rounds of the stat -b comparison (11)
#   BENCH_IDLE_WAIT=S                 wait up to S s for a quiet machine
#
# The first page trace is recorded with our perf ('perf kmem record
# --page': system wide, every event, kernel callchains of the allocations)
# while a mixed file-I/O, fork/exec and anonymous-memory workload runs, and
# cached in build/bench/page-<size>.data; the second with upstream's perf
# kmem record --page, as stock perf records it (callchains of every event,
# user frames too), while page cache, fork/exec, pipe and anonymous memory
# work runs, in build/bench/mixed-1m.data.  Upstream perf kmem resolves the
# callchain of each allocation sample itself, so it needs the callchains.
# Where it fails on a trace (it runs out of memory on some), the bench
# says so, with its last line, and times ours and the floor alone.
#
# Time: wall clock of each run, output to /dev/null, median of the runs.
# The three commands take turns round by round, so that a load change on
# the machine hits all of them alike.  Instructions: one run of ours and
# of the floor under valgrind's cachegrind, the figure that holds where
# other work on the machine moves wall times by a third.
#
# Memory: perf mmaps its input, so the peak RSS (/usr/bin/time %M, the
# kernel's VmHWM) counts the pages of the data file that were touched, and
# the libraries; it is shown, but it is not the heap.  The heap is the
# anonymous memory: RssAnon of /proc/PID/status, sampled every 10 ms in a
# run of its own (the sampling costs a little CPU, so it is never a timed
# run), and its maximum reported.  A peak shorter than 10 ms could be
# missed; the heap of these commands grows with the trace and is largest
# at the end, when the tables are printed, so the sampled maximum is close.
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
OURS=$TOP/perf
UPSTREAM=$TOP/build/upstream/perf
BENCH_DIR=$TOP/build/bench
SAMPLES=${BENCH_SAMPLES:-1000000}
RUNS=${BENCH_RUNS:-9}
IDLE_WAIT=${BENCH_IDLE_WAIT:-300}
BASE_SAMPLES=1000000
SLAB_SAMPLES=3000000

die() {
	echo "bench: $*" >&2
	exit 1
}

# --- the workload recorded ----------------------------------------------

# Runs for $1 seconds: page cache traffic (write, fsync, read back),
# fork/exec of short processes, and anonymous memory (dd's 32 MiB buffer,
# faulted in and freed on each exec).
workload() {
	local secs=$1 tmp end
	tmp=$(mktemp -d)
	end=$((SECONDS + secs))
	# perf record ends the workload with SIGTERM when the file is full.
	trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$tmp"; exit 0' TERM
	(
		while ((SECONDS < end)); do
			dd if=/dev/zero of="$tmp/f" bs=1M count=16 conv=fsync 2>/dev/null
			cat "$tmp/f" >/dev/null
			rm -f "$tmp/f"
			sleep 1.5
		done
	) &
	(
		while ((SECONDS < end)); do
			for _ in 1 2 3 4 5 6 7 8 9 10; do
				/bin/true
			done
			sh -c 'ls /usr/bin >/dev/null'
			sleep 0.6
		done
	) &
	(
		while ((SECONDS < end)); do
			dd if=/dev/zero of=/dev/null bs=8M count=4 2>/dev/null
			sleep 0.6
		done
	) &
	wait
	rm -rf "$tmp"
}

# Runs for $1 seconds, a mix like a small busy server's: page cache
# (a file written, fsync'ed, read back and removed; files read once),
# fork/exec of short processes, data through pipes, and anonymous memory
# faulted in and freed.  Recorded by stock perf (upstream's perf kmem
# record --page, callchains of every event, user frames too), as a trace
# from another machine would come.
mixed_workload() {
	local secs=$1 tmp end
	tmp=$(mktemp -d)
	end=$((SECONDS + secs))
	# As in workload(): the shell waits, so that SIGTERM ends it at once.
	trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$tmp"; exit 0' TERM
	(
		while ((SECONDS < end)); do
			dd if=/dev/zero of="$tmp/f" bs=1M count=32 conv=fsync 2>/dev/null
			cat "$tmp/f" /usr/bin/[a-f]* >/dev/null 2>&1
			rm -f "$tmp/f"
			sleep 1
		done
	) &
	(
		while ((SECONDS < end)); do
			for _ in 1 2 3 4 5 6 7 8 9 10; do
				sh -c 'ls / >/dev/null'
			done
			sleep 0.5
		done
	) &
	(
		while ((SECONDS < end)); do
			head -c 64M /dev/zero | cat | cat >/dev/null
			sleep 0.5
		done
	) &
	(
		while ((SECONDS < end)); do
			python3 -c 'b = bytearray(48 << 20)'
			sleep 0.5
		done
	) &
	wait
	rm -rf "$tmp"
}

# Runs for $1 seconds: file creation, reads and directory walks, which
# allocate and free dentries, inodes, buffer heads and kmalloc memory.
slab_workload() {
	local secs=$1 tmp end i
	tmp=$(mktemp -d)
	end=$((SECONDS + secs))
	# As in workload(): the shell waits, so that SIGTERM ends it at once.
	trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$tmp"; exit 0' TERM
	(
		while ((SECONDS < end)); do
			for i in $(seq 1 2000); do
				echo x >"$tmp/f$i"
			done
			cat "$tmp"/f* >/dev/null
			rm -f "$tmp"/f*
			ls -lR /usr/share >/dev/null 2>&1
		done
	) &
	wait
	rm -rf "$tmp"
}

# --- what counting in the kernel costs a workload ----------------------

# An allocation-heavy workload (three rounds of 300 MiB through a pipe,
# 60 fork/exec, 200 MiB through the page cache) that times itself: it
# appends its wall time in ns and the CPU time in ms of its processes
# (user and system: a BPF program runs in the time of the task whose
# event it counts) to file $1, so that the start-up and the end of
# whatever observes it are not in its time.  On a machine shared with
# others the CPU time moves less than the wall time, which waits for a
# CPU.
alloc_workload() {
	local out=$1 tmp t0 t1 cpu _
	tmp=$(mktemp -d)
	t0=$(date +%s%N)
	for _ in 1 2 3; do
		dd if=/dev/zero bs=64k count=4800 2>/dev/null | cat >/dev/null
	done
	for _ in $(seq 60); do
		/bin/true
	done
	dd if=/dev/zero of="$tmp/f" bs=1M count=200 2>/dev/null
	cat "$tmp/f" >/dev/null
	t1=$(date +%s%N)
	# In this shell, not a subshell: its own times and its children's.
	times >"$tmp/times"
	cpu=$(awk '{ for (i = 1; i <= NF; i++) {
		split($i, t, /[ms]/); ms += (t[1] * 60 + t[2]) * 1000 } }
		END { printf "%d", ms }' "$tmp/times")
	rm -rf "$tmp"
	echo "$((t1 - t0)) $cpu" >>"$out"
}

# bpf_observe NAME: run the workload once as NAME observes it.
bpf_observe() {
	local times="$BENCH_DIR/bpf-$1.times"
	local wl=("$TOP/scripts/bench.sh" --alloc-workload "$times")

	case $1 in
	untraced) "${wl[@]}" ;;
	stat-b) "$OURS" kmem stat --page -b -o /dev/null -- "${wl[@]}" ;;
	stat-b-every) "$OURS" kmem stat --page -b --sample-bytes 1 -o /dev/null -- "${wl[@]}" ;;
	record) "$OURS" kmem record --page -q -o "$BENCH_DIR/bpf-record.data" -- "${wl[@]}" ;;
	bpftrace) bpftrace -e 'tracepoint:kmem:mm_page_alloc { @[kstack(8), args->order, args->migratetype] = count(); }' \
			-c "/bin/bash ${wl[*]}" ;;
	esac >/dev/null 2>&1 || die "the workload under $1 failed"
}

# Ratios of column $2 (1: wall time, 2: CPU time) to the untraced run of
# the same round: median [min, max].
bpf_ratios() {
	paste "$BENCH_DIR/bpf-$1.times" "$BENCH_DIR/bpf-untraced.times" |
		awk -v c="$2" '{ print $c / $(c + 2) }' | sort -n |
		awk '{ v[NR] = $1 } END {
			m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
			printf "%.3f [%.3f, %.3f]", m, v[1], v[NR] }'
}

# What perf itself costs while stat -b counts the workload: its CPU time
# as it says with -v (getrusage of its own process, the workload's time
# apart) and its peak heap (RssAnon, sampled) over the whole run, the
# reading of the maps and the printing included.
bpf_self() {
	local err="$BENCH_DIR/bpf-self.err" peak cpu

	# exec: the process sampled is perf's, with its stderr kept.
	# shellcheck disable=SC2016 # expanded by that sh
	peak=$(anon_peak sh -c 'exec "$0" kmem stat --page -b -v -o /dev/null -- \
		"$1" --alloc-workload /dev/null 2>"$2"' "$OURS" "$TOP/scripts/bench.sh" "$err")
	cpu=$(sed -n 's/.*while counting, perf used \(.*\); peak RSS.*/\1/p' "$err" 2>/dev/null)
	echo
	echo "perf itself under stat -b: ${cpu:-(no -v line)}; peak heap $((${peak% *} / 1024)) MB (RssAnon)"
}

# The workload untraced, counted by perf kmem stat -b at the default rate
# and with every stack, recorded by perf kmem record --page, and where
# bpftrace is installed, aggregated by its kstack(8): round by round, in
# turns, so that a change of the machine's speed hits all alike.
bench_bpf() {
	local runs=${BENCH_BPF_RUNS:-11} r name ratio cpu_ratio
	local -a names=(untraced stat-b stat-b-every record)

	if ! "$OURS" kmem stat --page -b -a -o /dev/null -- true 2>"$BENCH_DIR/bpf.err"; then
		echo "bench: no perf kmem stat -b here: $(head -n 1 "$BENCH_DIR/bpf.err")"
		return 0
	fi
	command -v bpftrace >/dev/null && names+=(bpftrace)
	for name in "${names[@]}"; do
		: >"$BENCH_DIR/bpf-$name.times"
	done
	wait_for_idle
	for ((r = 1; r <= runs; r++)); do
		printf 'bench: stat -b round %d/%d\r' "$r" "$runs" >&2
		for name in "${names[@]}"; do
			bpf_observe "$name"
		done
	done
	echo >&2
	echo
	echo "the workload (3 x 300 MiB through a pipe, 60 fork/exec, 200 MiB of page cache)"
	printf '%d rounds; its own wall and CPU time: median, and ratio to the untraced run of each round: median [min, max]\n\n' "$runs"
	printf '%-14s %7s   %-24s %7s   %s\n' "observed by" "wall s" "x untraced" "CPU s" "x untraced"
	for name in "${names[@]}"; do
		ratio=1.000
		cpu_ratio=1.000
		if [ "$name" != untraced ]; then
			ratio=$(bpf_ratios "$name" 1)
			cpu_ratio=$(bpf_ratios "$name" 2)
		fi
		printf '%-14s %7s   %-24s %7s   %s\n' "$name" \
			"$(secs "$(($(median "$BENCH_DIR/bpf-$name.times" 1) / 1000000))")" \
			"$ratio" "$(secs "$(median "$BENCH_DIR/bpf-$name.times" 2)")" \
			"$cpu_ratio"
	done
	bpf_self
}

# SAMPLE events in a perf.data file, as perf report --stats counts them.
count_samples() {
	"$OURS" report --stats -i "$1" 2>/dev/null |
		awk '/SAMPLE events:/ { print $3; exit }'
}

# Samples take about 150 bytes with their callchains: stop recording at
# this many bytes a sample wanted, so that the trace has about the size
# asked for (the whole machine is recorded, so the workload alone does not
# decide how many events come in).  Stock perf's, with a callchain on every
# event and user frames too, take about 220.
BYTES_PER_SAMPLE=170
STOCK_BYTES_PER_SAMPLE=240

# record_trace FILE SAMPLES page|slab|mixed
record_trace() {
	local out=$1 want=$2 kind=${3:-page} secs n attempt max_kb grow
	local perf=$OURS mode=page bytes=$BYTES_PER_SAMPLE
	secs=$((30 * want / BASE_SAMPLES))
	case $kind in
	slab) secs=$((10 * want / BASE_SAMPLES)) mode=slab ;;
	mixed) perf=$UPSTREAM bytes=$STOCK_BYTES_PER_SAMPLE ;;
	esac
	max_kb=$((want * bytes / 1024))
	mkdir -p "$BENCH_DIR"
	[ -d /sys/kernel/tracing/events ] ||
		mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null || true
	for attempt in 1 2 3; do
		echo "bench: recording $out: up to ${secs}s of workload, ${max_kb} kB (try $attempt)"
		# Upstream takes perf kmem's options before the subcommand only.
		"$perf" kmem "--$mode" record -m 1024 -o "$out.tmp" -q \
			--max-size "${max_kb}K" -- \
			"$TOP/scripts/bench.sh" "--$kind-workload" "$secs" >/dev/null 2>&1 ||
			die "perf kmem record failed"
		n=$(count_samples "$out.tmp")
		# A recording perf report cannot read (seen once on a loaded
		# machine: a record it could not parse): record it again.
		if [ -z "$n" ]; then
			echo "bench: perf report cannot read it: recording again"
			continue
		fi
		echo "bench: $n samples"
		if ((n >= want)); then
			mv "$out.tmp" "$out"
			return 0
		fi
		# Longer and larger, by what was missing and a margin, at most
		# four times.
		grow=$((125 * want / (n + 1)))
		((grow <= 400)) || grow=400
		secs=$((secs * grow / 100 + 5))
		max_kb=$((max_kb * grow / 100 + 1024))
	done
	rm -f "$out.tmp"
	die "could not record $want samples"
}

# --- measuring -----------------------------------------------------------

# "busy idle" jiffies of all CPUs so far; steal counts as busy.
cpu_jiffies() {
	awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9, $5 + $6 }' /proc/stat
}

# Percent of all CPU time that was busy over one second.
cpu_busy() {
	local b0 i0 b1 i1
	read -r b0 i0 < <(cpu_jiffies)
	sleep 1
	read -r b1 i1 < <(cpu_jiffies)
	echo $((100 * (b1 - b0) / (b1 - b0 + i1 - i0 + 1)))
}

# Timings mean little while something else (a compile) hogs the CPU.
wait_for_idle() {
	local waited=0 busy
	while busy=$(cpu_busy) && ((busy > 20)); do
		if ((waited >= IDLE_WAIT)); then
			echo "bench: warning: machine still ${busy}% busy, measuring anyway" >&2
			return 0
		fi
		((waited == 0)) && echo "bench: machine ${busy}% busy, waiting for it to settle" >&2
		sleep 4
		waited=$((waited + 5))
	done
}

# One timed run: appends "seconds maxrss_kB" to file $1.
timed_run() {
	local log=$1 t0 t1 rss
	shift
	t0=$(date +%s%N)
	/usr/bin/time -f %M -o "$BENCH_DIR/time.out" "$@" >/dev/null 2>&1 ||
		die "failed: $*"
	t1=$(date +%s%N)
	rss=$(tail -n 1 "$BENCH_DIR/time.out")
	echo "$(((t1 - t0) / 1000000)) $rss" >>"$log"
}

# Peak RssAnon and VmRSS in kB of one run, sampled every 10 ms.
anon_peak() {
	local pid key val _unit anon=0 rss=0
	"$@" >/dev/null 2>&1 &
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		while read -r key val _unit; do
			case $key in
			RssAnon:) ((val > anon)) && anon=$val ;;
			VmRSS:) ((val > rss)) && rss=$val ;;
			esac
		done <"/proc/$pid/status" 2>/dev/null || true
		sleep 0.01
	done
	wait "$pid" || die "failed: $*"
	echo "$anon $rss"
}

# Median of the numbers in column $2 of file $1.
median() {
	awk -v c="$2" '{ print $c }' "$1" | sort -n |
		awk '{ v[NR] = $1 } END {
			if (NR % 2) print v[(NR + 1) / 2]
			else print int((v[NR / 2] + v[NR / 2 + 1]) / 2) }'
}

# ours/floor of each round, x100: the two ran seconds apart, so a change
# in the machine's speed between rounds cancels out.
round_ratios() {
	paste "$BENCH_DIR/ours.times" "$BENCH_DIR/floor.times" |
		awk '{ printf "%d\n", $3 ? 100 * $1 / $3 : 0 }'
}

centi() {
	awk '{ printf "%.2f", $1 / 100 }'
}

ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b ? a / b : 0 }'
}

mb() {
	awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'
}

secs() {
	awk -v ms="$1" 'BEGIN { printf "%.3f", ms / 1000 }'
}

# Instructions of one run, as cachegrind counts them (no cache simulation):
# the steady figure, where the wall time of a run of a tenth of a second
# moves by a third from one minute to the next on a shared machine.
instructions() {
	valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \
		"$@" 2>&1 >/dev/null | awk '/I +refs:/ { gsub(",", "", $NF); print $NF }'
}

millions() {
	awk -v n="$1" 'BEGIN { printf "%\047.0f", n / 1e6 }'
}

# bench FILE page|slab: time and measure the three commands on FILE; sets
# OURS_MS.  Upstream failing on FILE is reported, not fatal: its perf kmem
# runs out of memory on some large traces, and our ratio to the floor is
# what the bench is for.
bench() {
	local file=$1 mode=$2 n r name up=yes
	local -a floor_cmd ours_cmd up_cmd
	floor_cmd=("$OURS" report --stats -i "$file")
	ours_cmd=("$OURS" kmem "--$mode" --caller -i "$file" stat)
	up_cmd=("$UPSTREAM" kmem "--$mode" --caller -i "$file" stat)
	n=$(count_samples "$file")

	if ! "${up_cmd[@]}" >"$BENCH_DIR/upstream.out" 2>&1 ||
	   ! grep -q 'SUMMARY' "$BENCH_DIR/upstream.out"; then
		echo "bench: upstream perf kmem fails on $file: $(tail -n 1 "$BENCH_DIR/upstream.out")" >&2
		up=
	fi
	"${ours_cmd[@]}" >"$BENCH_DIR/ours.out" 2>&1 ||
		die "our perf kmem fails on $file: see $BENCH_DIR/ours.out"
	grep -q 'SUMMARY' "$BENCH_DIR/ours.out" ||
		die "our perf kmem printed no summary: see $BENCH_DIR/ours.out"

	for name in floor ours upstream; do
		: >"$BENCH_DIR/$name.times"
	done
	wait_for_idle
	for ((r = 1; r <= RUNS; r++)); do
		printf 'bench: run %d/%d\r' "$r" "$RUNS" >&2
		timed_run "$BENCH_DIR/floor.times" "${floor_cmd[@]}"
		timed_run "$BENCH_DIR/ours.times" "${ours_cmd[@]}"
		[ -z "$up" ] || timed_run "$BENCH_DIR/upstream.times" "${up_cmd[@]}"
	done
	echo >&2
	local floor_anon ours_anon up_anon=0 floor_ms ours_ms up_ms=0
	local floor_ins ours_ins
	read -r floor_anon _ < <(anon_peak "${floor_cmd[@]}")
	read -r ours_anon _ < <(anon_peak "${ours_cmd[@]}")
	floor_ins=$(instructions "${floor_cmd[@]}")
	ours_ins=$(instructions "${ours_cmd[@]}")
	floor_ms=$(median "$BENCH_DIR/floor.times" 1)
	ours_ms=$(median "$BENCH_DIR/ours.times" 1)

	echo
	printf 'perf kmem --%s --caller stat on %s\n' "$mode" "${file#"$TOP"/}"
	printf '%s samples, %s MB, %d runs each, medians\n\n' \
		"$n" "$(mb $(($(stat -c %s "$file") / 1024)))" "$RUNS"
	printf '%-26s %9s %9s %11s %11s\n' command "wall s" "x floor" \
		"peak RSS MB" "anon MB"
	printf '%-26s %9s %9s %11s %11s\n' "floor: report --stats" \
		"$(secs "$floor_ms")" 1.00 \
		"$(mb "$(median "$BENCH_DIR/floor.times" 2)")" "$(mb "$floor_anon")"
	printf '%-26s %9s %9s %11s %11s\n' "ours: kmem stat" \
		"$(secs "$ours_ms")" "$(ratio "$ours_ms" "$floor_ms")" \
		"$(mb "$(median "$BENCH_DIR/ours.times" 2)")" "$(mb "$ours_anon")"
	OURS_MS=$ours_ms
	BENCH_N=$n
	if [ -n "$up" ]; then
		read -r up_anon _ < <(anon_peak "${up_cmd[@]}")
		up_ms=$(median "$BENCH_DIR/upstream.times" 1)
		printf '%-26s %9s %9s %11s %11s\n' "upstream: kmem stat" \
			"$(secs "$up_ms")" "$(ratio "$up_ms" "$floor_ms")" \
			"$(mb "$(median "$BENCH_DIR/upstream.times" 2)")" "$(mb "$up_anon")"
	else
		printf '%-26s %9s\n' "upstream: kmem stat" failed
	fi
	echo
	printf 'ours/floor:    time %s (round by round: median %s, best %s)\n' \
		"$(ratio "$ours_ms" "$floor_ms")" \
		"$(round_ratios | median /dev/stdin 1 | centi)" \
		"$(round_ratios | sort -n | head -n 1 | centi)"
	printf 'ours/floor:    instructions %s (%sM against %sM, cachegrind)\n' \
		"$(ratio "$ours_ins" "$floor_ins")" "$(millions "$ours_ins")" \
		"$(millions "$floor_ins")"
	[ -n "$up" ] || return 0
	printf 'ours/upstream: time %s (%sx faster), anon %s\n' \
		"$(ratio "$ours_ms" "$up_ms")" "$(ratio "$up_ms" "$ours_ms")" \
		"$(ratio "$ours_anon" "$up_anon")"
}

size_label() {
	case $1 in
	*000000) echo "$(($1 / 1000000))m" ;;
	*) echo "$1" ;;
	esac
}

# trace_for SAMPLES [page|slab|mixed]
trace_for() {
	local file kind=${2:-page}
	file=$BENCH_DIR/$kind-$(size_label "$1").data
	[ -s "$file" ] || record_trace "$file" "$1" "$kind" >&2
	echo "$file"
}

main() {
	case ${1:-} in
	--page-workload)
		workload "$2"
		return
		;;
	--slab-workload)
		slab_workload "$2"
		return
		;;
	--alloc-workload)
		alloc_workload "$2"
		return
		;;
	--mixed-workload)
		mixed_workload "$2"
		return
		;;
	--5m) SAMPLES=5000000 ;;
	--bpf) ;;
	"") ;;
	*) die "usage: $0 [--5m | --bpf]" ;;
	esac
	((RUNS >= 5)) || die "BENCH_RUNS must be at least 5"
	[ -x "$OURS" ] || die "no $OURS: run make"
	[ -x "$UPSTREAM" ] || [ "${1:-}" = --bpf ] || die "no $UPSTREAM: run make upstream"
	[ "$(id -u)" = 0 ] || die "recording page events needs root"
	mkdir -p "$BENCH_DIR"
	if [ "${1:-}" = --bpf ]; then
		bench_bpf
		return
	fi

	local file base_ms base_n big_ms big_n per_base per_big
	file=$(trace_for "$BASE_SAMPLES")
	bench "$file" page
	file=$(trace_for "$BASE_SAMPLES" mixed)
	bench "$file" page
	file=$(trace_for "$SLAB_SAMPLES" slab)
	bench "$file" slab
	bench_bpf
	((SAMPLES > BASE_SAMPLES)) || return 0

	# The large mode: it completes, and time per sample stays as it was.
	base_ms=$OURS_MS
	base_n=$BENCH_N
	file=$(trace_for "$SAMPLES")
	bench "$file" page
	big_ms=$OURS_MS
	big_n=$BENCH_N
	per_base=$(awk -v t="$base_ms" -v n="$base_n" 'BEGIN { printf "%.3f", 1000 * t / n }')
	per_big=$(awk -v t="$big_ms" -v n="$big_n" 'BEGIN { printf "%.3f", 1000 * t / n }')
	echo
	printf 'linearity: %s us/sample at %s samples, %s us/sample at %s: x%s %s\n' \
		"$per_base" "$base_n" "$per_big" "$big_n" \
		"$(ratio "$per_big" "$per_base")" \
		"$(awk -v a="$per_big" -v b="$per_base" 'BEGIN { print a <= 1.25 * b ? "(linear)" : "(NOT linear)" }')"
}

main "$@"
