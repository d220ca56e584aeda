#!/bin/bash
# perf kmem fragmentation analysis on a real pressure recording (exclusive)
# SPDX-License-Identifier: GPL-2.0
#
# Record the page allocator under memory pressure that makes it fall back
# between migration types (lib/kmem_frag_record.sh: anonymous memory
# with holes, then page tables and pipes, then huge page faults), count
# every number of the fragmentation analysis from 'perf script' output
# with lib/kmem_frag_count.py, and check that the recording has what
# the analysis is about (fallbacks of each class, failures).  Every number
# perf kmem stat --page --json gives of the fragmentation analysis must
# equal the count.  --folded=fallbacks and --folded=fragmenting must
# give the count's stacks of the extfrag events, and add up to the
# fallbacks (the fragmenting ones) of the JSON; -s frag,pid the count's
# fallback rows by pid and Fragmenting of each allocation row (each
# fragmenting fallback belongs to the next allocation of its thread), and
# the pages that fell back into Movable pageblocks and stay, by pid and
# callsite, with their pageblocks.
# Where memory could not be fragmented, those two checks still run, on
# whatever fallbacks there were, at --pageblock-order 11 (every fallback
# is then converted or polluted: the buddy allocator's blocks are at
# most of order 10), before the test skips.

# shellcheck source-path=SCRIPTDIR source=lib/kmem_common.sh
. "$(dirname "$0")/lib/kmem_common.sh"
kmem_need_tracepoints mm_page_alloc_extfrag
kmem_need_commands python3 perf

here=$(dirname "$(readlink -f "$0")")
perf=$(command -v perf)
kmem_scratch frag

# At least 4 GiB stay available whatever the workload does.
record() {
	PERF=$perf bash "${here}/lib/kmem_frag_record.sh" "${dir}" 4096 \
		>"${dir}/record.out" 2>&1
	case $? in
	0) ;;
	2) kmem_skip "$(sed -n 's/^skip: //p' "${dir}/record.out" | head -n 1)" ;;
	*) cat "${dir}/record.out"; fail "the recording"; exit 1 ;;
	esac
	sed 's/^/  /' "${dir}/workload.txt" "${dir}/record.txt"
}

# Polluting fallbacks of the pressure phase (all of them with "all"),
# without counting the whole trace.
nr_fallbacks() {
	perf kmem stat --page --json -i "${dir}/perf.data" 2>/dev/null |
		python3 -c 'import json, sys
f = json.load(sys.stdin)["page"]["fragmentation"]
if sys.argv[1:]:
    print(f["fallbacks"]["count"] if "fallbacks" in f else 0)
else:
    print(f["classes"]["polluted"]["count"] if "classes" in f else 0)' "$@"
}

# How the kernel falls back depends on what memory looked like before:
# with too few polluting fallbacks, a skip rather than a test of nothing.
# One recording only: a second try cost a minute of make test's budget
# whether it fragmented memory or not.
record
pbo=$(cat "${dir}/pageblock_order")
forced=
if [ "$(nr_fallbacks)" -lt 10000 ]; then
	echo "  few polluting fallbacks ($(nr_fallbacks))"
	forced="--pageblock-order 11"
	pbo=11
	[ "$(nr_fallbacks all)" -gt 0 ] ||
		kmem_skip "memory could not be fragmented here: no fallback at all"
fi

python3 "${here}/lib/kmem_frag_count.py" --perf "$perf" --pageblock-order "$pbo" \
	-i "${dir}/perf.data" --events "${dir}/events" --folded "${dir}/want" \
	--tasks "${dir}/tasks" >"${dir}/count" ||
	fail "kmem_frag_count.py"

value() {
	awk -v k="$1" '$1 == k { print $2; f = 1 } END { if (!f) print 0 }' \
		"${dir}/count"
}

# The flame graphs of who falls back: each chain's count, as perf script's
# callchains of the extfrag events give it, and the sum of the lines.
for kind in fallbacks fragmenting; do
	# shellcheck disable=SC2086 # $forced is an option and its value, or none
	if ! perf kmem stat --page --folded=$kind $forced -i "${dir}/perf.data" \
		>"${dir}/folded.$kind" 2>"${dir}/err"; then
		fail "--folded=$kind: $(tail -n 1 "${dir}/err")"
		continue
	fi
	sort "${dir}/folded.$kind" >"${dir}/got.$kind"
	if ! cmp -s "${dir}/got.$kind" "${dir}/want.$kind"; then
		diff "${dir}/want.$kind" "${dir}/got.$kind" | head -n 6
		fail "--folded=$kind: $(diff "${dir}/want.$kind" "${dir}/got.$kind" |
			grep -c '^[<>]') lines differ from perf script's stacks"
		continue
	fi
	case $kind in
	fallbacks) total=$(value frag.fallbacks) ;;
	*) total=$(($(value frag.converted) + $(value frag.polluted))) ;;
	esac
	sum=$(awk '{ s += $NF } END { print s + 0 }' "${dir}/got.$kind")
	# A chain of allocator frames only (none in practice) has no line.
	if [ "$sum" -gt "$total" ] || [ "$sum" -lt $((total * 99 / 100)) ]; then
		fail "--folded=$kind: the lines add up to $sum, the fallbacks to $total"
	else
		echo "  --folded=$kind: $(wc -l <"${dir}/got.$kind") stacks," \
			"$sum of $total fallbacks, as perf script's"
	fi
done
[ "$(awk '{ s += $NF } END { print s + 0 }' "${dir}/want.fragmenting")" -gt 0 ] ||
	fail "no fragmenting fallback with a callchain: --folded=fragmenting tested on nothing"

