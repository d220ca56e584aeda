#!/bin/bash
# perf kmem page allocator analysis against perf script (exclusive)
# SPDX-License-Identifier: GPL-2.0
#
# Record a real workload with 'perf kmem record --page', then check every
# number of 'perf kmem stat --page' (summary, order x migration type grid,
# callsite table) against an independent count of the same file's
# 'perf script' output, done by the awk program below; then the summary
# and grid of a --time window against perf script of that window; then
# the callsites and -v's allocator functions of a kallsyms of another
# boot, and of a vmlinux of this boot's symbols, against --kallsyms
# /proc/kallsyms.

# shellcheck source-path=SCRIPTDIR source=lib/kmem_common.sh
. "$(dirname "$0")/lib/kmem_common.sh"

# File writes and reads, fork+exec, anonymous memory: a few seconds of the
# page allocator's main customers, well over 10000 allocations.
workload() {
	local f="${dir}/file" i

	for i in 1 2 3; do
		dd if=/dev/urandom of="$f" bs=1M count=8 status=none
		cat "$f" >/dev/null
		rm -f "$f"
		# dd's buffer is anonymous memory that read() fills.
		dd if=/dev/zero of=/dev/null bs=16M count=2 status=none
	done
	for ((i = 0; i < 100; i++)); do
		/bin/true
	done
	find /usr/lib -maxdepth 2 -type f -size -256k 2>/dev/null |
		head -n 500 | xargs cat >/dev/null 2>&1
	sleep 1
}

