# posenc: a transformer encoder in C that teaches positional encoding.
#
#   make            build the library and every program into build/
#   make demo       run build/demo_order on its default sentences
#   make test       build and run the Check suites (and the docs test)
#   make sanitize   the whole test suite under AddressSanitizer + UBSan
#   make bench      speed and memory against OpenBLAS sgemm (and PyTorch)
#   make fuzz       run each libFuzzer target FUZZ_SECONDS (default 60) s
#   make clean      remove build/
#
# The first run checks for OpenBLAS, Check and stb with pkg-config
# (scripts/deps.sh) and installs the missing Debian packages; the flags it
# finds are kept in build/config.mk.

# -O3 (it vectorizes the elementwise loops -O2 leaves scalar), never -Ofast
# or -ffast-math: those allow the compiler to break
# IEEE semantics (erf-based GELU and NaN checks among the casualties).
CC      ?= cc
WARN    := -Wall -Wextra -Wpedantic -Werror
CFLAGS  := -std=c11 -O3 -g $(WARN) -MMD -MP $(EXTRA_CFLAGS)
LDFLAGS := $(EXTRA_LDFLAGS)

# Objects and programs land in $(BUILD); `make sanitize` uses a second tree
# so the two builds never mix.
BUILD   ?= build
CONFIG  := build/config.mk

ifeq ($(filter clean help,$(MAKECMDGOALS)),)
include $(CONFIG)
endif

# stb's headers come from <stb/...> in the system include path (no -I to
# them): as system headers their own warnings do not trip -Werror.
CPPFLAGS := $(filter-out -I/usr/include/stb,$(DEP_CFLAGS))

