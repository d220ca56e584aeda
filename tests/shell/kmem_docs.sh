#!/bin/bash
# perf kmem's man page is the one perf shows, and says what the code does (exclusive)
# SPDX-License-Identifier: GPL-2.0
#
# perf help kmem and perf kmem --help must show the man page built from
# Documentation/perf-kmem.txt, not one the system has of another perf;
# the sort keys it lists must be the ones perf kmem takes, and every
# option perf kmem -h lists must be in it; so must the sort keys and the
# --folded weights of README.md's Options table.  And the Layout table of
# docs/DEVELOPMENT.md must cover every file of the sources and name none
# that is not there.

set -u

# shellcheck source-path=SCRIPTDIR source=lib/kmem_common.sh
. "$(dirname "$0")/lib/kmem_common.sh"
kmem_need_commands man

kmem_scratch docs
src=$(cd "$(dirname "$0")/../.." && pwd)/Documentation/perf-kmem.txt

# A line only our page has.
for how in "help kmem" "kmem --help"; do
	# shellcheck disable=SC2086 # $how is two words
	MANPAGER=cat MANWIDTH=100 perf $how 2>&1 | col -b >"$dir/page"
	if ! grep -q "kmem.queue-size" "$dir/page"; then
		fail "perf $how does not show our man page:"
		head -n 12 "$dir/page" | sed 's/^/    /'
	fi
done

# The keys of -s, as perf kmem lists them for an unknown key, against
# the man page's -s entry.  perf kmem checks -s once its input is open:
# give it the smallest there is, the 16-byte header of a perf record -o -
# stream.
keys_of() {
	printf 'PERFILE2\020\0\0\0\0\0\0\0' |
		perf kmem stat "--$1" -s no-such-key -i - 2>&1 |
		sed -n "s/.*unknown sort key 'no-such-key' for --$1: use //p" |
		tr -d ' ' | tr ',' '\n' | sort
}

# "Page keys: a, b (or c), d." in the -s entry: a, b, d.
doc_keys() {
	awk '/^--sort=/ { on = 1; next } on && /^$/ { exit } on' "$src" |
		tr -s ' \t\n' ' ' | sed -n "s/.*$1 keys: \([^.]*\)\..*/\1/p" |
		sed 's/([^)]*)//g' | tr -d ' ' | tr ',' '\n' | sort
}

for what in page:Page slab:Slab; do
	keys_of "${what%:*}" >"$dir/keys"
	doc_keys "${what#*:}" >"$dir/doc"
	if [ ! -s "$dir/keys" ] || ! cmp -s "$dir/keys" "$dir/doc"; then
		fail "--${what%:*} sort keys: perf kmem takes" \
		     "'$(paste -sd' ' "$dir/keys")', the man page lists" \
		     "'$(paste -sd' ' "$dir/doc")'"
	fi
done

# The Options table of README.md: its sort keys (the sorting row) and
# --folded weights (the output row) are the ones perf kmem takes.
readme=$(cd "$(dirname "$0")/../.." && pwd)/README.md
if [ -f "$readme" ]; then
	for what in page slab; do
		keys_of $what >"$dir/keys"
		grep '^| sorting |' "$readme" |
			sed -n "s/.*$what keys \`\([^\`]*\)\`.*/\1/p" |
			sed 's/([^)]*)//g' | tr -d ' ' | tr ',' '\n' | sort >"$dir/doc"
		cmp -s "$dir/keys" "$dir/doc" ||
			fail "README.md's $what sort keys: perf kmem takes" \
			     "'$(paste -sd' ' "$dir/keys")', its Options table lists" \
			     "'$(paste -sd' ' "$dir/doc")'"
	done
	weights=$(perf kmem -h 2>&1 | sed -n 's/.*--folded\[=<\([^>]*\)>\].*/\1/p')
	grep '^| output |' "$readme" | grep -qF -- "\`--folded[=${weights//|/\\|}]\`" ||
		fail "README.md's Options table does not give --folded[=$weights]"
fi

# Every long option of perf kmem -h has an entry in the man page.
perf kmem -h 2>&1 | grep -o -- '--[a-z][a-z-]*' | sort -u >"$dir/options"
while read -r opt; do
	if ! grep -q -- "^$opt\b" "$src"; then
		fail "option $opt is not in the man page"
	fi
done <"$dir/options"
[ -s "$dir/options" ] || fail "perf kmem -h lists no option"

# perf kmem record -h: our options first (perf record's own follow),
# each with an entry in the man page's OPTIONS.
perf kmem record -h >"$dir/record-help" 2>&1
grep -q "All other options are perf record's" "$dir/record-help" ||
	: >"$dir/record-help"
sed "/All other options are perf record's/q" "$dir/record-help" |
	grep -o -- '^ *--[a-z][a-z-]*' | tr -d ' ' | sort -u >"$dir/record"
[ "$(paste -sd' ' "$dir/record")" = "--include-perf --page --slab" ] || {
	echo "FAIL: perf kmem record -h lists '$(paste -sd' ' "$dir/record")'" \
	     "of its own, not '--include-perf --page --slab'"
	err=1
}
awk '/^OPTIONS$/ { on = 1 } on' "$src" >"$dir/options-section"
while read -r opt; do
	grep -q -- "^$opt::" "$dir/options-section" || {
		echo "FAIL: perf kmem record's $opt is not in the man page's OPTIONS"
		err=1
	}
done <"$dir/record"