# The analysis restated.  Input: perf script -F event,trace,ip,sym.  An
# allocation is a failure when the tracepoint has no pfn: the raw field is
# -1UL, which the format prints as pfn=0x0 on v4.x+ (page=0 too).  A free
# ends the allocation live on its pfn; an allocation of a live pfn drops
# the earlier one.  Bytes are page_size << order of the allocation.  The
# callsite is the first callchain frame that is not an allocator function.
# Output: one "kind key... value" line per number.
count_script() {
	awk -v ps="$1" '
	BEGIN {
		col[0] = "Unmovable"; col[1] = "Movable"; col[2] = "Reclaimable"
		mtname[0] = "Unmovable"; mtname[1] = "Movable"
		mtname[2] = "Reclaimable"; mtname[3] = "HighAtomic"
		mtname[4] = "CMA/Isolate"; mtname[5] = "Isolate"
		n = split("alloc_pages_nodemask alloc_pages_current " \
			  "alloc_pages_vma alloc_page_interleave alloc_pages " \
			  "alloc_pages_node alloc_pages_exact " \
			  "alloc_pages_exact_nid get_free_pages " \
			  "get_zeroed_page alloc_pages_bulk " \
			  "alloc_pages_bulk_array " \
			  "alloc_pages_bulk_array_mempolicy " \
			  "alloc_pages_bulk_mempolicy " \
			  "alloc_pages_preferred_many folio_alloc " \
			  "folio_alloc_node folio_alloc_mpol vma_alloc_folio " \
			  "filemap_alloc_folio alloc_pages_mpol " \
			  "alloc_frozen_pages alloc_frozen_pages_nolock " \
			  "alloc_pages_nolock", names, " ")
		for (i = 1; i <= n; i++)
			allocator[names[i]] = 1
		pending = 0
	}

	function bytes(order,	b, i) {
		b = ps
		for (i = 0; i < order; i++)
			b *= 2
		return b
	}

	# Is a symbol one of the allocator functions, in any of its spellings
	# (up to two leading underscores, _noprof, compiler suffixes)?
	function is_allocator(sym) {
		while (sym ~ /\.(isra|constprop|part|cold|llvm)\.[0-9]+$/)
			sub(/\.[a-z]+\.[0-9]+$/, "", sym)
		sub(/_noprof$/, "", sym)
		# __traceiter_*, an iterator, heads the chain under a second probe.
		if (sym ~ /^__traceiter_/)
			return 1
		if (sym in allocator)
			return 1
		if (substr(sym, 1, 1) == "_" && (substr(sym, 2) in allocator))
			return 1
		if (substr(sym, 1, 2) == "__" && (substr(sym, 3) in allocator))
			return 1
		return 0
	}

	function field(name,	i) {
		for (i = 1; i <= NF; i++)
			if (index($i, name "=") == 1)
				return substr($i, length(name) + 2)
		return ""
	}

	function settle(callsite) {
		if (pending)
			hits[callsite "\t" key]++
		pending = 0
	}

	$1 == "kmem:mm_page_alloc:" {
		settle("(unknown)")
		pfn = field("pfn"); order = field("order") + 0
		mt = field("migratetype") + 0; gfp = field("gfp_flags")
		if (order < 0 || order > 31) {
			bad_order++
			next
		}
		b = bytes(order)
		if (pfn == "0x0" || pfn == "0xffffffffffffffff") {
			fail_nr++; fail_b += b
			next
		}
		alloc_nr++; alloc_b += b
		c = (mt in col) ? col[mt] : "Special"
		grid[order "\t" c]++
		if (order > max_order)
			max_order = order
		if (mt < 0 || mt > 15)
			bad_mt++
		if (pfn in live) {
			drop_nr++; drop_b += bytes(live[pfn])
		}
		live[pfn] = order
		if (gfp ~ /(^|\|)GFP_HIGHUSER_MOVABLE(\||$)/)
			highuser_movable++
		name = (mt in mtname) ? mtname[mt] : "type " mt
		key = order "\t" name "\t" gfp
		pending = 1
		next
	}

	$1 == "kmem:mm_page_free:" {
		settle("(unknown)")
		pfn = field("pfn"); order = field("order") + 0
		if (order < 0 || order > 31) {
			bad_order++
			next
		}
		free_nr++; free_b += bytes(order)
		if (!(pfn in live)) {
			free_only_nr++; free_only_b += bytes(order)
			next
		}
		freed_nr++; freed_b += bytes(live[pfn])
		if (live[pfn] != order)
			order_differs++
		delete live[pfn]
		next
	}

	# A callchain frame: "<ip> <sym>".
	pending && NF >= 2 && $1 ~ /^[0-9a-f]+$/ {
		if (!is_allocator($2))
			settle($2)
	}

	END {
		settle("(unknown)")
		for (p in live) {
			live_nr++; live_b += bytes(live[p])
		}
		printf "S freed %.0f %.0f\n", freed_nr, freed_b
		printf "S alloc_only %.0f %.0f\n", live_nr + drop_nr, live_b + drop_b
		printf "S live %.0f %.0f\n", live_nr, live_b
		printf "S dropped %.0f %.0f\n", drop_nr, drop_b
		printf "S free_only %.0f %.0f\n", free_only_nr, free_only_b
		printf "S fail %.0f %.0f\n", fail_nr, fail_b
		printf "S alloc %.0f %.0f\n", alloc_nr, alloc_b
		printf "S free %.0f %.0f\n", free_nr, free_b
		printf "P order_differs %.0f\n", order_differs
		printf "P bad_migtype %.0f\n", bad_mt
		printf "P bad_order %.0f\n", bad_order
		printf "P highuser_movable %.0f\n", highuser_movable
		printf "P grid_orders %.0f\n", (max_order > 10 ? max_order : 10) + 1
		for (g in grid)
			printf "G %s\t%.0f\n", g, grid[g]
		for (h in hits)
			printf "C %s\t%.0f\n", h, hits[h]
	}'
}

# The summary of perf kmem stat as "S name nr bytes" and "P name n" lines,
# named as count_script names them.
# The summary and grid of the text, in the lines that parse_json_summary
# gives of the JSON: the two must carry the same numbers.
parse_text_summary() {
	awk '
	function num(s) {
		gsub(/,/, "", s)
		return s
	}
	function count(name, label,	rest, a) {
		if (index($0, " " label) != 1)
			return 0
		rest = substr($0, length(label) + 2)
		split(rest, a, " ")
		printf "S %s %s %s\n", name, num(a[1]), num(a[3])
		return 1
	}
	function plain(name, label,	rest, a) {
		if (index($0, " " label) != 1)
			return 0
		rest = substr($0, length(label) + 2)
		split(rest, a, " ")
		printf "P %s %s\n", name, num(a[1])
		return 1
	}
	count("freed", "Pages allocated+freed:") { next }
	count("alloc_only", "Pages allocated-only:") { next }
	count("live", "  still allocated at the end:") { next }
	count("dropped", "  allocated again, free not seen:") { next }
	count("free_only", "Pages freed-only:") { next }
	count("fail", "Page allocation failures:") { next }
	count("alloc", "Total allocations:") { next }
	count("free", "Total frees:") { next }
	plain("order_differs", "Frees of another order:") { next }
	plain("bad_migtype", "Unknown migration types (Special):") { next }
	plain("bad_order", "Events ignored (bad order):") { next }
	plain("lost", "Events lost while recording:") { next }
	$1 == "Order" && $2 == "Unmovable" {
		split("Unmovable Reclaimable Movable Special", heads, " ")
		ingrid = 1
		next
	}
	ingrid && $1 ~ /^-+$/ { next }
	ingrid && $1 ~ /^[0-9]+$/ && NF == 5 {
		for (i = 2; i <= 5; i++)
			printf "G %s\t%s\t%s\n", $1, heads[i - 1],
			       ($i == "." ? 0 : num($i))
		rows++
		next
	}
	ingrid { ingrid = 0 }
	END { printf "P grid_orders %d\n", rows }'
}

