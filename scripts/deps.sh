#!/bin/sh
# Finds the libraries the build needs through pkg-config and installs the
# Debian packages that are missing. On success it prints Makefile lines with
# the compiler and linker flags (the Makefile includes them as build/config.mk).
# Everything meant for a person goes to stderr so stdout stays a makefile.
set -eu

# pkg-config module -> Debian package that provides it
need="openblas:libopenblas-dev check:check stb:libstb-dev"

missing=""
command -v pkg-config >/dev/null 2>&1 || missing="pkg-config"
for pair in $need; do
    module=${pair%%:*}
    package=${pair#*:}
    if ! command -v pkg-config >/dev/null 2>&1 || ! pkg-config --exists "$module"; then
        missing="$missing $package"
    fi
done

if [ -n "$missing" ]; then
    echo "deps: missing Debian packages:$missing" >&2
    cmd="apt-get install -y$missing"
    if [ "$(id -u)" -eq 0 ]; then
        sudo=""
    elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
        sudo="sudo "
    else
        echo "deps: cannot install them without root. Run:" >&2
        echo "    sudo apt-get update && sudo $cmd" >&2
        echo "then run make again." >&2
        exit 1
    fi
    if ! command -v apt-get >/dev/null 2>&1; then
        echo "deps: no apt-get on this machine; install OpenBLAS, Check and stb" >&2
        echo "      with your package manager so that pkg-config finds" >&2
        echo "      'openblas', 'check' and 'stb', then run make again." >&2
        exit 1
    fi
    echo "deps: running: ${sudo}apt-get update && ${sudo}$cmd" >&2
    # apt's own progress goes to stderr so it cannot corrupt the makefile
    ${sudo}env DEBIAN_FRONTEND=noninteractive apt-get update -q >&2
    ${sudo}env DEBIAN_FRONTEND=noninteractive $cmd >&2
    for pair in $need; do
        if ! pkg-config --exists "${pair%%:*}"; then
            echo "deps: pkg-config still cannot find '${pair%%:*}' after installing ${pair#*:}" >&2
            exit 1
        fi
    done
fi

echo "# written by scripts/deps.sh; delete it to check the packages again"
echo "DEP_CFLAGS := $(pkg-config --cflags openblas check stb)"
echo "DEP_LIBS := $(pkg-config --libs openblas check stb)"
echo "BLAS_LIBS := $(pkg-config --libs openblas)"
echo "CHECK_LIBS := $(pkg-config --libs check)"
