#!/usr/bin/env bash
# The test command (README, "For contributors: the two commands"; .ci/run runs it as it is): every
# test of the workspace, then the configurations a single build cannot hold,
# printing each step's time and the disk the builds take.
#
#   1. `cargo test --workspace`: the behaviour, differential and conformance
#      suites on every backend, jitson-arrow, jitson-datafusion and DataFusion's
#      own .slt files through jitson (sqllogictest/, a test without harness);
#   2. jitson without its default features (no JIT, no serde): the interpreter
#      alone, and everything that must compile without serde. Its library,
#      doc tests and integration tests, but not the examples (built and run
#      with the default features) nor the suites in NOT_WITHOUT_FEATURES:
#      what they add to the others (maps under hostile user code, structs of
#      a thousand fields, other crates' types, the element stack and its
#      lent first chunk, numbers and members encoded under every option) is
#      interpreter code the features do not change, step 1 runs them on the
#      interpreter as on the JIT, and their builds were half of this step's
#      (2026-12-06: maps_hostile 119 s, wide_structs 59, foreign 41,
#      element_stack_hostile 37, the compare example 121, of 879 s of
#      compiling on two cores; docs/benchmarks.md, Round 17);
#   3. jitson's test binaries of step 1 again with every struct lowered
#      unrolled (`JITSON_STRUCTS=unrolled`; step 1 lets the tiers choose). Only
#      jitson's typed decoders read the variable (src/jit.rs): jitson-arrow,
#      jitson-datafusion and the .slt files choose their lowering themselves, so
#      their binaries are not run again. Nothing is rebuilt: `--workspace` keeps
#      step 1's feature set, and `--test NAME` picks jitson's files (and
#      jitson-arrow's `hostile`, `differences` and `jit_disabled`, which share
#      names with three of them);
#   4. jitson in a build whose serde_json has `arbitrary_precision` and
#      `preserve_order` (feature-tests/, a workspace of its own).
#
# Builds are not incremental (Cargo.toml's profiles): a clean build needs about
# 6 GB of disk instead of 12. Exit status: the first failing step's.
set -euo pipefail
cd "$(dirname "$0")/.."

begin=$(date +%s)
step() {
    local name=$1 start
    shift
    start=$(date +%s)
    echo "== $name: $*"
    "$@"
    echo "== $name: passed in $(( $(date +%s) - start )) s"
}

# Generic-heavy suites left out of step 2 (see above): every other file in
# tests/ (a `NAME.rs` or a `NAME/main.rs`) runs there.
NOT_WITHOUT_FEATURES=" maps_hostile wide_structs foreign element_stack_hostile element_stack_lent encode_numbers_hostile "
without_features=(--lib)
jitson_tests=()
shopt -s nullglob
for path in tests/*.rs tests/*/main.rs; do
    name=${path#tests/}
    name=${name%.rs}
    name=${name%/main}
    jitson_tests+=(--test "$name")
    [[ $NOT_WITHOUT_FEATURES == *" $name "* ]] || without_features+=(--test "$name")
done

step "workspace" cargo test --workspace
step "no default features" cargo test -p jitson --no-default-features "${without_features[@]}"
step "no default features, doc tests" cargo test -p jitson --no-default-features --doc
step "structs unrolled" env JITSON_STRUCTS=unrolled cargo test --workspace "${jitson_tests[@]}"
step "serde_json features" cargo test --manifest-path feature-tests/serde_json_features/Cargo.toml

echo "== all steps passed in $(( $(date +%s) - begin )) s; disk used by the builds:"
du -sh target feature-tests/serde_json_features/target 2>/dev/null || true
