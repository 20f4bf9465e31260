#!/usr/bin/env bash
# Runs the interpreter's and core's tests under Miri, which reports undefined
# behaviour (out-of-bounds or misaligned access, use after free, invalid values,
# aliasing violations under Stacked Borrows, leaks) as it executes. Not part of CI:
# it needs the nightly toolchain with the miri component
# (`rustup component add --toolchain nightly miri rust-src`).
#
# Usage, from the repository root:
#
#     scripts/miri.sh              # core's unit tests + the facade's behavioural tests
#     scripts/miri.sh values       # core + some integration tests, by name
#
# What runs: `jitson-core`'s unit tests, then the facade's behavioural tests built
# without the `jit` feature (`--no-default-features`), so every decode goes
# through the interpreter (the `Interpreter` and `Auto` rows of
# tests/common::backends()). Miri cannot run the JIT: it does not execute machine
# code generated at run time, nor `mmap`/`mprotect`; valgrind covers that
# (scripts/valgrind.sh). tests/hostile.rs shrinks its sizes a thousandfold under
# Miri (`cfg!(miri)`), as noted there.
#
# Not run here, and why:
# - conformance.rs, differential.rs: reading 300 files and thousands of
#   proptest cases take hours under Miri; they exercise the same interpreter code
#   as the tests below, which cover every kind and error path.
# - jit_*.rs: need the JIT (see above).
#
# Exit status: 0 when every test passed with no undefined behaviour and no leak.
set -euo pipefail
cd "$(dirname "$0")/.."

tests=("$@")
if [ ${#tests[@]} -eq 0 ]; then
    tests=(values errors panics differences seed hostile)
fi
args=()
for t in "${tests[@]}"; do
    args+=(--test "$t")
done

cargo +nightly miri test -p jitson-core
cargo +nightly miri test -p jitson --no-default-features "${args[@]}"