# Rows of the --caller table as "callsite<TAB>order<TAB>migtype<TAB>gfp<TAB>
# hits", in the order printed.
parse_json_summary() {
	python3 "$(dirname "$0")/lib/kmem_json_keys.py" page-summary /dev/stdin
}

parse_caller_table() {
	python3 "$(dirname "$0")/lib/kmem_json_keys.py" page-callers /dev/stdin
}

parse_text_caller_table() {
	# The columns by their headers: a Fragmenting column comes and goes
	# with the trace's fallbacks.
	awk -F ' [|] ' '
	function trim(s) {
		gsub(/^ +| +$/, "", s)
		return s
	}
	trim($2) == "Hits" {
		for (i = 1; i <= NF; i++)
			col[trim($i)] = i
		nf = NF
		next
	}
	nf && NF == nf {
		hits = trim($col["Hits"])
		gsub(/,/, "", hits)
		printf "%s\t%s\t%s\t%s\t%s\n", trim($col["Callsite"]),
		       trim($col["Order"]), trim($col["Migration type"]),
		       trim($col["GFP flags"]), hits
	}'
}

declare -A want got

# "S/P/G" lines of count_script or parse_json_summary as "key<TAB>value".
key_values() {
	awk '$1 == "S" { print $2 "\t" $3 " " $4 }
	     $1 == "P" { print $2 "\t" $3 }' "$1"
	awk -F '\t' '$1 ~ /^G / { print $1 " " $2 "\t" $3 }' "$1"
}

check_summary() {
	local name

	for name in freed alloc_only live dropped free_only fail alloc free; do
		if [ -z "${got[$name]}" ]; then
			fail "summary line for '$name' missing"
		elif [ "${got[$name]}" != "${want[$name]}" ]; then
			fail "summary $name: perf kmem says '${got[$name]}'" \
			     "(count bytes), perf script counts '${want[$name]}'"
		fi
	done
	# Printed only when not zero.
	for name in order_differs bad_migtype bad_order; do
		if [ "${got[$name]:-0}" != "${want[$name]}" ]; then
			fail "summary $name: perf kmem says ${got[$name]:-0}," \
			     "perf script counts ${want[$name]}"
		fi
	done
	if [ -n "${got[lost]}" ]; then
		echo "Note: ${got[lost]} events lost while recording"
	fi
}

check_grid() {
	local order col g w

	if [ "${got[grid_orders]}" != "${want[grid_orders]}" ]; then
		fail "grid has ${got[grid_orders]} orders, want ${want[grid_orders]}"
	fi
	for ((order = 0; order < want[grid_orders]; order++)); do
		for col in Unmovable Reclaimable Movable Special; do
			g=${got["G $order $col"]}
			w=${want["G $order $col"]:-0}
			if [ "$g" != "$w" ]; then
				fail "grid order $order $col: perf kmem says" \
				     "'$g', perf script counts $w"
			fi
		done
	done
}

