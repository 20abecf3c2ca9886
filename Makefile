# posenc: a transformer encoder in C that teaches positional encoding.
# `make help` lists the targets (the lines marked ## below).
#
# The first run checks for OpenBLAS, Check, stb and SLEEF with pkg-config
# (scripts/deps.sh) and installs the missing Debian packages; the flags it
# finds are kept in build/config.mk.

# The compiler is make's default, cc; `make CC=clang` picks another.
# -O3 (it vectorizes the elementwise loops -O2 leaves scalar), never -Ofast
# or -ffast-math: those allow the compiler to break
# IEEE semantics (erf-based GELU and NaN checks among the casualties).
# -fno-math-errno changes no number: sqrtf need not set errno (nothing
# reads it), so it becomes one instruction and AdamW's loop vectorizes.
# OMP_FLAGS (-fopenmp, from build/config.mk) turns on the OpenMP loops of
# src/model (docs/architecture.md, threads); builds without it (the web
# page, the fuzzers) run the same loops on one thread.
WARN    := -Wall -Wextra -Wpedantic -Werror
CFLAGS  := -std=c11 -O3 -fno-math-errno -g $(WARN) -MMD -MP $(EXTRA_CFLAGS)
LDFLAGS := $(EXTRA_LDFLAGS)

# Objects and programs land in $(BUILD); `make sanitize` uses a second tree
# so the two builds never mix.
BUILD   ?= build
CONFIG  := build/config.mk

# `make web` alone needs none of them (it has its own check, below).
ifeq ($(MAKECMDGOALS),)
include $(CONFIG)
else ifneq ($(filter-out clean help web,$(MAKECMDGOALS)),)
include $(CONFIG)
endif

# Quiet, as Linux's kbuild is: a build says one short line per file it
# makes ("  CC      src/pe/pe_rope.c", "  LD      build/train"), so that
# what `make demo` and `make test` print is the demo and the tests; V=1
# prints every command in full instead (`make V=1 test`; .ci/run does, so
# that a log read alone has the flags). Errors show either way: the
# compiler's own message names the file and the line, and make names the
# target that failed.
ifeq ($(V),1)
Q    :=
say   = @:
else
Q    := @
say   = @printf '  %-7s %s\n' '$(1)' '$(2)'
endif

# Builds run in parallel, a job per CPU (make's own -j when given one);
# the programs and tests they build then run alone. $(call built,TARGETS)
# in a recipe builds TARGETS so, through a sub-make, before the rest of it
# (the + hands it make's job slots under -j, which make cannot see through
# $(call)).
NPROC := $(shell nproc 2>/dev/null || echo 2)
PAR    = $(if $(filter -j%,$(MAKEFLAGS)),,-j$(NPROC))
built  = @+$(MAKE) --no-print-directory $(PAR) TARGETS='$(1)' built-targets

# stb's headers come from <stb/...> in the system include path (no -I to
# them): as system headers their own warnings do not trip -Werror.
CPPFLAGS := $(filter-out -I/usr/include/stb,$(DEP_CFLAGS))

# The library, folder by folder from the bottom up (docs/architecture.md):
# core, pe, model, text, run, experiments (with its page/), plot, figures.
LIB_SRC  := $(sort $(wildcard src/*/*.c src/*/*/*.c))
LIB_HDR  := $(wildcard src/*/*.h src/*/*/*.h)
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/obj/%.o)
LIB      := $(BUILD)/libposenc.a

