#!/bin/bash
# Install what building perf from linux-source-6.12 needs, only when missing.
# clang compiles perf's BPF programs (util/bpf_skel/*.bpf.c), llvm-strip
# strips them.
set -e
pkgs="linux-source-6.12 libtraceevent-dev libelf-dev libdw-dev libunwind-dev
zlib1g-dev flex bison pkg-config xz-utils make gcc perl python3
asciidoctor man-db clang llvm"
case "${1:-}" in
# The fuzz target needs clang and its libFuzzer runtime.
--fuzz) pkgs="clang libclang-rt-14-dev" ;;
# The tests lint scripts, kill a perf record and count with python3; they
# validate JSON against its schema (python3-jsonschema), and check SVG
# maps with xmllint (libxml2-utils), by rendering them (librsvg2-bin) and
# by loading them in a browser (chromium); they read pprof profiles with
# go tool pprof (golang-go) and draw its flame graph in chromium; they run
# perf kmem under valgrind's memcheck.
--test) pkgs="shellcheck procps python3 python3-jsonschema libxml2-utils chromium
librsvg2-bin golang-go valgrind" ;;
# The benchmark reads peak RSS with GNU time and counts instructions with
# valgrind's cachegrind.
--bench) pkgs="time procps python3 valgrind" ;;
esac
missing=
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" != 0 ]; then
	echo "install-deps: need root to install:$missing" >&2
	exit 1
fi
echo "install-deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
