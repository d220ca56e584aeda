#!/bin/bash
# Run every test of our perf kmem: the C suites (page, slab, input, output,
# frag, diff, stall, pprof, bpf) through perf test, the shell tests, checkpatch
# and the shellcheck of our scripts; with --sanitize also the C suites,
# perf kmem stat runs, the corrupt-input shell test and a short run of
# mutated perf.data files under ASan+UBSan (build/perf-asan/perf).
#
# One line per result, "PASS|FAIL|SKIP name", then "N passed, N failed,
# N skipped".  Exits 1 if anything failed.
#
#   scripts/run-tests.sh [--sanitize]

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1

perf="$top/perf"
asan_perf="$top/build/perf-asan/perf"
noskel_perf="$top/build/perf-noskel/perf"
checkpatch="$top/build/src/linux-source-6.12/scripts/checkpatch.pl"
logdir=$(mktemp -d /tmp/kmem-run-tests.XXXXX)
trap 'rm -rf "$logdir"' EXIT

sanitize=0
for arg in "$@"; do
	case "$arg" in
	--sanitize) sanitize=1 ;;
	*) echo "usage: $0 [--sanitize]" >&2; exit 2 ;;
	esac
done

passed=0
failed=0
skipped=0

pass() {
	echo "PASS $*"
	passed=$((passed + 1))
}

fail() {
	echo "FAIL $*"
	failed=$((failed + 1))
}

skip() {
	echo "SKIP $*"
	skipped=$((skipped + 1))
}

# Show the end of a log under a failed result.
show() {
	tail -n "${2:-30}" "$1" | sed 's/^/    /'
}

# Our C suites are the ones whose cases are named "kmem page: ...",
# "kmem slab: ...", "kmem input: ...", "kmem frag: ...", "kmem diff: ...",
# "kmem stall: ..." and "kmem bpf: ...".
suite_number() {
	"$1" test list 2>&1 |
		awk -v kind="$2:" '$2 == "kmem" && $3 == kind { split($1, a, "."); print a[1]; exit }'
}

# Sanitizer reports, whatever the exit status was.
sanitizer_report() {
	grep -E 'ERROR: (Address|Leak)Sanitizer|runtime error:|SUMMARY: .*Sanitizer' "$1"
}

# (a), (d): each case of the C suite is one result.  perf test prints
# " N.M: desc : Ok|FAILED!|Skip" and exits 0 whatever happened, so the
# verdict comes from those lines, and a case that printed none failed.
run_c_suite() {
	local bin=$1 prefix=$2 kind=$4 log="$logdir/c-suite-$4$3.log" n cases desc res

	if [ ! -x "$bin" ]; then
		fail "${prefix}C suite: $bin not built"
		return
	fi
	n=$(suite_number "$bin" "$kind")
	if [ -z "$n" ]; then
		fail "${prefix}C suite: no 'kmem $kind:' cases in '$bin test list'"
		return
	fi
	"$bin" test list 2>&1 | sed -n "s/^ *$n\.[0-9]*: //p" >"$logdir/cases"
	cases=$(wc -l <"$logdir/cases")
	# -v: the reason of a failure, and sanitizer reports, end up in the log.
	"$bin" test -v "$n" >"$log" 2>&1
	while IFS= read -r desc; do
		res=$(awk -v d="$desc" -v n="$n" '
			{ line = $0; sub(/^ */, "", line) }
			index(line, n ".") == 1 {
				sub(/^[0-9.]+: /, "", line)
				if (index(line, d) == 1) {
					rest = substr(line, length(d) + 1)
					if (rest ~ /^ *: (Ok|FAILED!|Skip)/) {
						sub(/^ *: /, "", rest)
						r = rest
					}
				}
			}
			END { print r }' "$log")
		case "$res" in
		Ok) pass "$prefix$desc" ;;
		Skip*) skip "$prefix$desc ($res)" ;;
		FAILED*) fail "$prefix$desc"
			grep -E '^(got |FAILED |migtype |-s )' "$log" |
				sed 's/^/    /' | head -n 10 ;;
		*) fail "$prefix$desc: no result (crashed?)" ;;
		esac
	done <"$logdir/cases"
	[ "$cases" -gt 0 ] || fail "${prefix}C suite: no cases"
	if sanitizer_report "$log" >/dev/null; then
		fail "${prefix}C suite: sanitizer report"
		sanitizer_report "$log" | head -n 10 | sed 's/^/    /'
	fi
}