# Every examples/NAME.c is a program, but the code they share, cli*.c: the
# options (cli.c) and the files a program writes (cli_outputs.c).
# examples/one_file/encoder.c, the encoder in one file, is no program: it
# builds alone (its first lines say how), and tests/test_one_file.c builds it
CLI_SRC  := $(sort $(wildcard examples/cli*.c))
CLI_OBJ  := $(CLI_SRC:%.c=$(BUILD)/obj/%.o)
PROGRAMS := $(filter-out $(basename $(notdir $(CLI_SRC))),$(basename $(notdir $(wildcard examples/*.c))))
PROG_BIN := $(PROGRAMS:%=$(BUILD)/%)
# cli.c knows the programs' names, so that "train --out" in another
# program's help is told from that program's own options (src/core/options.h)
$(BUILD)/obj/examples/cli.o: CPPFLAGS += -DCLI_PROGRAMS='"$(PROGRAMS)"'

TEST_SRC := $(sort $(wildcard tests/*.c))
# The page's C files too, built natively: the tests call its entry points
# as the page does (web/pw.h).
TEST_OBJ := $(TEST_SRC:%.c=$(BUILD)/obj/%.o) \
	$(patsubst %.c,$(BUILD)/obj/%.o,$(sort $(wildcard web/*.c)))
TEST_BIN := $(BUILD)/run_tests
# The programs the suites run: examples/'s, and floor's command line
TEST_PROGS := $(PROG_BIN) $(BUILD)/floor

.PHONY: all demo fixtures test check sanitize fuzz bench longbench floor products clean help deps experiments benchmark web webtest \
	gridtest built-targets FORCE
# Keep the objects of the programs: make would delete them as intermediates.
.SECONDARY:

# The library and the programs need OpenBLAS, SLEEF and stb; only the tests
# link Check.
PROG_LIBS := $(BLAS_LIBS) $(SLEEF_LIBS) $(STB_LIBS) -lm
TEST_LIBS := $(PROG_LIBS) $(CHECK_LIBS)

all: FORCE ## build the library and every program into build/
	$(call built,$(LIB) $(PROG_BIN))

# (the recipe keeps make from saying "is up to date" of each target)
built-targets: $(TARGETS)
	@:

$(CONFIG): scripts/deps.sh
	@mkdir -p $(@D)
	$(call say,DEPS,$@)
	$(Q)scripts/deps.sh > $@.tmp
	@mv $@.tmp $@

deps: $(CONFIG) ## check for (and install) the Debian packages the build needs

$(BUILD)/obj/%.o: %.c $(CONFIG)
	@mkdir -p $(@D)
	$(call say,CC,$<)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(OMP_FLAGS) -c $< -o $@

$(LIB): $(LIB_OBJ)
	@rm -f $@
	$(call say,AR,$@)
	$(Q)ar rcs $@ $^

$(BUILD)/%: $(BUILD)/obj/examples/%.o $(CLI_OBJ) $(LIB)
	$(call say,LD,$@)
	$(Q)$(CC) $(CFLAGS) $(OMP_FLAGS) $(LDFLAGS) $^ -o $@ $(PROG_LIBS)

$(TEST_BIN): $(TEST_OBJ) $(LIB)
	$(call say,LD,$@)
	$(Q)$(CC) $(CFLAGS) $(OMP_FLAGS) $(LDFLAGS) $^ -o $@ $(TEST_LIBS)

# The benchmark (bench/README.md): not part of make test.
$(BUILD)/bench: $(BUILD)/obj/bench/bench.o $(LIB)
	$(call say,LD,$@)
	$(Q)$(CC) $(CFLAGS) $(OMP_FLAGS) $(LDFLAGS) $^ -o $@ $(PROG_LIBS)

# PyTorch (Debian's python3-torch) is installed on first use, like the
# other tools; torch_ref.py runs build/bench and times PyTorch's four thread
# settings, taking turns (bench/README.md).
build/bench-deps.ok: scripts/deps.sh
	@mkdir -p $(@D)
	scripts/deps.sh bench
	@touch $@

bench: $(BUILD)/bench build/bench-deps.ok ## speed and memory against OpenBLAS sgemm and PyTorch
	/usr/bin/python3 bench/torch_ref.py $(BUILD)/bench | tee $(BUILD)/bench.txt

# floor parses its options as the programs do (examples/cli.c)
$(BUILD)/floor: $(BUILD)/obj/bench/floor.o $(CLI_OBJ) $(LIB)
	$(call say,LD,$@)
	$(Q)$(CC) $(CFLAGS) $(OMP_FLAGS) $(LDFLAGS) $^ -o $@ $(PROG_LIBS)

# The forward pass on long tapes beside PyTorch's (bench/long_forward.py):
# make longbench, after make bench's PyTorch
$(BUILD)/long_forward: $(BUILD)/obj/bench/long_forward.o $(CLI_OBJ) $(LIB)
	$(call say,LD,$@)
	$(Q)$(CC) $(CFLAGS) $(OMP_FLAGS) $(LDFLAGS) $^ -o $@ $(PROG_LIBS)

longbench: $(BUILD)/long_forward $(BUILD)/train $(BUILD)/encode build/bench-deps.ok ## the forward pass at T = 25, 100, 400 against PyTorch, one thread (bench/README.md)
	env -u OPENBLAS_CORETYPE /usr/bin/python3 bench/long_forward.py $(BUILD)

# How near a cell comes to the arithmetic floor (bench/floor.c): its CPU
# seconds on one thread, the GFLOP of its products counted from their
# shapes, one core's sgemm peak on the pinned kernels measured in the same
# run, and the fraction. CELL as for make products below; PAPER=1 trains it
# at Ruoss et al.'s size; REPEAT=N runs it N times and keeps the least
# disturbed figures.
floor: $(BUILD)/floor ## a cell's time against its arithmetic floor (CELL=ID, PAPER=1, REPEAT=N, SET=K=V,...; bench/README.md)
	env -u OPENBLAS_CORETYPE OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 \
		$(BUILD)/floor $(CELL) $(if $(PAPER),--paper-size) $(if $(REPEAT),--repeat $(REPEAT)) \
		$(if $(SET),--set $(SET))

# A cell's matrix products, counted (bench/sgemm_count.c, loaded before
# OpenBLAS): calls, GFLOP and seconds of the small ones (attention's
# per-head products) and of the others, on one thread as the grid runs a
# cell. CELL names the cell (experiments --list shows them); a cell of the
# benchmark's grid (bench-..., experiments --bench --list) runs as that
# grid's, with --bench, and --all-schemes for the schemes only that one has;
# QUICK=1 counts the quick grid's cell of that name (a few seconds).
CELL ?= lengths-reverse-none-s1
$(BUILD)/sgemm_count.so: bench/sgemm_count.c $(CONFIG)
	$(call say,CC,$<)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -fPIC -shared $< -o $@ -ldl

products: $(BUILD)/sgemm_count.so $(BUILD)/experiments ## count one cell's matrix products (CELL=ID; bench/README.md)
	@grid=; case '$(CELL)' in bench-*) grid=--bench; \
		$(BUILD)/experiments --bench $(if $(QUICK),--quick) --list | grep -qx -- '$(CELL)' || \
		grid='--bench --all-schemes';; esac; \
	out=$$(env -u OPENBLAS_CORETYPE OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 \
		LD_PRELOAD=$(abspath $(BUILD))/sgemm_count.so \
		$(BUILD)/experiments $$grid $(if $(QUICK),--quick) --cell $(CELL) --cells - 2>&1 >/dev/null) || \
		{ echo "$$out"; exit 1; }; echo "$$out"; \
	case "$$out" in *"sgemm_count large"*) ;; \
		*) echo "no counts: $(BUILD)/sgemm_count.so was not loaded"; exit 1;; esac

# What a scheme added to the registry (or a command changed on a page)
# changes elsewhere, written by one program (tests/regen/regen.c): the
# rows of tests/reference/first_draws.txt of a scheme that has none (a row
# there is never rewritten), and the counts of runs and schemes in
# README.md and docs/*.md (tests/docs_count.h). The tests that check them
# name this target when they fail.
REGEN_OBJ := $(addprefix $(BUILD)/obj/tests/,regen/regen.o docs_count.o docs_pages.o first_draws.o)
$(BUILD)/regen: $(REGEN_OBJ) $(LIB)
	$(CC) $(CFLAGS) $(OMP_FLAGS) $(LDFLAGS) $^ -o $@ $(PROG_LIBS)

fixtures: FORCE ## write the first draws' rows of a new scheme and the docs' counts of schemes and runs
	$(call built,$(BUILD)/regen)
	$(BUILD)/regen

demo: FORCE ## build every program, then run build/demo_order on its default sentences
	$(call built,$(LIB) $(PROG_BIN))
	@$(BUILD)/demo_order

# The experiments of docs/results.md, as cells (docs/experiments.md), with
# the kernels the docs are made with (the programs' own choice, below). QUICK=1 runs the
# same pipeline on tiny settings into build/experiments-quick/ (what CI
# runs); the full run rewrites docs/results.md, docs/results/ and
# docs/img/results/. JOBS=N cells at once (default: the CPUs), SEEDS=N
# seeds; HOSTS=FILE first runs the missing cells on the machines of FILE
# (GNU parallel's --sshloginfile; each with this project built at the same
# commit in REMOTE_DIR, default this directory's path) and stores each
# record here as it comes back (scripts/grid_hosts.sh: a machine that does
# not answer is named and left out; with cells left, make stops there).
CELLS_DIR  = $(if $(QUICK),$(BUILD)/cells-quick,$(BUILD)/cells)
EXP_SET    = $(if $(QUICK),--quick) $(if $(SEEDS),--seeds $(SEEDS))
# the page goes where the program puts its grid's page (src/experiments/
# grid.h: docs for the standard grids, a folder of its own under build/ for
# any other: build/experiments-seeds-12)
EXP_ARGS   = $(EXP_SET) --cells $(CELLS_DIR) $(if $(JOBS),--jobs $(JOBS))
REMOTE_DIR ?= $(CURDIR)
experiments: $(BUILD)/experiments $(if $(HOSTS),build/grid-deps.ok) ## run the experiments of docs/results.md as cells (QUICK=1, JOBS=N, HOSTS=FILE)
ifneq ($(HOSTS),)
	scripts/grid_hosts.sh $(HOSTS) $(BUILD)/experiments $(CELLS_DIR) \
		$(REMOTE_DIR) $(EXP_SET)
endif
	$(BUILD)/experiments $(EXP_ARGS)

# The benchmark of docs/benchmark.md (not make bench, the speed test
# above): Deletang et al.'s tasks on Ruoss et al.'s protocol, every scheme
# and the randomized forms, a grid of cells of its own (experiments --bench,
# docs/experiments.md) run as the experiments' are, with the same QUICK=1,
# JOBS=N, SEEDS=N and HOSTS=FILE. QUICK=1 runs it on tiny settings into
# build/benchmark-quick/ (what CI runs); the full run rewrites
# docs/benchmark.md, docs/benchmark/ and docs/img/benchmark/. Its cells are
# results as data, committed in docs/benchmark/cells/: the page is rebuilt
# from them whatever build made them (each names its own), and only the
# cells missing run (RETRAIN=1 runs again those another build made). The
# quick grid's cells go to build/cells-bench-quick, and the hosts are given
# --bench with the other settings, so that they list, run and store the
# benchmark's cells. SET='K=V,...' changes the protocol (experiments --set),
# its cells and page in build/cells-bench-set and build/benchmark-set (with
# QUICK=1, build/cells-bench-quick-set and build/benchmark-quick-set). ALL=1
# adds the registry's other schemes (--all-schemes), the page into
# build/benchmark-all/ (with QUICK=1, build/benchmark-all-quick/); SEEDS=N,
# its page into build/benchmark-seeds-N/: a page is never written over
# another grid's (src/experiments/grid.h). The committed folder holds the
# standard grid alone, whole (CI's referee checks it): the full grid's
# ALL=1 and SEEDS=N keep their cells in build/cells-bench-all and
# build/cells-bench-seeds (the program's folders, src/experiments/
# places.c), each started, when it is new, with a copy of the committed
# cells, the same files, so that only the cells the standard run lacks
# train. FROM_CELLS=1 trains nothing: the page from the cells alone, a cell
# missing or damaged named and make stopped (what CI runs on the committed
# cells).
BENCH_SEEDS_DEFAULT = $(if $(QUICK),2,3)
BENCH_OWN   = $(if $(ALL),$(BUILD)/cells-bench-all,$(if $(filter-out $(BENCH_SEEDS_DEFAULT),$(SEEDS)),$(BUILD)/cells-bench-seeds))
BENCH_CELLS = $(if $(SET),$(BUILD)/cells-bench$(if $(QUICK),-quick)-set,$(if $(QUICK),$(BUILD)/cells-bench-quick,$(if $(BENCH_OWN),$(BENCH_OWN),docs/benchmark/cells)))
BENCH_SET   = --bench $(EXP_SET) $(if $(ALL),--all-schemes) $(if $(SET),--set '$(SET)')
BENCH_ARGS  = $(BENCH_SET) --cells $(BENCH_CELLS) $(if $(JOBS),--jobs $(JOBS)) $(if $(RETRAIN),--retrain) \
	$(if $(FROM_CELLS),--from-cells)
benchmark: $(BUILD)/experiments $(if $(HOSTS),build/grid-deps.ok) ## Deletang et al.'s tasks: docs/benchmark.md from its committed cells (QUICK=1, JOBS=N, HOSTS=FILE, ALL=1, SET=..., RETRAIN=1, FROM_CELLS=1)
ifneq ($(if $(SET)$(QUICK),,$(BENCH_OWN)),)
	$(Q)[ -e $(BENCH_CELLS) ] || { mkdir -p $(BENCH_CELLS) && \
		cp -p docs/benchmark/cells/grid.settings docs/benchmark/cells/*.cell $(BENCH_CELLS)/; }
endif
ifneq ($(HOSTS),)
	scripts/grid_hosts.sh $(HOSTS) $(BUILD)/experiments $(BENCH_CELLS) \
		$(REMOTE_DIR) $(BENCH_SET)
endif
	$(BUILD)/experiments $(BENCH_ARGS)

# GNU parallel, for HOSTS= (and sshd for make gridtest's remote host).
build/grid-deps.ok: scripts/deps.sh
	@mkdir -p $(@D)
	scripts/deps.sh grid
	@touch $@

# The cells' pipeline end to end on the quick grid (tests/grid_test.sh):
# JOBS=1 and JOBS=2 give the same page, byte for byte; a run killed halfway
# goes on; a second run on one page is refused; a killed publishing is
# finished; nohup, a TERM while publishing, a read-only folder, a FIFO;
# and the grid through ssh to an sshd on localhost (beside hosts that do
# not answer) gives the same page again.
gridtest: $(BUILD)/experiments build/grid-deps.ok ## the cells' pipeline, killed and resumed, and over ssh
	tests/grid_test.sh $(BUILD)

# The sources the experiments were built from: a cell made by other
# sources is run again, and a record from a machine built from other
# sources refused. The hash of the names and contents of the C files of
# src/ and examples/ as they are on disk (committed or not, in a git work
# tree or an unpacked archive alike), less the files that only write the
# page from the cells (PAGE_ONLY, by folder: the page writer in
# src/experiments/page/, the statistics it uses, src/stats/, and the
# pictures' src/plot/; a change to the page's prose, tests or figures runs
# no cell again) and examples/one_file/, the encoder in one file, which no
# program is built from. The same sources give the same id
# committed or not, so cells made before a commit stay done after it. No C
# file found means no id: the build stops (an empty hash would be one
# constant for every source, and old cells would count as done).
PAGE_ONLY = src/experiments/page/ src/stats/ src/plot/
NOT_BUILT = examples/one_file/
SOURCE_ID = $(shell find src examples -type f -name '*.[ch]' \
	$(PAGE_ONLY:%=! -path '%*') $(NOT_BUILT:%=! -path '%*') -print0 2>/dev/null | LC_ALL=C sort -z \
	| xargs -0 -r sha1sum 2>/dev/null | sha1sum | cut -c1-12)
$(BUILD)/source_id.h: FORCE
	@mkdir -p $(@D)
	@if [ -z "$$(find src examples -type f -name '*.[ch]' 2>/dev/null | head -n 1)" ]; then \
		echo "make: no C files under src/ and examples/: cannot name the sources" \
			"(run make from the project's top folder)" >&2; exit 1; fi
	@echo '#define POSENC_SOURCE_ID "$(SOURCE_ID)"' > $@.tmp
	@if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi
$(BUILD)/obj/examples/experiments.o: $(BUILD)/source_id.h
$(BUILD)/obj/examples/experiments.o: CPPFLAGS += -include $(BUILD)/source_id.h
FORCE:

# The suites find the programs through POSENC_BIN; Check forks every test,
# and its timeout is raised for the sanitizer build. OpenBLAS's kernels
# each round differently, and a trained model's numbers drift apart over
# its steps; the docs show runs with the Haswell kernels, which the
# programs ask for themselves wherever the CPU has AVX2 and the user set no
# OPENBLAS_CORETYPE (src/model/kernels.h). The tests run with it unset, so
# that they check what a learner who types the pages' commands sees. The
# thread count changes no number (src/model/matmul.c); the tests fix it at
# 2 (OMP_NUM_THREADS, which OpenBLAS's OpenMP build follows too) so that
# they run alike on a busy machine; a test that wants the defaults unsets
# it.
BLAS_ENV := env -u OPENBLAS_CORETYPE OMP_NUM_THREADS=2 OPENBLAS_NUM_THREADS=2
# make test runs every check but the slow ones (tagged "slow" in tests/:
# the docs' commands rerun, the long trainings), one line per suite as it
# ends, the tests' own output in build/test-K.log; make check runs the
# slow ones. .ci/run runs both.
TEST_RUN = $(BLAS_ENV) POSENC_BIN=$(BUILD) CK_DEFAULT_TIMEOUT=$(TEST_TIMEOUT) $(TEST_BIN)
# TEST_RUNNERS runners at once (default: the CPUs), sharing the suites:
# each takes the next suite no runner has claimed in build/test-claims/,
# the heaviest first, and prints a line as each ends; its tests' own output
# in build/test-K.log; one summary at the end. Several runners run a
# thread each, as make check's do.
TEST_RUNNERS ?= $(NPROC)
test: FORCE ## build and run the Check suites but the slow checks (about two minutes)
	$(call built,$(TEST_BIN) $(TEST_PROGS))
	$(Q)rm -rf $(BUILD)/test-claims $(BUILD)/test-*.result && mkdir -p $(BUILD)/test-claims
	$(Q)n=$(TEST_RUNNERS); pids=; k=0; t0=$$(date +%s); while [ $$k -lt $$n ]; do \
		POSENC_SUITE_CLAIMS=$(BUILD)/test-claims POSENC_TEST_RESULT=$(BUILD)/test-$$k.result \
		$(TEST_RUN:$(TEST_BIN)=CK_EXCLUDE_TAGS=slow \
		$(if $(filter-out 1,$(TEST_RUNNERS)),OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1) \
		POSENC_TEST_LOG=$(BUILD)/test-$$k.log $(TEST_BIN)) & \
		pids="$$pids $$!"; k=$$((k + 1)); done; \
	for p in $$pids; do wait $$p; done; \
	cat $(BUILD)/test-*.result 2>/dev/null | awk -v n=$$n -v s=$$(( $$(date +%s) - t0 )) \
		-v logs="$(BUILD)/test-*.log" '{ run += $$1; failed += $$2; k++ } END { \
		if (k < n) { print "make test: " n - k " of " n " runners ended without a result"; exit 1 } \
		printf "%d of %d checks %s in %d s (%d runners); the tests'"'"' own output is in %s\n", \
			failed ? failed : run, run, failed ? "FAILED" : "passed", s, n, logs; exit failed > 0 }'

# The slow checks in CHECK_RUNNERS runners at once (default: the CPUs),
# sharing the docs' pages (each takes the next page no runner has claimed
# in build/check-claims/; the first, POSENC_SHARD=0/N, runs the other slow
# suites too), each its own log, build/check-K.log. The pages' work/ is
# build/docs-work/, emptied first: a run reads no file of an earlier one.
# Several runners run a thread each (no number depends on it): two threads
# each would wait for each other spinning on a machine they share.
CHECK_RUNNERS ?= $(NPROC)
CHECK_RUN = $(BLAS_ENV) $(if $(filter-out 1,$(CHECK_RUNNERS)),OMP_NUM_THREADS=1 \
	OPENBLAS_NUM_THREADS=1) POSENC_BIN=$(BUILD) CK_DEFAULT_TIMEOUT=$(TEST_TIMEOUT) \
	CK_INCLUDE_TAGS=slow $(CHECK_ONLY)
check: FORCE ## the slow checks: every command of the docs, the long trainings
	$(call built,$(TEST_BIN) $(TEST_PROGS))
	@rm -rf $(BUILD)/check-claims $(BUILD)/docs-work && mkdir -p $(BUILD)/check-claims
	@n=$(CHECK_RUNNERS); pids=; k=0; while [ $$k -lt $$n ]; do \
		POSENC_SHARD=$$k/$$n POSENC_CLAIMS=$(BUILD)/check-claims \
		POSENC_DOCS_WORK=$(BUILD)/docs-work \
		POSENC_TEST_LOG=$(BUILD)/check-$$k.log $(CHECK_RUN) $(TEST_BIN) & \
		pids="$$pids $$!"; k=$$((k + 1)); done; \
	rc=0; for p in $$pids; do wait $$p || rc=1; done; exit $$rc

TEST_TIMEOUT ?= 60

# The sanitizers where they find bugs: every unit suite (the cell and
# checkpoint readers among them), and the docs' commands of SAN_PAGES, a
# sample that runs every program and its error paths (the other pages
# train models, which the unit suites' trainings already cover); make check
# runs every page once, unsanitized.
SAN := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
# The library answers a failed allocation with an error, and the tests ask
# for impossible sizes to see it: ASan must return NULL there, not abort.
sanitize: export ASAN_OPTIONS := allocator_may_return_null=1
SAN_PAGES := README.md docs/01-order-blind.md docs/02-naive-positions.md docs/formats.md \
	docs/reference.md docs/pictures.md
sanitize: $(CONFIG) ## the unit suites and a sample of the docs' commands under AddressSanitizer + UBSan
	$(MAKE) --no-print-directory BUILD=build/san EXTRA_CFLAGS="$(SAN)" EXTRA_LDFLAGS="$(SAN)" \
		TEST_TIMEOUT=600 test
	$(MAKE) --no-print-directory BUILD=build/san EXTRA_CFLAGS="$(SAN)" EXTRA_LDFLAGS="$(SAN)" \
		TEST_TIMEOUT=600 CHECK_RUNNERS=1 \
		CHECK_ONLY='CK_RUN_SUITE=docs POSENC_DOCS_PAGES="$(SAN_PAGES)"' check

# Fuzzing with clang's libFuzzer: each tests/fuzz/fuzz_NAME.c defines
# LLVMFuzzerTestOneInput and becomes build/fuzz/fuzz_NAME, linked by clang
# with the library's sources compiled once by clang into build/fuzz/obj/
# (not the gcc archive: every function carries the coverage
# instrumentation the fuzzer steers by, -fsanitize=fuzzer-no-link).
# `make fuzz` runs each for FUZZ_SECONDS, a job per CPU, from a corpus
# seeded with data/*.txt and the files in tests/fuzz/seeds/fuzz_NAME/ and
# tests/fuzz/regressions/fuzz_NAME/, with the dictionary
# tests/fuzz/fuzz_NAME.dict if there is one; a crash stops make and leaves
# its input in build/fuzz/artifacts/.
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZ_SRC     := $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZ_BIN     := $(FUZZ_SRC:tests/fuzz/%.c=build/fuzz/%)
FUZZ_OBJ     := $(LIB_SRC:%.c=build/fuzz/obj/%.o)
# FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION lets the checkpoint loader skip
# its checksum, which a fuzzer cannot forge, to reach the checks behind it.
FUZZ_FLAGS   := -std=c11 -O1 -g $(WARN) -fno-sanitize-recover=all -fno-omit-frame-pointer \
		-DFUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
FUZZ_SAN     := address,undefined
# -max_len above DATA_MAX_LINE, so the fuzzer reaches the over-long line
FUZZ_OPTIONS := -max_len=16384 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1

# clang and its fuzzer runtime are only needed here: checked on first use.
build/fuzz/.deps: scripts/deps.sh
	@mkdir -p $(@D)
	scripts/deps.sh fuzz
	@touch $@

build/fuzz/obj/%.o: %.c $(CONFIG) build/fuzz/.deps
	@mkdir -p $(@D)
	$(call say,CC,$<)
	$(Q)$(FUZZ_CC) $(CPPFLAGS) $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link,$(FUZZ_SAN) -MMD -MP \
		-c $< -o $@

build/fuzz/libposenc.a: $(FUZZ_OBJ)
	@rm -f $@
	$(call say,AR,$@)
	$(Q)ar rcs $@ $^

# (fuzz_cli.c includes examples/cli.c, hence its prerequisites)
build/fuzz/fuzz_%: tests/fuzz/fuzz_%.c build/fuzz/libposenc.a examples/cli.c examples/cli.h
	$(call say,LD,$@)
	$(Q)$(FUZZ_CC) $(CPPFLAGS) $(FUZZ_FLAGS) -fsanitize=fuzzer,$(FUZZ_SAN) $< \
		build/fuzz/libposenc.a -o $@ $(PROG_LIBS)

# One target's run (build/fuzz/fuzz_NAME.run, never a file): make fuzz runs
# them a job per CPU.
build/fuzz/%.run: build/fuzz/%
	@name=$*; corpus=build/fuzz/corpus/$$name; \
	mkdir -p $$corpus build/fuzz/artifacts; \
	cp data/*.txt $$corpus/; \
	for dir in tests/fuzz/seeds/$$name tests/fuzz/regressions/$$name; do \
		if [ -d $$dir ]; then find $$dir -type f -exec cp {} $$corpus/ \; ; fi; \
	done; \
	dict=; [ -f tests/fuzz/$$name.dict ] && dict=-dict=tests/fuzz/$$name.dict; \
	echo "fuzz: $$name for $(FUZZ_SECONDS) s"; \
	nice build/fuzz/$$name $(FUZZ_OPTIONS) $$dict -max_total_time=$(FUZZ_SECONDS) \
		-artifact_prefix=build/fuzz/artifacts/$$name- $$corpus \
		> build/fuzz/$$name.log 2>&1 || { tail -40 build/fuzz/$$name.log; exit 1; }; \
	tail -n 3 build/fuzz/$$name.log | sed "s/^/  $$name: /"

fuzz: FORCE ## run each libFuzzer target FUZZ_SECONDS (default 60) s, a job per CPU
	$(call built,$(FUZZ_BIN))
	$(call built,$(FUZZ_BIN:%=%.run))

-include $(shell find build/fuzz/obj -name '*.d' 2>/dev/null)

# The web page (web/README.md): the library and web/posenc_web.c and
# posenc_train.c built to WebAssembly by Debian's Emscripten into build/web/,
# beside web/index.html and its scripts. OpenBLAS has no WebAssembly build:
# -DPOSENC_NO_BLAS makes matmul() the float loops of matmul_loops, which
# -msimd128 lets clang vectorize. Only what the page runs is built: core,
# pe, model, text, and from run the order demo, the session and the
# checkpoints (in Emscripten's in-memory files; no PNG). -O2 and never
# -ffast-math, as above. MODULARIZE + EXPORT_ES6 make posenc.js an ES module
# that app.js and the training worker import (ENVIRONMENT web,worker); it
# fetches posenc.wasm beside it over HTTP (a page opened as a file://
# cannot fetch it: serve build/web). FS is exported for the worker's
# checkpoints. Debian's emcc runs its JavaScript tools with the node on
# PATH; Debian's node finds Debian's node-acorn in /usr/share/nodejs by
# itself, a node from elsewhere needs NODE_PATH.
WEB       := build/web
WEB_SRC   := $(sort $(wildcard src/core/*.c src/pe/*.c src/model/*.c src/text/*.c)) \
	src/run/orderdemo.c src/run/session.c src/run/session_data.c src/run/fresh.c \
	src/run/evaluation.c src/run/positions.c \
	src/run/checkpoint.c src/run/checkpoint_legacy.c \
	src/run/checkpoint_read.c src/run/train_options.c web/posenc_web.c \
	web/posenc_train.c web/posenc_shift.c web/posenc_form.c
WEB_PAGE  := $(addprefix $(WEB)/,index.html app.js draw.js shift.js train.js train_worker.js)
EMCC      := env NODE_PATH=/usr/share/nodejs$${NODE_PATH:+:$$NODE_PATH} emcc
EM_FLAGS  := -std=c11 -O2 -msimd128 $(WARN) -DPOSENC_NO_BLAS
EM_LINK   := -sMODULARIZE=1 -sEXPORT_ES6=1 -sEXPORT_NAME=createPosenc -sENVIRONMENT=web,worker \
	-sALLOW_MEMORY_GROWTH=1 -sEXPORTED_FUNCTIONS=_malloc,_free \
	-sEXPORTED_RUNTIME_METHODS=ccall,cwrap,UTF8ToString,FS

build/web-deps.ok: scripts/deps.sh
	@mkdir -p $(@D)
	scripts/deps.sh web
	@touch $@

$(WEB)/posenc.js: $(WEB_SRC) $(LIB_HDR) $(wildcard web/*.h) build/web-deps.ok
	@mkdir -p $(@D)
	$(call say,EMCC,$@)
	$(Q)$(EMCC) $(EM_FLAGS) $(WEB_SRC) -o $@ $(EM_LINK)

$(WEB)/%: web/%
	@mkdir -p $(@D)
	cp $< $@

web: $(WEB)/posenc.js $(WEB_PAGE) ## the page, in build/web/ (serve it: python3 -m http.server --bind 127.0.0.1 -d build/web)

# build/train-plain: build/train on the page's products (matmul_loops, no
# OpenBLAS, no SLEEF, one thread), natively; webtest holds the page's
# training to it to the last digit, and to build/train within the rounding
# of OpenBLAS's products (web/README.md).
PLAIN_SRC := $(sort $(wildcard src/core/*.c src/pe/*.c src/model/*.c src/text/*.c)) \
	src/run/checkpoint.c src/run/checkpoint_legacy.c src/run/checkpoint_read.c \
	src/run/train_options.c src/run/session.c src/run/session_data.c src/run/fresh.c \
	src/run/evaluation.c src/run/positions.c \
	src/run/outputs.c examples/train.c $(CLI_SRC)
$(BUILD)/train-plain: $(PLAIN_SRC) $(LIB_HDR) $(wildcard examples/*.h)
	@mkdir -p $(@D)
	$(call say,CC,$@)
	$(Q)$(CC) -std=c11 -O2 $(WARN) -DPOSENC_NO_BLAS $(PLAIN_SRC) -o $@ -lm

# The page in headless Chromium against build/demo_order and
# build/pe_report (web/webtest.py says how, and why Python's standard
# library drives it), and section 5, training, against build/train,
# build/evaluate and build/encode (web/webtest_train.py);
# it saves a screenshot of each section in build/web/shots/.
build/webtest-deps.ok: scripts/deps.sh
	@mkdir -p $(@D)
	scripts/deps.sh webtest
	@touch $@

webtest: web $(BUILD)/demo_order $(BUILD)/pe_report $(BUILD)/train $(BUILD)/evaluate $(BUILD)/encode $(BUILD)/train-plain build/webtest-deps.ok ## the page in headless Chromium, against the programs
	$(BLAS_ENV) python3 web/webtest.py --page $(WEB) --demo $(BUILD)/demo_order --bin $(BUILD) \
		--shots $(WEB)/shots

clean: ## remove build/
	rm -rf build

help: ## list the targets
	@awk -F ':.*## ' '/^[a-z]+:.*## / { printf "  make %-10s %s\n", $$1, $$2 }' $(MAKEFILE_LIST)
	@echo "  V=1 after any of them prints the build's commands in full (make V=1 test)"

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
