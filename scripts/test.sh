#!/usr/bin/env bash
# The test command (README, "Running it"; .ci/run runs it as it is): every
# test of the workspace, then the configurations a single build cannot hold,
# printing each step's time and the disk the builds take.
#
#   1. `cargo test --workspace`: the behaviour, differential and conformance
#      suites on every backend, jitson-arrow, jitson-datafusion and DataFusion's
#      own .slt files through jitson (sqllogictest/, a test without harness);
#   2. jitson without its default features (no JIT, no serde): the interpreter
#      alone, and everything that must compile without serde;
#   3. the same test binaries as step 1 with every struct lowered unrolled
#      (`JITSON_STRUCTS=unrolled`; step 1 lets the tiers choose): nothing is
#      rebuilt, `--workspace` keeps step 1's feature set;
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

step "workspace" cargo test --workspace
step "no default features" cargo test -p jitson --no-default-features
step "structs unrolled" env JITSON_STRUCTS=unrolled cargo test --workspace --tests
step "serde_json features" cargo test --manifest-path feature-tests/serde_json_features/Cargo.toml

echo "== all steps passed in $(( $(date +%s) - begin )) s; disk used by the builds:"
du -sh target feature-tests/serde_json_features/target 2>/dev/null || true