# Is shell test $1 one that perf test runs alone ("(exclusive)" ends its
# description, line 2): one that records the whole machine or measures it?
exclusive() {
	sed -n 2p "$1" | grep -q '(exclusive)$'
}

# (b) Shell tests run directly, with our perf first in PATH; with
# --sanitize, kmem_corrupt.sh also runs the ASan+UBSan perf.  $1 says
# which: "exclusive" ones, run while nothing else runs, or "shared" ones.
run_shell_tests() {
	local kind=$1 t name log rc start asan=

	if [ "$sanitize" = 1 ] && [ -x "$asan_perf" ]; then
		asan=$asan_perf
	fi
	for t in tests/shell/*.sh; do
		[ -e "$t" ] || continue
		if exclusive "$t"; then
			[ "$kind" = exclusive ] || continue
		else
			[ "$kind" = shared ] || continue
		fi
		name="shell: $(basename "$t")"
		log="$logdir/$(basename "$t").log"
		start=$SECONDS
		PATH="$top:$PATH" KMEM_ASAN_PERF="$asan" \
			KMEM_NOSKEL_PERF="$noskel_perf" bash "$t" >"$log" 2>&1
		rc=$?
		# Its time, to keep make test within its budget.
		name="$name ($((SECONDS - start)) s)"
		case $rc in
		0) pass "$name" ;;
		2) skip "$name: $(grep -m1 -i skip "$log")" ;;
		*) fail "$name (exit $rc)"; show "$log" 40 ;;
		esac
	done
}

run_exclusive_shell_tests() {
	run_shell_tests exclusive
}

run_shared_shell_tests() {
	run_shell_tests shared
}

# Our C files: the ones in the tree, wherever they are.
our_c_files() {
	git ls-files '*.c' '*.h' 2>/dev/null ||
		find . -path ./build -prune -o -name '*.[ch]' -print
}

# (c) checkpatch --strict, one result per file.  Ignored: CAMELCASE, which
# flags inttypes.h's PRIu64 and libFuzzer's LLVMFuzzerTestOneInput, names
# that are not ours to choose; LONG_LINE_STRING, since kernel style keeps
# a message in one piece to be found by grep; and MACRO_ARG_REUSE, which
# flags the macros that paste string literals into test formats, where an
# argument cannot have side effects.
checkpatch_ignore=CAMELCASE,LONG_LINE_STRING,MACRO_ARG_REUSE
# A BPF program's settings are 'const volatile', libbpf's rodata: the
# compiler must not fold what the user side sets before loading it.
bpf_ignore=$checkpatch_ignore,VOLATILE

# The arguments of each file's checkpatch run: its ignore list, the file
# and its log, NUL-separated.
checkpatch_jobs() {
	local n=0 f ignore

	while IFS= read -r f; do
		n=$((n + 1))
		ignore=$checkpatch_ignore
		case $f in *.bpf.c) ignore=$bpf_ignore ;; esac
		printf '%s\0%s\0%s\0' "$ignore" "$f" "$logdir/checkpatch.$n"
	done < <(our_c_files)
}

run_checkpatch() {
	local f n out

	if [ ! -x "$checkpatch" ] && [ ! -f "$checkpatch" ]; then
		skip "checkpatch: $checkpatch missing (run make first)"
		return
	fi
	# Two files at a time, each into its log, read back in order.
	# shellcheck disable=SC2016 # expanded by xargs' sh
	checkpatch_jobs | xargs -0 -n 3 -P 2 sh -c \
		'perl "$0" --no-tree --strict -f --terse --ignore "$1" "$2" >"$3" 2>&1' \
		"$checkpatch"
	n=0
	while IFS= read -r f; do
		n=$((n + 1))
		out=$(cat "$logdir/checkpatch.$n")
		if echo "$out" | grep -qE '(ERROR|WARNING|CHECK):'; then
			fail "checkpatch: $f"
			echo "$out" | grep -E '(ERROR|WARNING|CHECK):' | sed 's/^/    /'
		else
			pass "checkpatch: $f"
		fi
	done < <(our_c_files)
}

# (d) kernel-doc -Wall on the headers of our engines: each comment that
# opens with '/**' must describe what it declares, all its parameters.
run_kerneldoc() {
	local kerneldoc=${checkpatch%/checkpatch.pl}/kernel-doc out

	if [ ! -f "$kerneldoc" ]; then
		skip "kernel-doc: $kerneldoc missing (make clean; make)"
		return
	fi
	out=$(perl "$kerneldoc" -Wall -none "$top"/util/kmem/*.h \
		"$top"/util/bpf_skel/kmem_data.h 2>&1)
	if [ -n "$out" ]; then
		fail "kernel-doc: util/kmem/*.h"
		echo "$out" | head -n 20 | sed 's/^/    /'
	else
		pass "kernel-doc: util/kmem/*.h"
	fi
}

# (g) The patch series: make series (every file of ours in one patch of
# series/series.txt, the cut cannot drift) and checkpatch on each patch,
# commit message and shell tests included, as make series-check runs it.
# The whole series-check (a build after every patch) is too long for
# make test: make series-check runs it.
run_series() {
	local author=${SERIES_AUTHOR:-perf kmem tests <kmem-tests@localhost>}

	# Into the log directory, with an author of its own: build/series is
	# the user's, and a fresh machine may have no git identity.
	if ! make -s -C "$top" series SERIES_OUT="$logdir/series" \
		SERIES_AUTHOR="$author" >"$logdir/series.log" 2>&1; then
		fail "series: make series"
		show "$logdir/series.log" 10
	elif scripts/series-check.sh --checkpatch-only "$logdir/series" \
		>"$logdir/series.log" 2>&1; then
		pass "series: $(tail -n 1 "$logdir/series.log")"
	else
		fail "series: $(tail -n 1 "$logdir/series.log")"
		show "$logdir/series.log" 20
	fi
}

# (e) shellcheck, one result per script.
run_shellcheck() {
	local f

	if ! command -v shellcheck >/dev/null; then
		skip "shellcheck: not installed"
		return
	fi
	for f in tests/shell/*.sh tests/shell/lib/*.sh scripts/*.sh; do
		[ -e "$f" ] || continue
		if shellcheck -x "$f" >"$logdir/shellcheck.log" 2>&1; then
			pass "shellcheck: $f"
		else
			fail "shellcheck: $f"
			show "$logdir/shellcheck.log" 20
		fi
	done
}

# (d) perf kmem stat under ASan+UBSan on a fresh recording of each mode,
# --pprof among them.
run_asan_stat() {
	local data="$logdir/asan.data" log="$logdir/asan-stat.log" opts rc

	if [ ! -x "$asan_perf" ]; then
		fail "asan: perf kmem stat: $asan_perf not built"
		return
	fi
	if [ "$(id -u)" != 0 ]; then
		skip "asan: perf kmem stat: recording needs root"
		return
	fi
	if ! "$perf" kmem record --page --slab -o "$data" -- \
		sh -c 'cat /usr/bin/ls /usr/bin/sh >/dev/null; ls -R /usr/lib >/dev/null' \
		>"$logdir/asan-record.log" 2>&1; then
		skip "asan: perf kmem stat: cannot record"
		show "$logdir/asan-record.log" 5
		return
	fi
	for opts in "--page" "--page --caller --alloc -l 1000000" \
		"--page --live -s order,hit" "--page --caller --raw-ip -v" \
		"--slab" "--slab --caller --alloc -s hit,bytes" \
		"--slab --page --raw-ip" "--page --pprof $logdir/asan.pb.gz" \
		"--page -I 100 -s pid --pprof $logdir/asan-iv.pb.gz"; do
		# shellcheck disable=SC2086 # $opts is a list of options
		"$asan_perf" kmem stat $opts -i "$data" >"$log" 2>&1
		rc=$?
		if [ $rc -ne 0 ] || sanitizer_report "$log" >/dev/null; then
			fail "asan: perf kmem stat $opts (exit $rc)"
			sanitizer_report "$log" | head -n 10 | sed 's/^/    /'
		else
			pass "asan: perf kmem stat $opts"
		fi
	done
	# perf kmem diff: the recording against itself, and against the
	# bundled trace (other rows, other symbols).
	for opts in "--page --slab --caller" "--page --json -s hit -l 3"; do
		# shellcheck disable=SC2086 # $opts is a list of options
		"$asan_perf" kmem diff $opts "$data" "$data" >"$log" 2>&1
		rc=$?
		if [ "${opts#--page --slab}" = "$opts" ]; then
			# shellcheck disable=SC2086
			"$asan_perf" kmem diff $opts "$data" \
				"$top/data/sample.perf.data" >>"$log" 2>&1 ||
				rc=$?
		fi
		if [ $rc -ne 0 ] || sanitizer_report "$log" >/dev/null; then
			fail "asan: perf kmem diff $opts (exit $rc)"
			sanitizer_report "$log" | head -n 10 | sed 's/^/    /'
		else
			pass "asan: perf kmem diff $opts"
		fi
	done
	run_asan_bpf
}

# perf kmem stat -b's user side: the maps read, filled in and printed.
run_asan_bpf() {
	local log="$logdir/asan-bpf.log" opts rc

	if ! "$perf" kmem stat --page -b -a -o /dev/null -- true >"$log" 2>&1; then
		skip "asan: perf kmem stat -b: $(head -n 1 "$log")"
		return
	fi
	for opts in "--page --caller -v" "--page --slab --caller --json -I 100" \
		"--page --folded --live --sample-bytes 4096" "--page --exact-live -M 8"; do
		# shellcheck disable=SC2086 # $opts is a list of options
		"$asan_perf" kmem stat -b -a $opts -- \
			sh -c 'cat /usr/bin/ls >/dev/null; ls -R /usr/lib >/dev/null' \
			>"$log" 2>&1
		rc=$?
		if [ $rc -ne 0 ] || sanitizer_report "$log" >/dev/null; then
			fail "asan: perf kmem stat -b $opts (exit $rc)"
			sanitizer_report "$log" | head -n 10 | sed 's/^/    /'
		else
			pass "asan: perf kmem stat -b $opts"
		fi
	done
}

# Mutants of fresh recordings (scripts/mutate-perf-data.py; make fuzz-files
# for a long run) through the ASan+UBSan perf, in three modes.  A sanitizer
# report, a signal, a hang or a non-zero exit without a message fails;
# more than three lines on stderr are perf kmem's own noise, left to its
# builtin, and only listed.  Reproducers stay in build/fuzz-files-test.
# Two mutants at a time, one a CPU, as the fuzz targets run.
run_fuzz_files() {
	local log="$logdir/fuzz-files.log"

	if [ ! -x "$asan_perf" ]; then
		fail "fuzz-files: $asan_perf not built"
		return
	fi
	if [ "$(id -u)" != 0 ]; then
		skip "fuzz-files: recording needs root"
		return
	fi
	if scripts/mutate-perf-data.py -n "${FUZZ_FILES:-128}" --seed 1 -j 2 \
		--perf "$asan_perf" --record-perf "$perf" \
		--out "$top/build/fuzz-files-test" \
		--fail-on sanitizer,signal,hang,silent >"$log" 2>&1; then
		pass "fuzz-files: $(tail -n 1 "$log" | sed 's/ (.*//')"
	else
		fail "fuzz-files"
		show "$log" 30
	fi
}

