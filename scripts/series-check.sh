#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make series-check: apply the series of make series, one patch at a
# time with git am, to a fresh extract of the tools/perf it was made for;
# build perf after every patch (the series must bisect), run checkpatch
# --strict on every patch; after the last, build the man page, run the
# perf kmem C suites and shell tests through that perf's 'perf test', and
# check that the files are the ones make builds from (build/src).  Ends
# with one line:
#
#   N patches: N applied, N built, N checkpatch-clean; tests passed (...); tree as build/src
#
# The Makefile passes SRC_TAR, EXTRACT, PERF_FLAGS and SRC.  Logs stay in
# build/series-check/log.  Exit 0 when everything passed.
#
# series-check.sh --checkpatch-only [SERIES] runs checkpatch alone, with
# build/src's checkpatch.pl, on every patch (make test does, in seconds,
# what would otherwise surface only in the full check):
#
#   N patches: N checkpatch-clean
#
# checkpatch runs as on our C files in make test (--strict, ignoring
# CAMELCASE, LONG_LINE_STRING and MACRO_ARG_REUSE: scripts/run-tests.sh
# says why), with --no-signoff (who posts the series signs it off) and
# --no-tree (the extract is not a whole kernel tree), and two more:
# FILE_PATH_CHANGES, which asks of every new file whether MAINTAINERS
# needs updating (it does not: the perf entry covers tools/perf/), and
# SPDX_LICENSE_TAG in tests/shell/*.sh only, where line 2 is the test's
# description for perf test and the tag is on line 3, as in every
# upstream perf shell test; VOLATILE in util/bpf_skel/*.bpf.c only,
# whose 'const volatile' settings are libbpf's rodata.

set -u
set -o pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
checkpatch_only=0
if [ "${1:-}" = --checkpatch-only ]; then
	checkpatch_only=1
	shift
fi
series=${1:-$top/build/series}
work=${SERIES_CHECK_DIR:-$top/build/series-check}
: "${SRC_TAR:=/usr/src/linux-source-6.12.tar.xz}"
: "${SRC:=$top/build/src/linux-source-6.12}"
if [ "$checkpatch_only" = 0 ]; then
	: "${EXTRACT:?the Makefile gives the paths to extract}"
	: "${PERF_FLAGS:?the Makefile gives the build flags}"
fi
tree=$work/linux-source-6.12
out=$work/perf
prefix=$work/prefix
log=$work/log
ignore=CAMELCASE,LONG_LINE_STRING,MACRO_ARG_REUSE,FILE_PATH_CHANGES
start=$(date +%s)

die() {
	echo "series-check: $*" >&2
	exit 1
}

g() {
	git --git-dir="$work/git" --work-tree="$tree" "$@"
}

elapsed() {
	local s=$(($(date +%s) - $1))

	printf '%dm%02ds' $((s / 60)) $((s % 60))
}

mapfile -t patches < <(find "$series" -maxdepth 1 -name '[0-9][0-9][0-9][0-9]-*.patch' \
	! -name '0000-cover-letter.patch' | sort)
