#!/bin/bash
# The main job: record a few seconds of a real workload with
# 'perf kmem record --page' and print 'perf kmem stat --page'.  Where this
# machine does not let us record, say so and analyse the bundled trace.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
perf="$top/perf"
out=$(mktemp -d /tmp/perf-kmem-demo.XXXXXX)
trap 'rm -rf "$out"' EXIT

# perf record needs tracefs for the kmem tracepoints.
if [ ! -d /sys/kernel/tracing/events ] && [ "$(id -u)" = 0 ]; then
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
fi

workload() {
	# File reads through the page cache, fork/exec, anonymous memory.
	for i in 1 2; do
		cat /usr/bin/* >/dev/null 2>&1
		sh -c 'ls -R /usr/share/doc >/dev/null; true'
		dd if=/dev/zero of="$out/f.$i" bs=1M count=8 status=none
	done
	python3 -c 'b = bytearray(16 << 20)' 2>/dev/null
	sync
}

data="$out/perf.data"
echo "# perf kmem record --page -- <file I/O, fork/exec, anonymous memory>"
if "$perf" kmem record --page -m 1024 -o "$data" -- \
	bash -c "$(declare -f workload); out=$out; perf=$perf; workload" \
	>"$out/record.log" 2>&1 && [ -s "$data" ]; then
	tail -n 1 "$out/record.log"
	args=(-i "$data")
else
	# perf record's own reason, e.g. "No permissions to read ...".
	why=$(grep -m1 -E '^(Error|Warning):' "$out/record.log" | sed 's/^[A-Za-z]*:[[:space:]]*//')
	echo "perf kmem: recording is not allowed here: ${why:-$(head -n 1 "$out/record.log")}."
	echo "perf kmem: analysing the bundled trace data/sample.perf.data instead."
	args=(-i "$top/data/sample.perf.data" --kallsyms "$top/data/sample.kallsyms")
fi
echo "# perf kmem stat --page --caller -l 15"
"$perf" kmem stat --page --caller -l 15 "${args[@]}"