LIB_SRC  := $(sort $(wildcard src/model/*.c src/pe/*.c src/plot/*.c))
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/obj/%.o)
LIB      := $(BUILD)/libposenc.a

CLI_OBJ  := $(BUILD)/obj/examples/cli.o
PROGRAMS := $(filter-out cli,$(basename $(notdir $(wildcard examples/*.c))))
PROG_BIN := $(PROGRAMS:%=$(BUILD)/%)

TEST_SRC := $(sort $(wildcard tests/*.c))
TEST_OBJ := $(TEST_SRC:%.c=$(BUILD)/obj/%.o)
TEST_BIN := $(BUILD)/run_tests

.PHONY: all demo test sanitize fuzz bench clean help deps
# Keep the objects of the programs: make would delete them as intermediates.
.SECONDARY:

all: $(LIB) $(PROG_BIN)

$(CONFIG): scripts/deps.sh
	@mkdir -p $(@D)
	scripts/deps.sh > $@.tmp
	@mv $@.tmp $@

deps: $(CONFIG)

$(BUILD)/obj/%.o: %.c $(CONFIG)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@

$(LIB): $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/%: $(BUILD)/obj/examples/%.o $(CLI_OBJ) $(LIB)
	$(CC) $(CFLAGS) $(LDFLAGS) $^ -o $@ $(DEP_LIBS) -lm

$(TEST_BIN): $(TEST_OBJ) $(LIB)
	$(CC) $(CFLAGS) $(LDFLAGS) $^ -o $@ $(DEP_LIBS) -lm

# The benchmark (bench/README.md): not part of make test.
$(BUILD)/bench: $(BUILD)/obj/bench/bench.o $(LIB)
	$(CC) $(CFLAGS) $(LDFLAGS) $^ -o $@ $(DEP_LIBS) -lm

bench: $(BUILD)/bench
	$(BUILD)/bench | tee $(BUILD)/bench.txt
	@if /usr/bin/python3 -c 'import torch' 2>/dev/null; then \
		/usr/bin/python3 bench/torch_ref.py $(BUILD)/bench.txt; \
	else echo "bench: python3-torch is not installed; skipping the PyTorch comparison"; fi

demo: $(BUILD)/demo_order
	@$(BUILD)/demo_order

# The suites find the programs through POSENC_BIN; Check forks every test,
# and its timeout is raised for the sanitizer build. OpenBLAS picks its
# kernels by CPU and splits its work by thread count, and each choice
# rounds differently: a trained model's numbers then drift apart over its
# steps. The docs show runs with the Haswell kernels (what OpenBLAS 0.3.21
# uses on AVX2 and AMD machines) and 2 threads, so the tests ask for those
# wherever the CPU has AVX2.
BLAS_ENV := OPENBLAS_NUM_THREADS=2 \
	$(if $(shell grep -qw avx2 /proc/cpuinfo 2>/dev/null && echo y),OPENBLAS_CORETYPE=Haswell)
test: $(TEST_BIN) $(PROG_BIN)
	$(BLAS_ENV) POSENC_BIN=$(BUILD) CK_DEFAULT_TIMEOUT=$(TEST_TIMEOUT) $(TEST_BIN)

TEST_TIMEOUT ?= 60

SAN := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
sanitize: $(CONFIG)
	$(MAKE) BUILD=build/san EXTRA_CFLAGS="$(SAN)" EXTRA_LDFLAGS="$(SAN)" \
		TEST_TIMEOUT=600 test

# Fuzzing with clang's libFuzzer: each tests/fuzz/fuzz_NAME.c defines
# LLVMFuzzerTestOneInput and becomes build/fuzz/fuzz_NAME, compiled by clang
# from the library's sources (not the gcc archive, so that every function
# carries the coverage instrumentation the fuzzer steers by). `make fuzz`
# runs each for FUZZ_SECONDS from a corpus seeded with data/*.txt and the
# files in tests/fuzz/seeds/fuzz_NAME/ and tests/fuzz/regressions/fuzz_NAME/,
# with the dictionary tests/fuzz/fuzz_NAME.dict if there is one; a crash
# stops make and leaves its input in build/fuzz/artifacts/.
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZ_SRC     := $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZ_BIN     := $(FUZZ_SRC:tests/fuzz/%.c=build/fuzz/%)
# FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION lets the checkpoint loader skip
# its checksum, which a fuzzer cannot forge, to reach the checks behind it.
FUZZ_CFLAGS  := -std=c11 -O1 -g $(WARN) -fsanitize=fuzzer,address,undefined \
		-fno-sanitize-recover=all -fno-omit-frame-pointer \
		-DFUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
# -max_len above DATA_MAX_LINE, so the fuzzer reaches the over-long line
FUZZ_OPTIONS := -max_len=16384 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1

# clang and its fuzzer runtime are only needed here: checked on first use.
build/fuzz/.deps: scripts/deps.sh
	@mkdir -p $(@D)
	scripts/deps.sh fuzz
	@touch $@

build/fuzz/%: tests/fuzz/%.c $(LIB_SRC) $(wildcard src/*/*.h) $(CONFIG) build/fuzz/.deps
	@mkdir -p $(@D)
	$(FUZZ_CC) $(CPPFLAGS) $(FUZZ_CFLAGS) $< $(LIB_SRC) -o $@ \
		$(filter-out $(CHECK_LIBS),$(DEP_LIBS)) -lm

fuzz: $(FUZZ_BIN)
	@set -e; for bin in $(FUZZ_BIN); do \
		name=$${bin##*/}; corpus=build/fuzz/corpus/$$name; \
		mkdir -p $$corpus build/fuzz/artifacts; \
		cp data/*.txt $$corpus/; \
		for dir in tests/fuzz/seeds/$$name tests/fuzz/regressions/$$name; do \
			if [ -d $$dir ]; then find $$dir -type f -exec cp {} $$corpus/ \; ; fi; \
		done; \
		dict=; [ -f tests/fuzz/$$name.dict ] && dict=-dict=tests/fuzz/$$name.dict; \
		echo "fuzz: $$name for $(FUZZ_SECONDS) s"; \
		nice $$bin $(FUZZ_OPTIONS) $$dict -max_total_time=$(FUZZ_SECONDS) \
			-artifact_prefix=build/fuzz/artifacts/$$name- $$corpus; \
	done

clean:
	rm -rf build

help:
	@sed -n '3,9p' Makefile

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
