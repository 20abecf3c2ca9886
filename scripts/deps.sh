#!/bin/sh
# Finds what the build needs and installs the Debian packages that are
# missing (through sudo when not root; where it cannot, it prints the
# command to run and stops).
#
#   scripts/deps.sh        OpenBLAS (Debian's OpenMP build), Check, stb and SLEEF,
#                          found with pkg-config, DejaVu Sans for the
#                          pictures' text (fonts-dejavu-core), and python3 (a
#                          test runs tests/reference/read_formats.py, which
#                          needs nothing but its standard library); prints
#                          Makefile lines with their flags (the Makefile keeps
#                          them as build/config.mk)
#   scripts/deps.sh fuzz   clang with libFuzzer (for make fuzz)
#   scripts/deps.sh web    Emscripten (for make web only)
#   scripts/deps.sh webtest  Chromium and python3 (for make webtest only)
#   scripts/deps.sh bench  Debian's PyTorch and NumPy for /usr/bin/python3
#                          (bench/torch_ref.py, for make bench only)
#   scripts/deps.sh grid   GNU parallel, and ssh with sshd (make experiments
#                          HOSTS=..., make gridtest)
#
# Everything meant for a person goes to stderr so stdout stays a makefile.
set -eu

# install PACKAGE...: apt-get install, or say how and fail
install() {
    echo "deps: missing Debian packages: $*" >&2
    if [ "$(id -u)" -eq 0 ]; then
        sudo=""
    elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
        sudo="sudo "
    else
        echo "deps: cannot install them without root. Run:" >&2
        echo "    sudo apt-get update && sudo apt-get install -y $*" >&2
        echo "then run make again." >&2
        exit 1
    fi
    if ! command -v apt-get >/dev/null 2>&1; then
        echo "deps: no apt-get on this machine; install $* (or your system's" >&2
        echo "      equivalents) with your package manager, then run make again." >&2
        exit 1
    fi
    echo "deps: running: ${sudo}apt-get update && ${sudo}apt-get install -y $*" >&2
    # apt's own output goes to stderr so it cannot corrupt the makefile
    ${sudo}env DEBIAN_FRONTEND=noninteractive apt-get update -q >&2
    ${sudo}env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$@" >&2
}

# clang can build a libFuzzer target
fuzzer_works() {
    command -v clang >/dev/null 2>&1 || return 1
    dir=$(mktemp -d)
    printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n);\n%s\n' \
        'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { (void)d; (void)n; return 0; }' \
        > "$dir/t.c"
    ok=0
    clang -fsanitize=fuzzer,address "$dir/t.c" -o "$dir/t" >/dev/null 2>&1 || ok=1
    rm -rf "$dir"
    return $ok
}

# emcc can build a C file to WebAssembly. Debian's emcc runs its tools
# with the node on PATH, which may not look in /usr/share/nodejs where
# Debian keeps node-acorn (see the Makefile's EMCC).
emcc_works() {
    command -v emcc >/dev/null 2>&1 || return 1
    dir=$(mktemp -d)
    printf 'int twice(int x);\nint twice(int x) { return 2 * x; }\n' > "$dir/t.c"
    ok=0
    NODE_PATH=/usr/share/nodejs${NODE_PATH:+:$NODE_PATH} emcc -O2 "$dir/t.c" -o "$dir/t.js" \
        -sEXPORTED_FUNCTIONS=_twice >/dev/null 2>&1 || ok=1
    rm -rf "$dir"
    return $ok
}

if [ "${1:-}" = web ]; then
    if ! emcc_works; then
        install emscripten
        emcc_works || { echo "deps: emcc still cannot build WebAssembly" >&2; exit 1; }
    fi
    exit 0
fi

if [ "${1:-}" = webtest ]; then
    missing=""
    command -v chromium >/dev/null 2>&1 || missing="chromium"
    command -v python3 >/dev/null 2>&1 || missing="$missing python3"
    if [ -n "$missing" ]; then
        # shellcheck disable=SC2086 # one word per package
        install $missing
    fi
    exit 0
fi

