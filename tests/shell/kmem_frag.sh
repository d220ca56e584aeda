#!/bin/bash
# perf kmem fragmentation analysis on a real pressure recording (exclusive)
# SPDX-License-Identifier: GPL-2.0
#
# Record the page allocator under memory pressure that makes it fall back
# between migration types (scripts/kmem-frag-record.sh: anonymous memory
# with holes, then page tables and pipes, then huge page faults), count
# every number of the fragmentation analysis from 'perf script' output
# with scripts/kmem-frag-count.py, check that the recording has what the
# analysis is about (fallbacks of each class, failures), and replay the
# decoded events through util/kmem-frag.c (scripts/kmem-frag-replay.c):
# each number must equal the count.
#
# The count is in "key value" lines; perf kmem stat's FRAGMENTATION
# section is to be held against the same lines.
#
# Exit: 0 pass, 1 fail, 2 skip.

here=$(dirname "$(readlink -f "$0")")
top=$(readlink -f "${here}/../..")
scripts=${top}/scripts
tools=${top}/build/pristine/linux-source-6.12/tools
err=0

skip() {
	echo "Skip: $*"
	exit 2
}

fail() {
	echo "FAIL: $*"
	err=1
}

tmpdir=$(mktemp -d /tmp/kmem-frag.XXXXX)
trap 'rm -rf "${tmpdir}"' EXIT

[ -x "${scripts}/kmem-frag-record.sh" ] || skip "no ${scripts}/kmem-frag-record.sh"
command -v python3 >/dev/null || skip "no python3"
perf=$(command -v perf) || skip "no perf in PATH"

# At least 4 GiB stay available whatever the workload does.
PERF=$perf "${scripts}/kmem-frag-record.sh" "${tmpdir}" 4096 >"${tmpdir}/record.out" 2>&1
case $? in
0) ;;
2) skip "$(grep -m1 skip "${tmpdir}/record.out")" ;;
*) cat "${tmpdir}/record.out"; echo "FAIL: the recording"; exit 1 ;;
esac
sed 's/^/  /' "${tmpdir}/workload.txt" "${tmpdir}/record.txt"

pbo=$(cat "${tmpdir}/pageblock_order")
python3 "${scripts}/kmem-frag-count.py" --perf "$perf" --pageblock-order "$pbo" \
	-i "${tmpdir}/perf.data" --events "${tmpdir}/events" >"${tmpdir}/count" ||
	fail "kmem-frag-count.py"

value() {
	awk -v k="$1" '$1 == k { print $2; f = 1 } END { if (!f) print 0 }' \
		"${tmpdir}/count"
}

# What the recording must hold for the analysis to be tested at all.
extfrag=$(value frag.events.extfrag)
for c in claimed converted polluted fail; do
	echo "  $c $(value "frag.$c")"
done
[ "$extfrag" -ge 10000 ] ||
	fail "only $extfrag kmem:mm_page_alloc_extfrag events, want 10,000"
[ "$(value frag.claimed)" -gt 0 ] || fail "no claimed fallback recorded"
[ "$(value frag.polluted)" -gt 0 ] || fail "no polluted fallback recorded"
[ "$(value frag.pageblock_order_differs)" -eq 0 ] ||
	fail "events print another pageblock_order than /proc/pagetypeinfo"
[ "$(value frag.bad.extfrag)" -eq 0 ] ||
	fail "$(value frag.bad.extfrag) extfrag events that cannot be real"
[ "$(value frag.fail)" -gt 0 ] ||
	echo "  note: no failed allocation recorded"

# The engine against the count, on the same decoded events.
if [ ! -d "${tools}/include" ] || ! command -v "${CC:-cc}" >/dev/null; then
	echo "  note: no ${tools} to build the replay against (make first)"
else
	"${CC:-cc}" -O2 -D_GNU_SOURCE -I"${top}/util" -I"${tools}/include" \
		-I"${tools}/arch/x86/include" -o "${tmpdir}/replay" \
		"${scripts}/kmem-frag-replay.c" "${top}/util/kmem-frag.c" \
		"${top}/util/kmem-page.c" "${top}/util/kmem-rows.c" \
		"${top}/util/kmem-live.c" \
		"${tools}/lib/rbtree.c" "${tools}/lib/zalloc.c" ||
		fail "cannot build kmem-frag-replay.c"
	"${tmpdir}/replay" "$pbo" "$(getconf PAGESIZE)" <"${tmpdir}/events" |
		sort >"${tmpdir}/replayed"
	grep -v '^frag\.events\.' "${tmpdir}/count" | sort >"${tmpdir}/counted"
	if ! diff "${tmpdir}/counted" "${tmpdir}/replayed" >"${tmpdir}/diff"; then
		fail "util/kmem-frag.c and the count differ (< count, > engine):"
		head -n 20 "${tmpdir}/diff"
	else
		echo "  engine = count: $(wc -l <"${tmpdir}/counted") numbers"
	fi
fi

exit $err