# GFP_HIGHUSER_MOVABLE is migration type 1, Movable on v4.4+ kernels.
check_highuser_movable() {
	local table=$1 hum rows_hits wrong movable=0 order

	hum=${want[highuser_movable]}
	if [ "$hum" -eq 0 ]; then
		fail "no GFP_HIGHUSER_MOVABLE allocation in the trace"
		return
	fi
	rows_hits=$(awk -F '\t' '$4 ~ /(^|\|)GFP_HIGHUSER_MOVABLE(\||$)/ {
		s += $5 } END { print s + 0 }' "$table")
	wrong=$(awk -F '\t' '$4 ~ /(^|\|)GFP_HIGHUSER_MOVABLE(\||$)/ &&
		$3 != "Movable" { print $1 " " $3 }' "$table" | head -n 3)
	if [ "$rows_hits" != "$hum" ]; then
		fail "GFP_HIGHUSER_MOVABLE rows have $rows_hits hits," \
		     "perf script counts $hum allocations"
	fi
	if [ -n "$wrong" ]; then
		fail "GFP_HIGHUSER_MOVABLE rows not Movable: $wrong"
	fi
	for ((order = 0; order < want[grid_orders]; order++)); do
		movable=$((movable + ${got["G $order Movable"]:-0}))
	done
	if [ "$movable" -lt "$hum" ]; then
		fail "grid Movable column has $movable allocations," \
		     "fewer than the $hum GFP_HIGHUSER_MOVABLE ones"
	fi
}

check_callers() {
	local table=$1 counts=$2 total cs order mt gfp hits n=0 w

	total=$(awk -F '\t' '{ s += $5 } END { print s + 0 }' "$table")
	if [ "$total" != "${want[alloc]%% *}" ]; then
		fail "caller table hits add up to $total, want ${want[alloc]%% *}"
	fi
	while IFS=$'\t' read -r cs order mt gfp hits; do
		w=$(awk -F '\t' -v cs="C $cs" -v order="$order" -v mt="$mt" \
			-v gfp="$gfp" '$1 == cs && $2 == order && $3 == mt &&
			$4 == gfp { print $5 }' "$counts")
		if [ "$hits" != "${w:-0}" ]; then
			fail "caller row $((n + 1)) ($cs order $order $mt $gfp):" \
			     "perf kmem says $hits hits, perf script counts ${w:-0}"
		fi
		n=$((n + 1))
		[ "$n" -lt 5 ] || break
	done <"$table"
	if [ "$n" -lt 5 ]; then
		fail "caller table has only $n rows"
	fi
}

# Fill want and got from count_script's and parse_json_summary's output files.
load_counts() {
	local key value

	want=()
	got=()
	while IFS=$'\t' read -r key value; do
		want["$key"]=$value
	done < <(key_values "$1")
	while IFS=$'\t' read -r key value; do
		got["$key"]=$value
	done < <(key_values "$2")
}

# --time: the middle half of the trace's allocations (by time: the span
# of the trace may be mostly the workload's last sleep), against perf
# script of the same window.  Only what the window holds counts, live
# pages included.
check_time_window() {
	local all_alloc=$1 a b

	read -r a b < <(perf script -i "${perfdata}" -F time,event 2>/dev/null |
		awk '/mm_page_alloc:/ { t = $1; sub(/:$/, "", t); at[n++] = t }
		     END { if (n) print at[int(n / 4)], at[int(3 * n / 4)] }')
	echo "Checking --time $a,$b..."
	perf script -i "${perfdata}" --time "$a,$b" -F event,trace,ip,sym \
		2>/dev/null | count_script "${page_size}" >"${dir}/want-time"
	perf kmem stat --page --json --time "$a,$b" -i "${perfdata}" \
		>"${dir}/stat-time" 2>"${dir}/stat-time.err" ||
		{ fail "perf kmem stat --page --time failed"; return; }
	parse_json_summary <"${dir}/stat-time" >"${dir}/got-time"
	load_counts "${dir}/want-time" "${dir}/got-time"
	if [ "${want[alloc]%% *}" -eq 0 ] ||
	   [ "${want[alloc]%% *}" -ge "$all_alloc" ]; then
		fail "--time window has ${want[alloc]%% *} of $all_alloc allocations"
	fi
	check_summary
	check_grid
}

# A kallsyms of another boot (KASLR: vmlinux 2 MiB higher) must give the
# callsites the trace's own does: perf kmem moves its symbols back.
check_other_boot_kallsyms() {
	perl -ne 'printf "%016x %s", hex($1) + 0x200000, $2 if /^(\S+) (.*\n)/' \
		/proc/kallsyms >"${dir}/shifted.kallsyms" 2>/dev/null
	perf kmem stat --page --caller -i "${perfdata}" \
		--kallsyms /proc/kallsyms >"${dir}/caller-proc" 2>&1
	perf kmem stat --page --caller -i "${perfdata}" \
		--kallsyms "${dir}/shifted.kallsyms" >"${dir}/caller-shifted" 2>&1
	if ! grep -q do_anonymous_page "${dir}/caller-proc"; then
		fail "--kallsyms /proc/kallsyms: no do_anonymous_page callsite"
	elif ! cmp -s "${dir}/caller-proc" "${dir}/caller-shifted"; then
		fail "--kallsyms of another boot gives other callsites:"
		diff "${dir}/caller-proc" "${dir}/caller-shifted" | head -n 6
	fi
}

# A vmlinux of this boot's kernel (lib/kmem_vmlinux.py: the text symbols
# of /proc/kallsyms, the trace's kernel build-id), read by perf's loader,
# must name every callsite as perf kmem's reader of the same kallsyms
# does: -v --caller, and -v --caller --raw-ip with its offsets, the same
# bytes, the allocator functions -v lists among them.  -v adds that list
# and nothing else: the same table as without it, no offset in it.
check_vmlinux() {
	local bid opts lib

	lib=$(dirname "$0")/lib
	bid=$(perf buildid-list -i "${perfdata}" 2>/dev/null |
	      awk '$2 == "[kernel.kallsyms]" { print $1 }')
	if [ -z "$bid" ]; then
		echo "no kernel build-id in the trace: --vmlinux not checked"
		return
	fi
	python3 "$lib/kmem_vmlinux.py" /proc/kallsyms "$bid" "${dir}/vmlinux" \
		>"${dir}/vmlinux.log" 2>&1 ||
		{ fail "kmem_vmlinux.py: $(tail -n 1 "${dir}/vmlinux.log")"; return; }
	for opts in "" --raw-ip; do
		# shellcheck disable=SC2086 # $opts: no option, or one
		perf kmem stat --page --caller -l 1000000 -v $opts -i "${perfdata}" \
			--vmlinux "${dir}/vmlinux" >"${dir}/vmlinux.out" 2>"${dir}/vmlinux.err"
		# shellcheck disable=SC2086
		perf kmem stat --page --caller -l 1000000 -v $opts -i "${perfdata}" \
			--kallsyms /proc/kallsyms >"${dir}/kallsyms.out" 2>/dev/null
		if ! grep -q "^Using ${dir}/vmlinux for symbols" "${dir}/vmlinux.err"; then
			fail "-v --vmlinux $opts: perf did not read it:" \
				"$(tail -n 1 "${dir}/vmlinux.err")"
		elif ! grep -q '^alloc func: ' "${dir}/vmlinux.out" ||
		     ! grep -q 'do_anonymous_page' "${dir}/vmlinux.out"; then
			fail "-v --vmlinux $opts: no allocator functions, or no do_anonymous_page"
		elif ! cmp -s "${dir}/vmlinux.out" "${dir}/kallsyms.out"; then
			fail "-v --vmlinux $opts differs from -v --kallsyms of its symbols:"
			diff "${dir}/kallsyms.out" "${dir}/vmlinux.out" | head -n 6
		else
			echo "-v --vmlinux $opts: $(grep -c '^alloc func: ' "${dir}/vmlinux.out")" \
			     "allocator functions and every callsite as --kallsyms gives them"
		fi
	done
	grep -q '| [a-z_0-9.]*+0x[0-9a-f]*$' "${dir}/vmlinux.out" ||
		fail "-v --vmlinux --raw-ip: no callsite with its offset"
	perf kmem stat --page --caller -l 1000000 -i "${perfdata}" \
		--vmlinux "${dir}/vmlinux" >"${dir}/plain.out" 2>/dev/null
	perf kmem stat --page --caller -l 1000000 -v -i "${perfdata}" \
		--vmlinux "${dir}/vmlinux" 2>/dev/null |
		grep -v '^alloc func: ' >"${dir}/verbose.out"
	if ! cmp -s "${dir}/plain.out" "${dir}/verbose.out"; then
		fail "-v changes the results, not only the allocator functions before them:"
		diff "${dir}/plain.out" "${dir}/verbose.out" | head -n 6
	elif grep -q '+0x[0-9a-f]*$' "${dir}/verbose.out"; then
		fail "-v --caller: a callsite with an offset, which --raw-ip shows"
	fi
}

# perf kmem record runs this script again to get the workload.
if [ "$1" = "--workload" ]; then
	dir=$2
	# Its parent is perf record: its ring buffers are the perf_event maps.
	grep 'anon_inode:\[perf_event\]' "/proc/$PPID/maps" >"${dir}/maps"
	workload
	exit 0
fi

kmem_need_tracepoints mm_page_alloc mm_page_free
perf kmem stat -h 2>&1 | grep -q -- --page ||
	kmem_skip "this perf kmem has no --page"
kmem_scratch page
perfdata="${dir}/perf.data"

trap 'exit 1' TERM INT

page_size=$(getconf PAGESIZE)

# KMEM_PAGE_DATA=FILE checks a trace recorded before, e.g. a big one.
if [ -n "${KMEM_PAGE_DATA:-}" ]; then
	perfdata=$KMEM_PAGE_DATA
	echo "Checking ${perfdata}..."
else
	echo "Recording..."
	if ! perf kmem record --page -m 1024 -o "${perfdata}" -- \
		bash "$0" --workload "${dir}" \
		>"${dir}/record.log" 2>&1; then
		cat "${dir}/record.log"
		fail "perf kmem record --page failed"
		exit 1
	fi
fi

# perf kmem record keeps the -m given: 1024 pages, and one of control, a CPU.
if [ -z "${KMEM_PAGE_DATA:-}" ]; then
	want_maps="$(getconf _NPROCESSORS_ONLN)x$(((1024 + 1) * page_size))"
	got_maps=$(while read -r range _; do
			echo $((16#${range#*-} - 16#${range%-*}))
		done <"${dir}/maps" | sort | uniq -c | awk '{ print $1 "x" $2 }')
	[ "${got_maps}" = "${want_maps}" ] ||
		fail "ring buffers of perf record -m 1024: ${got_maps}, want ${want_maps} bytes"
fi

perf script -i "${perfdata}" -F event,trace,ip,sym >"${dir}/script" \
	2>/dev/null || { fail "perf script failed"; exit 1; }
count_script "${page_size}" <"${dir}/script" >"${dir}/want"

perf kmem stat --page --json -i "${perfdata}" >"${dir}/stat.json" \
	2>"${dir}/stat.err" ||
	{ cat "${dir}/stat.err"; fail "perf kmem stat --page --json failed"; exit 1; }
parse_json_summary <"${dir}/stat.json" >"${dir}/got"

perf kmem stat --page --caller -l 1000000 --json -i "${perfdata}" \
	>"${dir}/caller.json" 2>&1 ||
	{ fail "perf kmem stat --page --caller --json failed"; exit 1; }
parse_caller_table <"${dir}/caller.json" >"${dir}/table"

# The text says what the JSON says.
perf kmem stat --page -i "${perfdata}" >"${dir}/stat" 2>&1 ||
	{ cat "${dir}/stat"; fail "perf kmem stat --page failed"; exit 1; }
perf kmem stat --page --caller -l 1000000 -i "${perfdata}" \
	>"${dir}/caller" 2>&1 ||
	{ fail "perf kmem stat --page --caller failed"; exit 1; }
if ! cmp -s <(parse_text_summary <"${dir}/stat" | sort) <(sort "${dir}/got"); then
	fail "the text summary and grid differ from the JSON:"
	diff <(parse_text_summary <"${dir}/stat" | sort) <(sort "${dir}/got") | head
fi
if ! cmp -s <(parse_text_caller_table <"${dir}/caller" | sort) <(sort "${dir}/table"); then
	fail "the text caller table differs from the JSON:"
	diff <(parse_text_caller_table <"${dir}/caller" | sort) <(sort "${dir}/table") | head
fi

load_counts "${dir}/want" "${dir}/got"

alloc_nr=${want[alloc]%% *}
echo "perf script: ${alloc_nr} allocations, ${want[free]%% *} frees," \
	"${want[dropped]%% *} allocated again, ${want[fail]%% *} failures"
if [ "${alloc_nr}" -lt 10000 ]; then
	fail "only ${alloc_nr} allocations recorded, want >= 10000"
fi

check_summary
check_grid
check_highuser_movable "${dir}/table"
check_callers "${dir}/table" "${dir}/want"
check_time_window "${alloc_nr}"
# /proc/kallsyms is of this boot only when the trace was recorded here.
[ -n "${KMEM_PAGE_DATA:-}" ] || check_other_boot_kallsyms
[ -n "${KMEM_PAGE_DATA:-}" ] || check_vmlinux

if [ "$err" -ne 0 ]; then
	echo "--- perf kmem stat --page:"
	cat "${dir}/stat"
fi
kmem_result "kmem page test"
