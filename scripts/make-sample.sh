#!/bin/bash
# Record the small trace bundled for machines that may not record
# (data/sample.perf.data), with the kallsyms lines its callchains need
# (data/sample.kallsyms): each function hit and the one after it, so that
# every address resolves to the same function as on the recording machine.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
perf="$top/perf"
cd "$top/data"
"$perf" kmem record --page -o sample.perf.data -- \
	sh -c 'cat /usr/bin/b* >/dev/null; dd if=/dev/zero of=/tmp/kmem-sample bs=1M count=2 status=none; rm -f /tmp/kmem-sample'
"$perf" script -i sample.perf.data -F ip 2>/dev/null | awk 'NF { print $1 }' |
	sort -u >ips.tmp
grep -E ' [tTwW] ' /proc/kallsyms | grep -v '\[' | sort >text.tmp
python3 - <<'PY'
import bisect
syms = [l.split() for l in open('text.tmp')]
syms.sort(key=lambda s: int(s[0], 16))
addrs = [int(s[0], 16) for s in syms]
keep = set()
for l in open('ips.tmp'):
    ip = int(l, 16)
    i = bisect.bisect_right(addrs, ip) - 1
    if i >= 0:
        keep.update((i, i + 1))
# _stext and _etext bound the kernel map.
for i, s in enumerate(syms):
    if s[2] in ('_stext', '_etext', '_text'):
        keep.add(i)
with open('sample.kallsyms', 'w') as f:
    for i in sorted(k for k in keep if k < len(syms)):
        f.write(' '.join(syms[i][:3]) + '\n')
PY
rm -f ips.tmp text.tmp
ls -la sample.perf.data sample.kallsyms