[ ${#patches[@]} -gt 0 ] || die "no patches in $series (make series writes them)"
[ -f "$SRC/.patched" ] || die "no $SRC (make overlay lays it out)"
nr=${#patches[@]}

# checkpatch's messages, less the SPDX tag of shell tests (see above).
checkpatch() {
	perl "$checkpatch_pl" --no-tree --strict --no-signoff \
		--show-types --ignore "$ignore" "$1" 2>&1 |
		awk '/^(ERROR|WARNING|CHECK):/ { if (msg != "") print msg; msg = $0; next }
		     msg != "" && /^#[0-9]+: FILE: / {
			if (msg ~ /:SPDX_LICENSE_TAG:/ && $3 ~ /^tools\/perf\/tests\/shell\/[^\/]*\.sh:[23]:$/)
				msg = ""
			else if (msg ~ /:VOLATILE:/ && $3 ~ /^tools\/perf\/util\/bpf_skel\/[^\/]*\.bpf\.c:/)
				msg = ""
			else
				msg = msg " (" $3 ")"
		     }
		     /^$/ { if (msg != "") print msg; msg = "" }
		     END { if (msg != "") print msg }'
}

checkpatch_pl=$tree/scripts/checkpatch.pl
if [ "$checkpatch_only" = 1 ]; then
	checkpatch_pl=$SRC/scripts/checkpatch.pl
	clean=0
	# Two patches at a time, each into its file, read back in order.
	msgdir=$(mktemp -d)
	trap 'rm -rf "$msgdir"' EXIT
	export -f checkpatch
	export checkpatch_pl ignore msgdir
	# shellcheck disable=SC2016 # expanded by xargs' bash
	for i in "${!patches[@]}"; do
		printf '%s\0%s\0' "$i" "${patches[i]}"
	done | xargs -0 -n 2 -P 2 bash -c 'checkpatch "$2" >"$msgdir/$1"' _
	for i in "${!patches[@]}"; do
		p=${patches[i]}
		# checkpatch.pl's status counts the messages filtered out.
		msgs=$(sed 's/^/    /' "$msgdir/$i")
		if [ -z "$msgs" ]; then
			clean=$((clean + 1))
		else
			printf '%s:\n%s\n' "$(basename "$p")" "$msgs"
		fi
	done
	echo "$nr patches: $clean checkpatch-clean"
	[ "$clean" = "$nr" ]
	exit
fi

rm -rf "$work"
mkdir -p "$log" "$out" "$prefix/share/man/man1"

# The pristine tree: what make extracts, in a git repository of its own
# (outside the tree: perf's version script would take a .git in the tree
# for a kernel checkout and ask its top Makefile for the version).
echo "  EXTRACT $(basename "$SRC_TAR") into ${work#"$top"/}"
set -f
# shellcheck disable=SC2206 # a list of paths, globs left to tar
paths=(${EXTRACT//\'/})
set +f
tar -I 'xz -T2' -xf "$SRC_TAR" -C "$work" --wildcards \
	"${paths[@]/#/linux-source-6.12/}" || die "cannot extract $SRC_TAR"
echo '#define PERF_VERSION "6.12.kmem"' >"$tree/PERF-VERSION-FILE"
export GIT_AUTHOR_NAME=series-check GIT_AUTHOR_EMAIL=series-check@localhost
export GIT_COMMITTER_NAME=series-check GIT_COMMITTER_EMAIL=series-check@localhost
if ! { g init -q && g config core.autocrlf false &&
	echo PERF-VERSION-FILE >"$work/git/info/exclude" &&
	g add -A -f && g commit -q -m "linux-source-6.12 as extracted"; }; then
	die "cannot make a git repository of the extract"
fi

applied=0
built=0
clean=0
failed_build=
failed_checkpatch=
i=0
for p in "${patches[@]}"; do
	i=$((i + 1))
	t=$(date +%s)
	subject=$(awk '/^Subject: / { s = $0; while ((getline l) > 0 && l ~ /^[ \t]/) s = s l
				       sub(/^Subject: \[PATCH [0-9]+\/[0-9]+\] /, "", s); print s; exit }' "$p")
	if ! (cd "$tree" && g am -q "$p") >"$log/am-$i.log" 2>&1; then
		printf '[%2d/%d] does not apply: %s\n' "$i" "$nr" "$subject"
		sed 's/^/    /' "$log/am-$i.log" | head -n 10
		(cd "$tree" && g am --abort) >/dev/null 2>&1
		break
	fi
	applied=$((applied + 1))
	checkpatch "$p" >"$log/checkpatch-$i.log"
	if [ -s "$log/checkpatch-$i.log" ]; then
		cp="checkpatch: $(wc -l <"$log/checkpatch-$i.log") problems"
		failed_checkpatch="$failed_checkpatch $i"
	else
		cp="checkpatch clean"
		clean=$((clean + 1))
	fi
	# shellcheck disable=SC2086 # PERF_FLAGS is a list of make variables
	if make -C "$tree/tools/perf" O="$out" $PERF_FLAGS prefix="$prefix" \
		>"$log/build-$i.log" 2>&1; then
		b=built
		built=$((built + 1))
	else
		b="BUILD FAILED"
		failed_build="$failed_build $i"
	fi
	printf '[%2d/%d] applied, %s, %s (%s): %s\n' "$i" "$nr" "$b" "$cp" \
		"$(elapsed "$t")" "$subject"
	if [ "$b" != built ]; then
		grep -E -B2 -A6 'error|Error' "$log/build-$i.log" | head -n 20 | sed 's/^/    /'
	fi
	sed 's/^/    /' "$log/checkpatch-$i.log" | head -n 10
done

tests="tests not run"
same="tree not compared"
ok=0
if [ "$applied" = "$nr" ] && [ -z "$failed_build" ]; then
	# The man page, with perf's own Documentation makefile, where perf
	# help kmem looks (the prefix perf was built with).
	echo "  DOC     perf-kmem.1"
	if ! make -s -C "$tree/tools/perf/Documentation" USE_ASCIIDOCTOR=1 \
		OUTPUT="$prefix/share/man/man1/" "$prefix/share/man/man1/perf-kmem.1" \
		>"$log/doc.log" 2>&1; then
		echo "    the man page does not build:"
		tail -n 10 "$log/doc.log" | sed 's/^/    /'
	fi

	# The files: those make lays out in build/src, our links followed
	# (diff follows them).
	echo "  DIFF    tools/perf after the last patch against ${SRC#"$top"/}"
	if diff -r -q --exclude='*.orig' "$SRC/tools/perf" "$tree/tools/perf" \
		>"$log/diff.log" 2>&1; then
		same="tree as build/src"
	else
		same="tree DIFFERS from build/src"
		head -n 10 "$log/diff.log" | sed 's/^/    /'
	fi

	# The tests, through perf test, as a perf developer runs them: from
	# tools/perf, so that it finds tests/shell, with this perf first in
	# PATH.  perf kmem's data/ stands in for the bundled trace, which is
	# not in a kernel tree.
	echo "  TEST    perf test kmem (log: ${log#"$top"/}/perf-test.log)"
	(cd "$tree/tools/perf" &&
		PATH="$out:$PATH" KMEM_DATA="$top/data" \
		"$out/perf" test -S -vv kmem) >"$log/perf-test.log" 2>&1
	# " 69.3: kmem page: free-only : Ok", " 87: perf kmem ... : Skip (...)"
	sed -n 's/^ *\([0-9][0-9.]*\): \(.*[^ ]\) *: \(Ok\|FAILED!\|Skip.*\)$/\1|\2|\3/p' \
		"$log/perf-test.log" >"$log/results"
	passed=$(grep -c '|Ok$' "$log/results")
	skipped=$(grep -c '|Skip' "$log/results")
	failed=$(grep -c '|FAILED!$' "$log/results")
	# Every shell test of ours must have run: perf test runs only the
	# executable ones.
	missing=0
	for t in "$tree"/tools/perf/tests/shell/kmem_*.sh; do
		desc=$(sed -n '2s/^# *//p' "$t" | sed 's/ *(exclusive)$//')
		if ! cut -d'|' -f2 "$log/results" | grep -qxF "$desc"; then
			echo "    $(basename "$t") did not run under perf test"
			missing=$((missing + 1))
		fi
	done
	grep -E '\|(FAILED!|Skip)' "$log/results" | sed 's/^/    /;s/|/ /g'
	if [ "$failed" = 0 ] && [ "$missing" = 0 ] && [ "$passed" -gt 0 ]; then
		tests="tests passed ($passed ok, $skipped skipped)"
		ok=1
	else
		tests="tests FAILED ($failed failed, $missing not run, $passed ok, $skipped skipped)"
	fi
fi

echo "  TIME    $(elapsed "$start")"
echo "$nr patches: $applied applied, $built built, $clean checkpatch-clean; $tests; $same"
[ "$ok" = 1 ] && [ "$applied" = "$nr" ] && [ "$built" = "$nr" ] &&
	[ "$clean" = "$nr" ] && [ "$same" = "tree as build/src" ]
