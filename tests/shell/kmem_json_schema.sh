#!/bin/bash
# perf kmem stat --json: the shipped JSON Schema takes what it should, refuses drift
# SPDX-License-Identifier: GPL-2.0
#
# Documentation/perf-kmem.schema.json is checked against the JSON Schema
# 2020-12 metaschema, the example document must validate, and the bad
# example and each of a set of drifts made from the good one (a number as
# a string, a fraction, a missing or unknown key, a wrong version, ...)
# must be refused.  And what perf kmem stat --json writes validates.

set -u

# shellcheck source-path=SCRIPTDIR source=lib/kmem_common.sh
. "$(dirname "$0")/lib/kmem_common.sh"

here=$(cd "$(dirname "$0")" && pwd)
schema=$(cd "$here/../.." && pwd)/Documentation/perf-kmem.schema.json
check="$here/lib/kmem_json_schema.py"
good="$here/lib/kmem_example.json"
bad="$here/lib/kmem_example_bad.json"

python3 -c 'import jsonschema' 2>/dev/null ||
	kmem_skip "python3-jsonschema is not installed"
[ -f "$schema" ] || kmem_skip "no $schema"

kmem_scratch json-schema

ok() {
	echo "ok   $*"
}

if python3 "$check" "$schema" "$good" 2>"$dir/err"; then
	ok "the example validates"
else
	fail "the example does not validate:"
	sed 's/^/    /' "$dir/err" | head -n 10
fi

# The bad example: refused, for each of its three flaws.
if python3 "$check" "$schema" "$bad" 2>"$dir/err"; then
	fail "the bad example validates"
else
	for flaw in "count: '1,833' is not of type 'integer'" \
		"number 32.895 is not an integer" "'frag' was unexpected" \
		"/page/cross_node: "; do
		if grep -qF -- "$flaw" "$dir/err"; then
			ok "bad example refused: $flaw"
		else
			fail "bad example: no '$flaw' in:"
			sed 's/^/    /' "$dir/err" | head -n 10
		fi
	done
fi

# edit PYTHON: the good example changed by PYTHON (on doc, or on text for
# changes below the level of JSON values), in $dir/edit.json.
edit() {
	python3 - "$good" "$dir/edit.json" "$1" <<'EOF'
import json, sys
text = open(sys.argv[1]).read()
doc = json.loads(text)
exec(sys.argv[3])
if 'text' in sys.argv[3]:
    open(sys.argv[2], 'w').write(text)
else:
    open(sys.argv[2], 'w').write(json.dumps(doc, indent=2) + '\n')
EOF
}

first_error() {
	head -n 1 "$dir/err" | sed "s|^$dir/edit.json: ||" | cut -c 1-90
}

# drift NAME PYTHON: refused.
drift() {
	edit "$2"
	if python3 "$check" "$schema" "$dir/edit.json" 2>"$dir/err"; then
		fail "drift accepted: $1"
	else
		ok "drift refused: $1: $(first_error)"
	fi
}

# variant NAME PYTHON: accepted, as another trace or other options would
# make it.
variant() {
	edit "$2"
	if python3 "$check" "$schema" "$dir/edit.json" 2>"$dir/err"; then
		ok "variant accepted: $1"
	else
		fail "variant refused: $1: $(first_error)"
	fi
}

variant "two nodes" '
doc["page"]["cross_node"] = {
    "status": "analysed", "nr_nodes": 2, "nodes": [0, 1],
    "allocations_remote": {"count": 3, "bytes": 12288},
    "frees_remote": None,
    "freed_on_other_node": {"count": 2, "bytes": 8192},
    "matrix": [[4096, 8192], [0, 0]]}
doc["page"]["callers"]["rows"][0]["freed_remote"] = 2'
variant "--alloc rows of pfns and of struct pages" '
row = dict(doc["page"]["callers"]["rows"][0])
doc["page"]["allocs"] = {"sort": [], "nr_rows": 2,
                         "rows": [dict(row, pfn=5), dict(row, page="0xffffea0000001400")]}
del doc["page"]["allocs"]["rows"][1]["callsite"]'
variant "fragmentation with classes" '
cnt = {"count": 1, "bytes": 4096}
mt0 = {"value": 0, "name": "Unmovable"}
mt1 = {"value": 1, "name": "Movable"}
cell = {"requested": mt0, "fallback": mt1, "fallbacks": cnt,
        "claimed": 0, "converted": 0, "polluted": 1}