# Which task fragments: the fallback table by pid and the Fragmenting of
# each allocation row, against the count's replay of perf script.
# shellcheck disable=SC2086 # $forced is an option and its value, or none
if ! perf kmem stat --page --caller -s frag,pid -l 1000000 $forced --json \
	-i "${dir}/perf.data" >"${dir}/pid.json" 2>"${dir}/err"; then
	fail "-s frag,pid: $(tail -n 1 "${dir}/err")"
else
	python3 - "${dir}/tasks" "${dir}/pid.json" <<'PYEOF' || err=1
import json
import sys

want = {}
for line in open(sys.argv[1]):
    k, v = line.rsplit(' ', 1)
    want[k] = int(v)
doc = json.load(open(sys.argv[2]))['page']
got = {}


def name(m):
    return m['name'] if m['name'] else 'type %d' % m['value']


for r in doc['fragmentation']['callers']['rows']:
    row = 'task.%d.%s.%s.%s' % (r['pid'], r['callsite']['name'],
                                name(r['requested']), name(r['fallback']))
    for k in ('claimed', 'converted', 'polluted'):
        if r.get(k):
            got[row + '.' + k] = r[k]
    got[row + '.fallbacks'] = r['fallbacks']['count']
    got[row + '.bytes'] = r['fallbacks']['bytes']
# The Fragmenting of the rows; their hits are kmem_tasks.sh's to check
# (perf script names the process of a few samples otherwise).
want = {k: v for k, v in want.items() if not k.endswith('.hits')}
for r in doc['callers']['rows']:
    row = 'alloc.%d.%s.%d.%s' % (r['pid'], r['callsite']['name'], r['order'],
                                 name(r['migration_type']))
    if r.get('fragmenting'):
        got[row + '.fragmenting'] = \
            got.get(row + '.fragmenting', 0) + r['fragmenting']
# The pages that fell back and stay, by pid and callsite, and in all.
pinned = doc['fragmentation'].get('pinned') or {}
for r in pinned.get('callers', {}).get('rows', []):
    row = 'pinned.%d.%s' % (r['pid'], r['callsite']['name'])
    for k, v in (('pages', r['pages']['count']), ('bytes', r['pages']['bytes']),
                 ('pageblocks', r['pageblocks'])):
        got[row + '.' + k] = got.get(row + '.' + k, 0) + v
if pinned:
    for k, v in (('pages', pinned['pages']['count']),
                 ('bytes', pinned['pages']['bytes']),
                 ('pageblocks', pinned['pageblocks'])):
        if v:
            got['pinned.all.' + k] = v
bad = 0
if not pinned:
    bad += 1
    print('FAIL: -s frag,pid: no page.fragmentation.pinned in the JSON')
frag = sum(v for k, v in got.items() if k.endswith('.fragmenting'))
for part, label in (('task.', 'fallback rows by pid'),
                    ('alloc.', 'allocation rows by pid'),
                    ('pinned.', 'pages fallen back that stay, by pid')):
    w = {k: v for k, v in want.items() if k.startswith(part)}
    g = {k: v for k, v in got.items() if k.startswith(part)}
    diff = sorted(k for k in set(w) | set(g) if w.get(k) != g.get(k))
    if diff:
        bad += 1
        print('FAIL: -s frag,pid: %s: %d of %d numbers differ from perf '
              'script, e.g. (key, ours, count) %s' %
              (label, len(diff), len(w),
               [(k, g.get(k), w.get(k)) for k in diff[:3]]))
    else:
        print('  -s frag,pid: %s: %d numbers as perf script gives them' %
              (label, len(w)))
stay = want.get('pinned.all.pages', 0)
print('  -s frag,pid: %d pages fell back and stay, in %d pageblocks%s' %
      (stay, want.get('pinned.all.pageblocks', 0),
       '' if stay else ': the pinning rows tested on nothing'))
total = doc['fragmentation']['fragmenting']['count']
if not 0 < frag <= total:
    bad += 1
    print('FAIL: -s frag,pid: the Fragmenting column adds up to %d, '
          'the summary to %d' % (frag, total))
else:
    print('  -s frag,pid: the Fragmenting column adds up to %d of the '
          '%d fragmenting fallbacks' % (frag, total))
sys.exit(1 if bad else 0)
PYEOF
fi

if [ -n "$forced" ]; then
	[ "$err" = 0 ] || kmem_result "kmem frag test"
	kmem_skip "memory could not be fragmented here: $(nr_fallbacks) polluting" \
		"fallbacks (--folded and -s frag,pid passed at --pageblock-order 11)"
fi

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

# perf kmem stat's own numbers, through --json, against the count: every
# number it gives must be the count's (a number the count does not list
# is 0 there).
if ! perf kmem stat --page --caller -l 1000000 --json \
	-i "${dir}/perf.data" >"${dir}/stat.json" 2>"${dir}/stat.err"; then
	cat "${dir}/stat.err"
	fail "perf kmem stat --page --json"
else
	python3 "${here}/lib/kmem_json_keys.py" frag "${dir}/stat.json" \
		>"${dir}/stat.keys"
	awk 'NR == FNR { count[$1] = $2; next }
	     { want = ($1 in count) ? count[$1] : 0
	       n++
	       if ($2 != want) {
			printf "  %s: perf kmem %s, count %s\n", $1, $2, want
			bad++
	       } }
	     END { printf "  perf kmem = count: %d numbers, %d differ\n", n, bad
		   exit bad > 0 }' "${dir}/count" "${dir}/stat.keys" ||
		fail "perf kmem stat --page and the count differ"
	[ "$(wc -l <"${dir}/stat.keys")" -ge 40 ] ||
		fail "only $(wc -l <"${dir}/stat.keys") numbers in the JSON"
fi

kmem_result "kmem frag test"