# The man page says that perf's own writing of the trace is left out, and
# how to keep it: it was the second row of a fragmentation trace.
own="own process are left out.*With --include-perf the trace holds perf's"
own="$own own allocations too.*'perf kmem stat --page --comm perf'"
awk '/^DESCRIPTION$/ { on = 1 } /^SLAB ALLOCATOR ANALYSIS$/ { exit } on' "$src" |
	tr -s ' \n' ' ' | grep -q "$own" || {
	echo "FAIL: the man page's DESCRIPTION does not say that perf's own" \
	     "allocations are left out, and how to keep them"
	err=1
}

# The SYNOPSIS has a line for each subcommand perf kmem -h names.
subs=$(perf kmem -h 2>&1 | sed -n 's/.*Usage: perf kmem \[<options>\] {\(.*\)}.*/\1/p')
[ -n "$subs" ] || { echo "FAIL: perf kmem -h names no subcommands"; err=1; }
awk '/^SYNOPSIS$/ { on = 1; next } on && /^[A-Z]+$/ { exit } on' "$src" >"$dir/synopsis"
for sub in ${subs//|/ }; do
	grep -q "^'perf kmem' \[<options>\] $sub\b" "$dir/synopsis" || {
		echo "FAIL: the man page's SYNOPSIS has no line for perf kmem $sub"
		err=1
	}
done

# The summary's "Pages ..." lines count events of any order, not pages:
# each one's definition says so.
for label in "Pages allocated+freed" "Pages freed-only"; do
	awk -v l="  $label::" '$0 == l { on = 1; next } on && /::$/ { exit } on' "$src" |
		grep -q "of any order" || {
		echo "FAIL: the man page's '$label' does not say it counts allocations of any order"
		err=1
	}
done

# The Layout table of docs/DEVELOPMENT.md against the files.  Its rows
# start with one or more `names`: a path, a pair a.[ch] (a.c and a.h,
# both there) or a glob (at least one file).  Every file of the
# directories below, and builtin-kmem.c and Makefile, must match a name.
# The real tree is the one this script lies in, also when perf test runs
# it through the link in perf's own tests/shell.
top=$(cd "$(dirname "$(readlink -f "$0")")/../.." && pwd)
layout=$top/docs/DEVELOPMENT.md
covered_dirs="util tests scripts Documentation patches data docs series"

# The names of the table, one a line: "LINE NAME".
layout_names() {
	awk '/^## / { on = ($0 == "## Layout"); next }
	     on && /^\|/ {
		split($0, cell, "|")
		first = cell[2]
		while (match(first, /`[^`]+`/)) {
			print NR, substr(first, RSTART + 1, RLENGTH - 2)
			first = substr(first, RSTART + RLENGTH)
		}
	     }' "$layout"
}

# The files of the tree: git's (tracked and new ones it does not
# ignore) in a checkout, else what find sees.
source_files() {
	local f

	if [ "$(git -C "$top" rev-parse --show-toplevel 2>/dev/null)" = "$top" ]; then
		# shellcheck disable=SC2086 # a list of directories
		git -C "$top" ls-files --cached --others --exclude-standard -- \
			$covered_dirs builtin-kmem.c Makefile
	else
		# shellcheck disable=SC2086 # a list of directories
		(cd "$top" && find $covered_dirs builtin-kmem.c Makefile -type f)
	fi | sort -u | while IFS= read -r f; do
		[ -f "$top/$f" ] && echo "$f"
	done
}

check_layout() {
	local line name pat f n=0 files=0 missing where=docs/DEVELOPMENT.md

	layout_names >"$dir/names"
	if [ ! -s "$dir/names" ]; then
		fail "docs/DEVELOPMENT.md has no Layout table"
		return
	fi
	# Every name is there.
	while read -r line name; do
		case $name in
		*'[ch]')
			for f in "${name%'[ch]'}c" "${name%'[ch]'}h"; do
				[ -f "$top/$f" ] || {
					fail "$where:$line: the Layout table names" \
					     "$name, but there is no $f"
				}
			done ;;
		*[*?[]*)
			[ -n "$(cd "$top" && compgen -G "$name")" ] || {
				fail "$where:$line: the Layout table names" \
				     "$name, which matches no file"
			} ;;
		*)
			[ -e "$top/$name" ] || {
				fail "$where:$line: the Layout table names" \
				     "$name, which does not exist"
			} ;;
		esac
		n=$((n + 1))
	done <"$dir/names"
	# Every file is in a row.
	source_files >"$dir/files"
	grep -qx builtin-kmem.c "$dir/files" || {
		fail "cannot list the files of $top"
		return
	}
	while IFS= read -r f; do
		missing=1
		while read -r line pat; do
			# shellcheck disable=SC2053 # $pat is a pattern
			if [[ $f == $pat ]]; then
				missing=
				break
			fi
		done <"$dir/names"
		if [ -n "$missing" ]; then
			fail "$f is not in the Layout table of $where"
		fi
		files=$((files + 1))
	done <"$dir/files"
	echo "layout: $files files, $n names in the table"
}

if [ -f "$layout" ]; then
	check_layout
elif [ -f "$top/builtin-kmem.c" ] && [ -d "$top/patches" ]; then
	fail "no docs/DEVELOPMENT.md in $top"
else
	echo "layout: not in the perf kmem sources ($top), not checked"
fi

# perf test runs the shell tests it finds executable, and only those.
for t in "$(dirname "$0")"/kmem_*.sh; do
	if [ ! -x "$t" ]; then
		fail "$(basename "$t") is not executable: perf test would not run it"
	fi
done

[ $err -eq 0 ] && echo "kmem docs: man page shown, $(wc -l <"$dir/options") options" \
	"and every sort key documented, Layout table complete"
kmem_result "kmem docs test"
