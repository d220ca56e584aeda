# Build perf from Debian's linux-source-6.12 with our perf kmem laid over it.
#
#   make            build ./perf (ours)
#   make upstream   build unmodified perf into build/upstream/perf
#   make test       build and run our test suites, ASan+UBSan too (SANITIZE=0: not)
#   make demo       record a real workload and print the page analysis
#   make bench      compare speed and memory with upstream perf
#   make fuzz-files mutants of real recordings through the ASan+UBSan perf
#   make perf-cov   perf with gcov counters, in build/perf-cov
#   make series     the patch series for the perf maintainers, in build/series
#   make series-check  apply it to a pristine tools/perf, build and test each step

SRC_TAR   ?= /usr/src/linux-source-6.12.tar.xz
TOP       := $(CURDIR)
B         := $(TOP)/build
PRISTINE  := $(B)/pristine/linux-source-6.12
SRC       := $(B)/src/linux-source-6.12
OUT       := $(B)/perf
UPOUT     := $(B)/upstream
# perf help kmem and perf kmem --help look in $(prefix)/share/man first:
# our man page.  (perf's Makefile.config sets mandir outright, but takes
# prefix from the command line.)
PREFIX    := $(B)/prefix
MANDIR    := $(PREFIX)/share/man
MANPAGE   := $(MANDIR)/man1/perf-kmem.1
ASANOUT   := $(B)/perf-asan
NOSKELOUT := $(B)/perf-noskel
COVOUT    := $(B)/perf-cov

# The same perf on every machine: only libtraceevent, libelf, libdw,
# libunwind and zlib, whatever else happens to be installed; ours also
# with libbpf and the BPF skeletons (perf kmem stat -b), both built from
# the kernel tree as perf builds them: libbpf from tools/lib/bpf, bpftool
# bootstrapped from tools/bpf/bpftool, perf's minimal vmlinux.h and
# Debian's clang.
COMMON_FLAGS := NO_LIBPYTHON=1 NO_LIBPERL=1 NO_SLANG=1 NO_GTK2=1 \
	NO_JEVENTS=1 NO_LIBNUMA=1 NO_LIBCAP=1 NO_LIBAUDIT=1 NO_LIBBABELTRACE=1 \
	NO_LIBCRYPTO=1 NO_LIBZSTD=1 NO_LZMA=1 NO_AUXTRACE=1 NO_BACKTRACE=1 \
	NO_LIBLLVM=1 NO_CAPSTONE=1 NO_LIBPFM4=1 NO_SDT=1 NO_JVMTI=1 \
	NO_DEMANGLE=1 NO_LIBDEBUGINFOD=1 NO_AIO=1 NO_SHELLCHECK=1 NO_LIBBFD=1 \
	WERROR=1 prefix=$(PREFIX)
PERF_FLAGS := $(COMMON_FLAGS) BUILD_BPF_SKEL=1
# Upstream perf for the benchmark, and ours without skeletons (whose
# perf kmem stat -b must say so), without libbpf.
NOSKEL_FLAGS := $(COMMON_FLAGS) NO_LIBBPF=1 BUILD_BPF_SKEL=0