# A stat run clean under valgrind memcheck: no invalid access, no leak.
run_valgrind() {
	local log="$logdir/valgrind.log"

	if ! command -v valgrind >/dev/null; then
		skip "valgrind: not installed"
		return
	fi
	if valgrind --error-exitcode=9 --leak-check=full \
		--errors-for-leak-kinds=definite "$top/build/perf/perf" kmem stat \
		--page --caller --alloc -i "$top/data/sample.perf.data" \
		--kallsyms "$top/data/sample.kallsyms" >/dev/null 2>"$log"; then
		pass "valgrind: perf kmem stat --page --caller --alloc (bundled sample)"
	else
		fail "valgrind: perf kmem stat --page --caller --alloc (bundled sample)"
		grep -E 'Invalid|uninitialised|definitely lost|ERROR SUMMARY' "$log" |
			head -n 10 | sed 's/^/    /'
	fi
	if valgrind --error-exitcode=9 --leak-check=full \
		--errors-for-leak-kinds=definite "$top/build/perf/perf" kmem diff \
		--page --caller --json "$top/data/sample.perf.data" \
		"$top/data/sample.perf.data" --kallsyms "$top/data/sample.kallsyms" \
		>/dev/null 2>"$log"; then
		pass "valgrind: perf kmem diff --page --caller --json (bundled sample, twice)"
	else
		fail "valgrind: perf kmem diff --page --caller --json (bundled sample, twice)"
		grep -E 'Invalid|uninitialised|definitely lost|ERROR SUMMARY' "$log" |
			head -n 10 | sed 's/^/    /'
	fi
}