doc["page"]["fragmentation"] = {
    "status": "analysed", "pageblock_order": 9, "fallbacks": cnt,
    "classes": {"claimed": {"count": 0, "bytes": 0},
                "converted": {"count": 0, "bytes": 0}, "polluted": cnt},
    "severe": cnt, "matrix": [cell],
    "callers": {"sort": ["frag"], "nr_rows": 1,
                "rows": [dict(cell, callsite={"name": None, "address": "0x1"})]},
    "mixed_pageblocks": {"touched": 3, "mixed": 1,
                         "unmovable_or_reclaimable": 1, "fallback_only": 0,
                         "by_column": [1, 0, 3, 0],
                         "bytes_by_column": [4096, 0, 12288, 0]},
    "pinned": {"pages": cnt, "pageblocks": 1,
               "callers": {"sort": ["blocks", "bytes"], "nr_rows": 1,
                           "rows": [{"pageblocks": 1, "pages": cnt, "pid": 7,
                                     "callsite": {"name": "f",
                                                  "address": "0x1"}}]}},
    "failures": {"sort": [], "nr_rows": 0, "rows": []}}'
variant "fragmentation with classes, pages fallen back not known (-b)" '
doc["page"]["fragmentation"] = {
    "status": "analysed", "pageblock_order": 9,
    "fallbacks": {"count": 0, "bytes": 0}, "severe": {"count": 0, "bytes": 0},
    "classes": {"claimed": {"count": 0, "bytes": 0},
                "converted": {"count": 0, "bytes": 0},
                "polluted": {"count": 0, "bytes": 0}},
    "matrix": [], "mixed_pageblocks": {"touched": 0, "mixed": 0,
    "unmovable_or_reclaimable": 0, "fallback_only": 0,
    "by_column": [0, 0, 0, 0], "bytes_by_column": [0, 0, 0, 0]},
    "pinned": None}'
variant "fragmentation without pageblock_order" '
doc["page"]["fragmentation"] = {
    "status": "analysed", "pageblock_order": None,
    "fallbacks": {"count": 0, "bytes": 0}, "severe": {"count": 0, "bytes": 0},
    "matrix": [], "mixed_pageblocks": {"touched": 0, "mixed": 0,
    "unmovable_or_reclaimable": 0, "fallback_only": 0,
    "by_column": [0, 0, 0, 0], "bytes_by_column": [0, 0, 0, 0]}}'
variant "slab only, allocs by pointer" '
del doc["page"]
row = dict(doc["slab"]["callers"]["rows"][0], ptr="0xffff888104deaa00")
doc["slab"]["allocs"] = {"sort": ["bytes"], "nr_rows": 1, "rows": [row]}
doc["slab"]["summary"]["cross_node"] = None'
variant "perf_data of an old header" '
for k in ("hostname", "arch", "nr_cpus"):
    del doc["perf_data"][k]
doc["perf_data"]["os_release"] = None'

drift "no version" 'del doc["schema"]'
drift "version 2" 'doc["schema"] = 2'
drift "unknown top-level key" 'doc["pages"] = doc["page"]'
drift "no perf_data" 'del doc["perf_data"]'
drift "negative count" 'doc["page"]["summary"]["failures"]["count"] = -1'
drift "1.0 for 1" 'text = text.replace("\"nr_cpus\": 2", "\"nr_cpus\": 2.0")'
drift "NaN" 'text = text.replace("\"nr_cpus\": 2", "\"nr_cpus\": NaN")'
drift "duplicate key" 'text = text.replace("\"nr_cpus\": 2", "\"nr_cpus\": 2, \"nr_cpus\": 3")'
drift "address as a number" \
	'doc["page"]["callers"]["rows"][0]["callsite"]["address"] = 18446744071585000101'
drift "address without 0x" \
	'doc["page"]["callers"]["rows"][0]["callsite"]["address"] = "ffffffff8167c0a5"'
drift "gfp names as one string" \
	'doc["page"]["callers"]["rows"][0]["gfp"]["names"] = "GFP_KERNEL|__GFP_ZERO"'
drift "summary key missing" 'del doc["page"]["summary"]["total_frees"]'
drift "three grid columns" 'doc["page"]["grid"]["columns"].pop()'
drift "grid columns out of order" \
	'c = doc["page"]["grid"]["columns"]; c[1], c[2] = c[2], c[1]'
drift "grid row of 5 counts" 'doc["page"]["grid"]["rows"][0]["counts"].append(0)'
drift "grid of 10 orders" 'doc["page"]["grid"]["rows"].pop()'
drift "order 32" 'doc["page"]["callers"]["rows"][0]["order"] = 32'
drift "row with pfn and page" \
	'doc["page"]["callers"]["rows"][0].update(pfn=1, page="0x1")'
drift "cross_node analysed without its counts" \
	'doc["page"]["cross_node"]["status"] = "analysed"'
