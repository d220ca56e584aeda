#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# What the perf kmem shell tests share: the checks that decide whether a
# test can run here, its scratch directory and its failure count.

# kmem_need_tracepoints: root and the kmem tracepoints, or skip (exit 2).
kmem_need_tracepoints() {
	if [ "$(id -u)" != 0 ]; then
		echo "skip: recording the kmem tracepoints needs root"
		exit 2
	fi
	if [ ! -d /sys/kernel/tracing/events ]; then
		mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
	fi
	if [ ! -d /sys/kernel/tracing/events/kmem ]; then
		echo "skip: no kmem tracepoints"
		exit 2
	fi
}

# kmem_scratch NAME: a directory in $dir, removed when the test exits.
kmem_scratch() {
	dir=$(mktemp -d "/tmp/kmem-$1.XXXXXX")
	# shellcheck disable=SC2064 # $dir is known now, and must be then
	trap "rm -rf '$dir'" EXIT
}

err=0

# fail WORDS: say what failed; the test goes on, and fails at its end.
fail() {
	echo "FAIL: $*"
	err=1
}

# kmem_record_or_skip DATA OPTIONS... -- CMD...: perf kmem record -o DATA,
# or skip (exit 2) with its last line when recording is not possible here.
kmem_record_or_skip() {
	local data=$1

	shift
	if ! perf kmem record -o "$data" "$@" >"$data.log" 2>&1 </dev/null; then
		echo "skip: cannot record: $(tail -n 1 "$data.log")"
		exit 2
	fi
}

# kmem_result NAME: the test's last line, and its exit status.
kmem_result() {
	if [ "$err" -ne 0 ]; then
		echo "$1 [Failed]"
		exit 1
	fi
	echo "$1 [Success]"
	exit 0
}
