#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# What the perf kmem shell tests share: the checks that decide whether a
# test can run here, its scratch directory, its failures and its result
# line.  A test sources it first and keeps no preamble of its own:
#
#   # shellcheck source-path=SCRIPTDIR source=lib/kmem_common.sh
#   . "$(dirname "$0")/lib/kmem_common.sh"
#   kmem_need_tracepoints mm_page_alloc     # root and kmem:*, or skip
#   kmem_need_commands python3              # or skip
#   kmem_scratch page                       # $dir, removed at exit
#   kmem_record_or_skip "$dir/perf.data" --page -- sh -c '...'
#   [ "$got" = "$want" ] || fail "got $got, want $want"
#   kmem_result "kmem page test"            # last line, exit 0 or 1
#
# The exit status is what perf test and scripts/run-tests.sh read: 0
# pass, 1 fail, 2 skip.  A skip prints one line "skip: WHY"; a failure
# one line "FAIL: WHAT" per check, and the test goes on to its end,
# where kmem_result says "NAME [Success]" or "NAME [Failed]".  A test
# that cannot go on after a failure ends with exit 1 after its fail.
# The variables it sets: dir (kmem_scratch) and err (1 once a check
# failed).  The scripts the tests run lie beside this file, as
# lib/kmem_*, in this tree and in a kernel tree alike.

# kmem_skip WORDS: say why the test cannot run here, and end it (exit 2).
kmem_skip() {
	echo "skip: $*"
	exit 2
}

# kmem_need_commands CMD...: each CMD in PATH, or skip (exit 2).
kmem_need_commands() {
	local cmd

	for cmd in "$@"; do
		command -v "$cmd" >/dev/null || kmem_skip "no $cmd"
	done
}

# kmem_need_tracepoints [EVENT...]: root and the kmem tracepoints, and
# kmem:EVENT for each EVENT given, or skip (exit 2).
kmem_need_tracepoints() {
	local ev

	[ "$(id -u)" = 0 ] || kmem_skip "recording the kmem tracepoints needs root"
	if [ ! -d /sys/kernel/tracing/events ]; then
		mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
	fi
	[ -d /sys/kernel/tracing/events/kmem ] || kmem_skip "no kmem tracepoints"
	# Each argument: with "$@" shellcheck would flag every call without
	# any (SC2119).
	for ev; do
		[ -d "/sys/kernel/tracing/events/kmem/$ev" ] ||
			kmem_skip "no kmem:$ev tracepoint"
	done
}

# kmem_scratch NAME: a directory in $dir, removed when the test exits.
kmem_scratch() {
	dir=$(mktemp -d "/tmp/kmem-$1.XXXXXX")
	# shellcheck disable=SC2064 # $dir is known now, and must be then
	trap "rm -rf '$dir'" EXIT
}

err=0
kmem_kept=" "

# kmem_keep_rejected WORDS: where WORDS carry perf kmem's line that it
# stopped in a recording ("perf kmem: FILE is corrupt after ...", "perf
# kmem: cannot read FILE: corrupt data ..."), keep FILE out of the
# scratch directory, which goes at exit, once: a copy in KMEM_KEEP_DIR
# (default $TMPDIR, or /tmp), and beside it what perf kmem stat -v and
# perf report --stats say of it.  One line says where.
kmem_keep_rejected() {
	local re='perf kmem: (cannot read )?(/[^ ]*[^ :]):? (is corrupt|corrupt data) '
	local data keep mode

	[[ $* =~ $re ]] || return 0
	data=${BASH_REMATCH[2]}
	[ -f "$data" ] && [[ $kmem_kept != *" $data "* ]] || return 0
	kmem_kept="$kmem_kept$data "
	keep=$(mktemp -d "${KMEM_KEEP_DIR:-${TMPDIR:-/tmp}}/kmem-rejected.XXXXXX") &&
		cp "$data" "$keep/" || return 0
	[ -f "$data.log" ] && cp "$data.log" "$keep/"
	# Where perf's reader stopped, and why: its own lines, held back without -v.
	for mode in --page --slab; do
		perf kmem stat -v "$mode" -i "$data" 2>&1 >/dev/null |
			grep -e "failed to process" -e "Can't parse" -e "fuzzed"
	done | sort -u | head -n 5 >"$keep/why"
	perf report --stats -i "$data" >"$keep/report-stats" 2>&1
	echo "kept: $data in $keep/ ($(head -n 1 "$keep/why"))"
}

# fail WORDS: say what failed; the test goes on, and fails at its end.
fail() {
	echo "FAIL: $*"
	err=1
	kmem_keep_rejected "$@"
}

# kmem_record_or_skip DATA OPTIONS... -- CMD...: perf kmem record -o DATA,
# or skip (exit 2) with its last line when recording is not possible here.
kmem_record_or_skip() {
	local data=$1

	shift
	if ! perf kmem record -o "$data" "$@" >"$data.log" 2>&1 </dev/null; then
		kmem_skip "cannot record: $(tail -n 1 "$data.log")"
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