drift "fragmentation analysed without its counts" \
	'doc["page"]["fragmentation"]["status"] = "analysed"'
drift "slab row of no callsite or cache" \
	'del doc["slab"]["callers"]["rows"][0]["callsite"]'
drift "slab cross_node missing" 'del doc["slab"]["summary"]["cross_node"]'
drift "classes without pageblock_order" '
doc["page"]["fragmentation"] = {
    "status": "analysed", "pageblock_order": None,
    "fallbacks": {"count": 0, "bytes": 0}, "severe": {"count": 0, "bytes": 0},
    "classes": {"claimed": {"count": 0, "bytes": 0},
                "converted": {"count": 0, "bytes": 0},
                "polluted": {"count": 0, "bytes": 0}},
    "matrix": [], "mixed_pageblocks": {"touched": 0, "mixed": 0,
    "unmovable_or_reclaimable": 0, "fallback_only": 0,
    "by_column": [0, 0, 0, 0], "bytes_by_column": [0, 0, 0, 0]}}'
drift "classes without the pages fallen back" '
doc["page"]["fragmentation"] = {
    "status": "analysed", "pageblock_order": 9,
    "fallbacks": {"count": 0, "bytes": 0}, "severe": {"count": 0, "bytes": 0},
    "classes": {"claimed": {"count": 0, "bytes": 0},
                "converted": {"count": 0, "bytes": 0},
                "polluted": {"count": 0, "bytes": 0}},
    "matrix": [], "mixed_pageblocks": {"touched": 0, "mixed": 0,
    "unmovable_or_reclaimable": 0, "fallback_only": 0,
    "by_column": [0, 0, 0, 0], "bytes_by_column": [0, 0, 0, 0]}}'
drift "fallback cell of one class only" '
doc["page"]["fragmentation"] = {
    "status": "analysed", "pageblock_order": None,
    "fallbacks": {"count": 0, "bytes": 0}, "severe": {"count": 0, "bytes": 0},
    "matrix": [{"requested": {"value": 0, "name": "Unmovable"},
                "fallback": {"value": 1, "name": "Movable"},
                "fallbacks": {"count": 1, "bytes": 1}, "claimed": 1}],
    "mixed_pageblocks": {"touched": 0, "mixed": 0,
    "unmovable_or_reclaimable": 0, "fallback_only": 0,
    "by_column": [0, 0, 0, 0], "bytes_by_column": [0, 0, 0, 0]}}'

# What perf kmem writes validates: the bundled sample in every page mode,
# and a fresh slab recording where recording is allowed.
real() {
	local name=$1 out

	shift
	out="$dir/real.json"
	if ! perf kmem stat --json "$@" >"$out" 2>"$dir/real.err"; then
		fail "$name: perf kmem stat --json $*: $(tail -n 1 "$dir/real.err")"
	elif ! python3 "$check" "$schema" "$out" >"$dir/real.out" 2>&1; then
		fail "$name: perf kmem stat --json $* does not validate:"
		head -n 5 "$dir/real.out" | sed 's/^/    /'
	else
		echo "ok   $name"
	fi
}

top=$(cd "$here/../.." && pwd)
sample=${KMEM_DATA:-$top/data}/sample.perf.data
ksyms=${KMEM_DATA:-$top/data}/sample.kallsyms
if command -v perf >/dev/null && [ -r "$sample" ]; then
	real "sample --page" --page -i "$sample" --kallsyms "$ksyms"
	real "sample --page --caller --alloc" --page --caller --alloc -l 20 \
		-i "$sample" --kallsyms "$ksyms"
	real "sample --page --live -s hit" --page --live --caller -s hit \
		-i "$sample" --kallsyms "$ksyms"
	# No build-id cache, and /proc/kallsyms another kernel's.
	if ! grep -q "$(uname -r)" "$sample"; then
		mkdir -p "$dir/home"
		HOME=$dir/home real "sample without symbols" --page --caller \
			-i "$sample"
	fi
	if [ "$(id -u)" = 0 ] && perf kmem record --slab --page \
		-o "$dir/slab.data" -- ls -R /usr/lib >"$dir/slab.data.log" 2>&1; then
		real "recording --slab --caller --alloc" --slab --caller \
			--alloc -l 30 -i "$dir/slab.data"
		real "recording --slab --page" --slab --page \
			-i "$dir/slab.data"
		# Its fallback rows, if it has any, by task.
		for key in pid comm; do
			real "recording --page --caller -s frag,$key" --page \
				--caller -s "frag,$key" -l 30 -i "$dir/slab.data"
		done
	fi
fi

kmem_result "kmem json schema test"
