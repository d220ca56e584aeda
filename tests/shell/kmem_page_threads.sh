#!/bin/bash
# perf kmem stat --page reads a perf record --threads recording in bounded memory (exclusive)
# SPDX-License-Identifier: GPL-2.0
#
# perf record --threads writes a directory of per-thread files and no
# round markers, so nothing tells perf kmem when the events of a time span
# are all in: its queue would hold the whole trace.  With a bound
# (kmem.queue-size), it delivers its older half whenever it is full.  This
# records pipe traffic with --threads, reads it with a bound a fraction of
# the trace, and checks every summary number, grid cell and callsite row
# against an awk count of perf script (tests/shell/kmem_page.sh does the
# counting), that the bound was reached and that no event came too late.

set -u

# shellcheck source-path=SCRIPTDIR source=lib/kmem_common.sh
. "$(dirname "$0")/lib/kmem_common.sh"
kmem_need_tracepoints

kmem_scratch page-threads
data="$dir/threads.data"

# Pipe traffic: every 64 KiB written allocates pages, read frees them.
# Enough that each CPU's file is many of the reader's 2 MiB turns long.
kmem_record_or_skip "$data" --page --threads -- sh -c '
	for i in 1 2; do
		dd if=/dev/zero bs=64k count=5000 status=none | cat >/dev/null &
	done
	wait'
if [ ! -d "$data" ]; then
	fail "perf record --threads wrote no directory"
	exit 1
fi

# A bound of half the trace's records (48 bytes each): the queue reaches
# it at least once, and it holds the lead that one CPU's file may take
# over another's in perf's reader, which reads the files in turns of
# 2 MiB, not in time order.
nr=$(perf kmem stat --page -i "$data" 2>/dev/null |
	awk -F'[][]' '/Total allocations:|Total frees:/ {
		split($1, a, ":"); gsub(/[ ,]/, "", a[2]); n += a[2] }
		END { print n + 0 }')
bound=$((nr * 48 / 2))
[ "$bound" -ge 4096 ] || bound=4096
printf '[kmem]\n\tqueue-size = %d\n' "$bound" >"$dir/perfconfig"
export PERF_CONFIG="$dir/perfconfig"
echo "$nr page events, kmem.queue-size = $bound bytes"

perf kmem stat --page -v -i "$data" >"$dir/stat" 2>"$dir/stat.err"
if ! grep -q "event queue reached kmem.queue-size" "$dir/stat.err"; then
	fail "the queue never reached its bound of $bound bytes"
fi
if grep -q "Events out of time order" "$dir/stat"; then
	fail "events came out of time order:"
	grep -A1 "Events out of time order" "$dir/stat"
fi
if ! KMEM_PAGE_DATA="$data" bash "$(dirname "$0")/kmem_page.sh"; then
	fail "the bounded analysis differs from perf script's count"
fi
kmem_result "kmem page threads test"
