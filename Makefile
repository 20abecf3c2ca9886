# posenc: a transformer encoder in C that teaches positional encoding.
#
#   make            build the library and every program into build/
#   make demo       run build/demo_order on its default sentences
#   make test       build and run the Check suites (and the docs test)
#   make sanitize   the whole test suite under AddressSanitizer + UBSan
#   make clean      remove build/
#
# The first run checks for OpenBLAS, Check and stb with pkg-config
# (scripts/deps.sh) and installs the missing Debian packages; the flags it
# finds are kept in build/config.mk.

# -O2, never -Ofast or -ffast-math: those allow the compiler to break
# IEEE semantics (erf-based GELU and NaN checks among the casualties).
CC      ?= cc
WARN    := -Wall -Wextra -Wpedantic -Werror
CFLAGS  := -std=c11 -O2 -g $(WARN) -MMD -MP $(EXTRA_CFLAGS)
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

.PHONY: all demo test sanitize clean help deps
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

demo: $(BUILD)/demo_order
	@$(BUILD)/demo_order

# The suites find the programs through POSENC_BIN; Check forks every test,
# and its timeout is raised for the sanitizer build.
test: $(TEST_BIN) $(PROG_BIN)
	POSENC_BIN=$(BUILD) CK_DEFAULT_TIMEOUT=$(TEST_TIMEOUT) $(TEST_BIN)

TEST_TIMEOUT ?= 60

SAN := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
sanitize: $(CONFIG)
	$(MAKE) BUILD=build/san EXTRA_CFLAGS="$(SAN)" EXTRA_LDFLAGS="$(SAN)" \
		TEST_TIMEOUT=600 test

clean:
	rm -rf build

help:
	@sed -n '3,9p' Makefile

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