# Random event streams through the analysis cores (make fuzz for a long
# run): no crash, no sanitizer report, every total adds up.
# One fuzz target for FUZZ_SECONDS; its log says how it ended.  The inputs
# in tests/fuzz/corpus/<target>/ (each one a failure found once) run first.
fuzz_one() {
	local -a dirs=("$top/build/fuzz/corpus-$1")

	mkdir -p "${dirs[0]}"
	[ -d "$top/tests/fuzz/corpus/$1" ] && dirs+=("$top/tests/fuzz/corpus/$1")
	"$top/build/fuzz/$1-fuzz" -max_total_time="${FUZZ_SECONDS:-12}" \
		-max_len=4096 "${dirs[@]}" >"$logdir/$1-fuzz.log" 2>&1
}

# Two at a time: each fuzzer runs on one CPU, and make test has a budget.
run_fuzz() {
	local -a names=(kmem-page kmem-slab kmem-kallsyms kmem-json kmem-stacks
			kmem-map kmem-frag kmem-pageblock kmem-diff kmem-pprof)
	local -A rc
	local i name

	for ((i = 0; i < ${#names[@]}; i += 2)); do
		for name in "${names[@]:i:2}"; do
			[ -x "$top/build/fuzz/$name-fuzz" ] || continue
			fuzz_one "$name" &
			rc[$name]=$!
		done
		for name in "${names[@]:i:2}"; do
			[ -n "${rc[$name]:-}" ] || continue
			wait "${rc[$name]}"
			rc[$name]=$?
		done
	done
	for name in "${names[@]}"; do
		if [ -z "${rc[$name]:-}" ]; then
			skip "fuzz: $top/build/fuzz/$name-fuzz not built (make fuzz builds it)"
		elif [ "${rc[$name]}" = 0 ]; then
			pass "fuzz: $name-fuzz $(grep -o 'Done [0-9]* runs' "$logdir/$name-fuzz.log")"
		else
			fail "fuzz: $name-fuzz"
			show "$logdir/$name-fuzz.log" 30
		fi
	done
}

# The results of a part that ran in a subshell, printed and counted here.
replay() {
	local line

	while IFS= read -r line; do
		case $line in
		"PASS "*) passed=$((passed + 1)) ;;
		"FAIL "*) failed=$((failed + 1)) ;;
		"SKIP "*) skipped=$((skipped + 1)) ;;
		esac
		printf '%s\n' "$line"
	done <"$1"
}

