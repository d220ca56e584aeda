#!/bin/bash
# perf kmem's man page is the one perf shows, and says what the code does (exclusive)
# SPDX-License-Identifier: GPL-2.0
#
# perf help kmem and perf kmem --help must show the man page built from
# Documentation/perf-kmem.txt, not one the system has of another perf;
# the sort keys it lists must be the ones perf kmem takes, and every
# option perf kmem -h lists must be in it.

set -u
err=0
dir=$(mktemp -d /tmp/kmem-docs.XXXXXX)
trap 'rm -rf "$dir"' EXIT
src=$(cd "$(dirname "$0")/../.." && pwd)/Documentation/perf-kmem.txt

if ! command -v man >/dev/null; then
	echo "skip: no man command"
	exit 2
fi

# A line only our page has.
for how in "help kmem" "kmem --help"; do
	# shellcheck disable=SC2086 # $how is two words
	MANPAGER=cat MANWIDTH=100 perf $how 2>&1 | col -b >"$dir/page"
	if ! grep -q "kmem.queue-size" "$dir/page"; then
		echo "FAIL: perf $how does not show our man page:"
		head -n 12 "$dir/page" | sed 's/^/    /'
		err=1
	fi
done

# The keys of -s, as perf kmem lists them for an unknown key, against
# the man page's -s entry.
keys_of() {
	perf kmem stat "--$1" -s no-such-key -i /dev/null 2>&1 |
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
		echo "FAIL: --${what%:*} sort keys: perf kmem takes" \
		     "'$(paste -sd' ' "$dir/keys")', the man page lists" \
		     "'$(paste -sd' ' "$dir/doc")'"
		err=1
	fi
done

# Every long option of perf kmem -h has an entry in the man page.
perf kmem -h 2>&1 | grep -o -- '--[a-z][a-z-]*' | sort -u >"$dir/options"
while read -r opt; do
	if ! grep -q -- "^$opt\b" "$src"; then
		echo "FAIL: option $opt is not in the man page"
		err=1
	fi
done <"$dir/options"
[ -s "$dir/options" ] || { echo "FAIL: perf kmem -h lists no option"; err=1; }

[ $err -eq 0 ] && echo "kmem docs: man page shown, $(wc -l <"$dir/options") options and every sort key documented"
exit $err