if [ "${1:-}" = bench ]; then
    if ! /usr/bin/python3 -c 'import torch, numpy' >/dev/null 2>&1; then
        install python3-torch python3-numpy
    fi
    exit 0
fi

if [ "${1:-}" = grid ]; then
    missing=""
    command -v parallel >/dev/null 2>&1 || missing="parallel"
    command -v ssh >/dev/null 2>&1 || missing="$missing openssh-client"
    [ -x /usr/sbin/sshd ] || missing="$missing openssh-server"
    if [ -n "$missing" ]; then
        # shellcheck disable=SC2086 # one word per package
        install $missing
    fi
    exit 0
fi

if [ "${1:-}" = fuzz ]; then
    if ! fuzzer_works; then
        install clang libclang-rt-14-dev
        fuzzer_works || { echo "deps: clang still cannot build a libFuzzer target" >&2; exit 1; }
    fi
    exit 0
fi

# The project's loops and OpenBLAS share one pool of OpenMP threads
# (docs/architecture.md), so the build links Debian's OpenMP build of
# OpenBLAS, libopenblas-openmp-dev, whatever the system's default is: its
# pkg-config file sits in its own folder, and a run path makes the
# programs load that library rather than the one `update-alternatives`
# selects for libopenblas.so.0 (the pthread build by default, whose
# threads would fight OpenMP's). The system's choice is left alone.
multiarch=$(${CC:-cc} -print-multiarch 2>/dev/null || true)
[ -n "$multiarch" ] || multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)
ompblas=/usr/lib/$multiarch/openblas-openmp

# pkg-config module -> Debian package that provides it
need="check:check stb:libstb-dev sleef:libsleef-dev"
missing=""
command -v pkg-config >/dev/null 2>&1 || missing="pkg-config"
[ -f "$ompblas/pkgconfig/openblas.pc" ] || missing="$missing libopenblas-openmp-dev"
# the pictures' font (src/plot/canvas.c reads it at this path)
font=/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf
[ -f "$font" ] || missing="$missing fonts-dejavu-core"
# the tests' reader of docs/formats.md (tests/test_guard_formats.c)
command -v python3 >/dev/null 2>&1 || missing="$missing python3"
for pair in $need; do
    if ! command -v pkg-config >/dev/null 2>&1 || ! pkg-config --exists "${pair%%:*}"; then
        missing="$missing ${pair#*:}"
    fi
done
if [ -n "$missing" ]; then
    # shellcheck disable=SC2086 # one word per package
    install $missing
    if [ ! -f "$ompblas/pkgconfig/openblas.pc" ]; then
        echo "deps: $ompblas/pkgconfig/openblas.pc is still missing after installing libopenblas-openmp-dev" >&2
        exit 1
    fi
    for pair in $need; do
        if ! pkg-config --exists "${pair%%:*}"; then
            echo "deps: pkg-config still cannot find '${pair%%:*}' after installing ${pair#*:}" >&2
            exit 1
        fi
    done
    if [ ! -f "$font" ]; then
        echo "deps: $font is still missing after installing fonts-dejavu-core" >&2
        exit 1
    fi
    if ! command -v python3 >/dev/null 2>&1; then
        echo "deps: python3 is still missing after installing python3" >&2
        exit 1
    fi
fi

echo "# written by scripts/deps.sh; delete it to check the packages again"
blas_cflags=$(PKG_CONFIG_PATH=$ompblas/pkgconfig pkg-config --cflags openblas)
blas_libs=$(PKG_CONFIG_PATH=$ompblas/pkgconfig pkg-config --libs openblas)
# SLEEF: the softmax's vectorized exp (src/model/vexp.h)
echo "DEP_CFLAGS := $blas_cflags $(pkg-config --cflags check stb sleef) -DPOSENC_SLEEF"
echo "BLAS_LIBS := $blas_libs -Wl,-rpath,$ompblas"
echo "OMP_FLAGS := -fopenmp"
echo "STB_LIBS := $(pkg-config --libs stb)"
echo "SLEEF_LIBS := $(pkg-config --libs sleef)"
echo "CHECK_LIBS := $(pkg-config --libs check)"