# Our files, laid over tools/perf as symlinks so that editing one here
# rebuilds only what depends on it: found by name, so that a new one
# cannot be left out.
OURS := builtin-kmem.c \
	$(wildcard util/kmem/*.[ch] util/kmem/Build tests/kmem-*.[ch]) \
	util/bpf_skel/kmem.bpf.c util/bpf_skel/kmem_data.h \
	$(wildcard tests/shell/kmem_*.sh tests/shell/lib/kmem_*) \
	$(wildcard Documentation/perf-kmem*.*)

EXTRACT := arch/arm64/tools/gen-sysreg.awk arch/arm64/tools/sysreg \
	tools/perf tools/arch tools/scripts tools/build tools/include \
	tools/lib/api tools/lib/subcmd tools/lib/perf tools/lib/symbol \
	'tools/lib/*.c' tools/lib/bpf tools/bpf/bpftool kernel/bpf/disasm.c \
	kernel/bpf/disasm.h scripts/bpf_doc.py scripts/checkpatch.pl \
	scripts/spelling.txt scripts/const_structs.checkpatch scripts/kernel-doc

SAN_CFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer \
	-fno-sanitize-recover=undefined

# libFuzzer targets of the analysis cores, built outside perf with clang:
# each links its engine (FUZZ_SRC_name) and the tables the engines share.
W            := util/kmem
FUZZ_NAMES   := kmem-page kmem-slab kmem-kallsyms kmem-json kmem-stacks \
	kmem-map kmem-frag kmem-pageblock kmem-diff kmem-pprof
FUZZ_BINS    := $(patsubst %,$(B)/fuzz/%-fuzz,$(FUZZ_NAMES))
FUZZ_SECONDS ?= 300
FUZZ_CFLAGS  := -g -O1 -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=undefined -D_GNU_SOURCE -I$(W) \
	-I$(PRISTINE)/tools/include -I$(PRISTINE)/tools/arch/x86/include
FUZZ_LIBS    := $(W)/table-live.c $(PRISTINE)/tools/lib/rbtree.c \
	$(PRISTINE)/tools/lib/zalloc.c
FUZZ_SRC_kmem-page      := $(W)/count-page.c
FUZZ_SRC_kmem-slab      := $(W)/count-slab.c
FUZZ_SRC_kmem-kallsyms  := $(W)/read-kallsyms.c
FUZZ_SRC_kmem-json      := $(W)/json.c $(W)/read-json.c
FUZZ_SRC_kmem-stacks    := $(W)/count-stacks.c
# The map and the fragmentation analysis take the migration type
# columns of count-page.c.
FUZZ_SRC_kmem-map       := $(W)/print-map.c $(W)/count-page.c
FUZZ_SRC_kmem-frag      := $(W)/count-frag.c $(W)/count-page.c
FUZZ_SRC_kmem-diff      := $(W)/report-diff.c
FUZZ_SRC_kmem-pageblock := $(W)/read-pageblock.c
# The pprof writer compresses with zlib.
FUZZ_SRC_kmem-pprof     := $(W)/print-pprof.c
FUZZ_LINK_kmem-pprof    := -lz

.PHONY: all perf perf-asan perf-noskel perf-cov overlay upstream fuzz fuzz-files test demo bench deps \
	series series-check clean FORCE

all: perf

deps:
	@scripts/install-deps.sh

$(B)/.deps:
	@scripts/install-deps.sh
	@mkdir -p $(B) && touch $@

# What is taken of Debian's tree: a path added extracts it again.
EXTRACT_LIST := $(B)/.extract-list

$(EXTRACT_LIST): FORCE
	@mkdir -p $(B)
	@echo "$(EXTRACT)" | cmp -s - $@ || echo "$(EXTRACT)" > $@

$(PRISTINE)/.extracted: $(B)/.deps $(EXTRACT_LIST)
	rm -rf $(B)/pristine && mkdir -p $(B)/pristine
	tar -I 'xz -T2' -xf $(SRC_TAR) -C $(B)/pristine --wildcards \
		$(addprefix linux-source-6.12/,$(EXTRACT))
	echo '#define PERF_VERSION "6.12.kmem"' > $(PRISTINE)/PERF-VERSION-FILE
	touch $@

# The names of the patches: a patch taken away lays the tree out again too.
PATCHES     := $(sort $(wildcard patches/*.patch))
PATCH_LIST  := $(B)/.patch-list

$(PATCH_LIST): FORCE
	@mkdir -p $(B)
	@echo "$(PATCHES)" | cmp -s - $@ || echo "$(PATCHES)" > $@

# Debian's tree plus our patches to upstream files; our own files are links.
$(SRC)/.patched: $(PRISTINE)/.extracted $(PATCHES) $(PATCH_LIST)
	rm -rf $(B)/src && mkdir -p $(B)/src
	cp -a $(PRISTINE) $(B)/src/
	for p in patches/*.patch; do \
		patch -s -p1 -d $(SRC)/tools/perf < $$p || exit 1; done
	touch $@

overlay: $(SRC)/.patched
	@for f in $(OURS); do mkdir -p $(SRC)/tools/perf/$$(dirname $$f) && \
		ln -sfn $(TOP)/$$f $(SRC)/tools/perf/$$f; done

# perf's own Documentation makefile, with asciidoctor, on our page: after
# the overlay has linked it in (order only: the overlay is always made).
$(MANPAGE): Documentation/perf-kmem.txt $(SRC)/.patched | overlay
	@mkdir -p $(MANDIR)/man1
	@echo "  DOC     perf-kmem.1"
	@$(MAKE) -s -C $(SRC)/tools/perf/Documentation USE_ASCIIDOCTOR=1 \
		OUTPUT=$(MANDIR)/man1/ $@ >$(B)/doc-build.log 2>&1 || \
		{ cat $(B)/doc-build.log; exit 1; }

perf: overlay $(MANPAGE)
	@mkdir -p $(OUT)
	@echo "  BUILD   perf (log: build/perf-build.log)"
	@$(MAKE) -s -C $(SRC)/tools/perf O=$(OUT) $(PERF_FLAGS) >$(B)/perf-build.log 2>&1 || \
		{ grep -B2 -A8 -E 'error|Error' $(B)/perf-build.log | head -60; exit 1; }
	@ln -sf $(OUT)/perf $(TOP)/perf

perf-asan: overlay
	@mkdir -p $(ASANOUT)
	@echo "  BUILD   perf with ASan+UBSan (log: build/perf-asan-build.log)"
	@$(MAKE) -s -C $(SRC)/tools/perf O=$(ASANOUT) $(PERF_FLAGS) DEBUG=1 \
		EXTRA_CFLAGS="$(SAN_CFLAGS)" LDFLAGS="$(SAN_CFLAGS)" >$(B)/perf-asan-build.log 2>&1 || \
		{ grep -B2 -A8 -E 'error|Error' $(B)/perf-asan-build.log | head -60; exit 1; }

perf-noskel: overlay
	@mkdir -p $(NOSKELOUT)
	@echo "  BUILD   perf without BPF skeletons (log: build/perf-noskel-build.log)"
	@$(MAKE) -s -C $(SRC)/tools/perf O=$(NOSKELOUT) $(NOSKEL_FLAGS) >$(B)/perf-noskel-build.log 2>&1 || \
		{ grep -B2 -A8 -E 'error|Error' $(B)/perf-noskel-build.log | head -60; exit 1; }

# Unoptimized, with gcov's counters: each run adds to build/perf-cov/**/*.gcda,
# read in build/src/linux-source-6.12/tools/perf by
# gcov -o $(COVOUT)/util/kmem util/kmem/FILE.c.
perf-cov: overlay
	@mkdir -p $(COVOUT)
	@echo "  BUILD   perf with gcov (log: build/perf-cov-build.log)"
	@$(MAKE) -s -C $(SRC)/tools/perf O=$(COVOUT) $(PERF_FLAGS) DEBUG=1 \
		EXTRA_CFLAGS=--coverage LDFLAGS=--coverage >$(B)/perf-cov-build.log 2>&1 || \
		{ grep -B2 -A8 -E 'error|Error' $(B)/perf-cov-build.log | head -60; exit 1; }

upstream: $(PRISTINE)/.extracted
	@mkdir -p $(UPOUT)
	@echo "  BUILD   upstream perf (log: build/upstream-build.log)"
	@$(MAKE) -s -C $(PRISTINE)/tools/perf O=$(UPOUT) $(NOSKEL_FLAGS) >$(B)/upstream-build.log 2>&1 || \
		{ tail -30 $(B)/upstream-build.log; exit 1; }

# The ASan+UBSan build and runs are part of every make test: a build of
# perf more, the C suites and stat under the sanitizers, within make
# test's 15-minute budget (scripts/run-tests.sh prints each part's time).
# SANITIZE=0 leaves them out.
SANITIZE ?= 1

test: perf perf-noskel $(FUZZ_BINS) $(if $(filter 1,$(SANITIZE)),perf-asan)
	@scripts/install-deps.sh --test
	@scripts/run-tests.sh $(if $(filter 1,$(SANITIZE)),--sanitize)

demo: perf
	@scripts/demo.sh

bench: perf upstream
	@scripts/install-deps.sh --bench
	@scripts/bench.sh

.SECONDEXPANSION:
$(B)/fuzz/%-fuzz: tests/fuzz/%-fuzz.c $$(FUZZ_SRC_$$*) $(wildcard $(W)/*.h) \
		$(FUZZ_LIBS) | $(PRISTINE)/.extracted
	@scripts/install-deps.sh --fuzz
	@mkdir -p $(B)/fuzz/corpus-$*
	@echo "  BUILD   $*-fuzz"
	@clang $(FUZZ_CFLAGS) -o $@ tests/fuzz/$*-fuzz.c $(FUZZ_SRC_$*) \
		$(FUZZ_LIBS) $(FUZZ_LINK_$*)

# By hand: make fuzz FUZZ_SECONDS=3600 (each target).  make test runs a
# short one of each.
fuzz: $(FUZZ_BINS)
	@for bin in $(FUZZ_BINS); do \
		$$bin -max_total_time=$(FUZZ_SECONDS) -max_len=4096 \
			$(B)/fuzz/corpus-$$(basename $$bin -fuzz) || exit 1; done

# Whole perf.data files: FUZZ_FILES mutants of recordings made here, each
# analysed in three modes by the ASan+UBSan perf; one line per failure
# class with a reproducer in build/fuzz-files.  make test runs a short one.
FUZZ_FILES ?= 2000
FUZZ_SEED  ?= 1

fuzz-files: perf perf-asan
	@scripts/install-deps.sh --test
	nice -n 10 scripts/mutate-perf-data.py -n $(FUZZ_FILES) --seed $(FUZZ_SEED) \
		--perf $(ASANOUT)/perf --record-perf $(TOP)/perf --out $(B)/fuzz-files --notes

# The tree as a git format-patch series against the pristine tools/perf,
# cut as series/series.txt says, with series/cover.txt as cover letter.
# SERIES_AUTHOR="Name <mail>" signs the patches' From: (default: git's
# user); SERIES_BASE=DIR/tools/perf makes it against another tree.
SERIES_BASE ?= $(PRISTINE)/tools/perf
SERIES_OUT  ?= $(B)/series

series: $(PRISTINE)/.extracted
	@scripts/make-series.py --pristine $(SERIES_BASE) --out $(SERIES_OUT) \
		--work $(SERIES_OUT)-work $(OURS)

# git am of each patch on a fresh extract, perf built after each, checkpatch,
# then perf test of our suites and the files against build/src.
series-check: series overlay
	@scripts/install-deps.sh --test
	@SRC_TAR=$(SRC_TAR) SRC=$(SRC) EXTRACT="$(EXTRACT)" \
		PERF_FLAGS="$(PERF_FLAGS)" scripts/series-check.sh $(SERIES_OUT)

clean:
	rm -rf $(B) $(TOP)/perf