# Each part's time, so that make test's budget can be kept.
timed() {
	local start=$SECONDS

	"$@"
	echo "time: $1${4:+ $4}${5:+ $5}: $((SECONDS - start)) s"
}

timed run_c_suite "$perf" "" "" page
timed run_c_suite "$perf" "" "" slab
timed run_c_suite "$perf" "" "" input
timed run_c_suite "$perf" "" "" output
timed run_c_suite "$perf" "" "" frag
timed run_c_suite "$perf" "" "" diff
timed run_c_suite "$perf" "" "" stall
timed run_c_suite "$perf" "" "" pprof
timed run_c_suite "$perf" "" "" bpf
timed run_exclusive_shell_tests
# From here on nothing measures the machine: what runs on one CPU runs
# beside the rest, in a second lane whose results are counted when it
# ends.  The fuzz targets, which run for a time, run last and alone.
lane="$logdir/lane"
(
	timed run_shared_shell_tests
	timed run_series
	timed run_shellcheck
	timed run_valgrind
) >"$lane" 2>&1 &
lane_pid=$!
timed run_checkpatch
timed run_kerneldoc
if [ "$sanitize" = 1 ]; then
	# Leaks count too: perf kmem stat and the suite run leak free.
	export ASAN_OPTIONS=detect_leaks=1
	export UBSAN_OPTIONS=print_stacktrace=1
	timed run_c_suite "$asan_perf" "asan: " "-asan" page
	timed run_c_suite "$asan_perf" "asan: " "-asan" slab
	timed run_c_suite "$asan_perf" "asan: " "-asan" input
	timed run_c_suite "$asan_perf" "asan: " "-asan" output
	timed run_c_suite "$asan_perf" "asan: " "-asan" frag
	timed run_c_suite "$asan_perf" "asan: " "-asan" diff
	timed run_c_suite "$asan_perf" "asan: " "-asan" stall
	timed run_c_suite "$asan_perf" "asan: " "-asan" pprof
	timed run_c_suite "$asan_perf" "asan: " "-asan" bpf
	timed run_asan_stat
	unset ASAN_OPTIONS UBSAN_OPTIONS
	timed run_fuzz_files
fi
wait "$lane_pid"
replay "$lane"
timed run_fuzz

if [ "$skipped" -gt 0 ]; then
	echo "$passed passed, $failed failed, $skipped skipped"
else
	echo "$passed passed, $failed failed"
fi
[ "$failed" -eq 0 ]
