#!/usr/bin/env bash
# DataFusion's own sqllogictest files with jitson as the JSON format: builds
# sqllogictest/ (a cargo workspace of its own, package jitson-sqllogictest)
# and runs json.slt and the JSON parts of repartition_scan.slt, copy.slt,
# insert_to_external.slt and dynamic_file.slt, as shipped in the crates.io
# package datafusion-sqllogictest 55.2.0, through DataFusion's own
# sqllogictest engine over a context where jitson_datafusion::register has
# made jitson the JSON format. The data files the records read are written by
# the runner into a temporary directory. See docs/datafusion.md, "DataFusion's
# own tests".
#
# Usage, from anywhere:
#
#     scripts/sqllogictest.sh                  # debug build (the faster overall)
#     scripts/sqllogictest.sh --release        # release build
#     scripts/sqllogictest.sh copy.slt         # some files only
#     scripts/sqllogictest.sh --keep           # keep the temporary directory
#
# The build goes to $CARGO_TARGET_DIR, or sqllogictest/target.
# Prints each failed record (the record, what it expected, what it got) and
# per file the records passed, passed after the plan-name mapping, failed,
# skipped and not run (not JSON). Exit status 0 when no record failed.
set -euo pipefail
cd "$(dirname "$0")/../sqllogictest"

profile=debug
cargo_flags=()
runner_args=()
for arg in "$@"; do
    case $arg in
        --release) profile=release; cargo_flags+=(--release) ;;
        -h|--help) sed -n '2,23p' "$0"; exit 0 ;;
        *) runner_args+=("$arg") ;;
    esac
done

target=${CARGO_TARGET_DIR:-$PWD/target}
echo "== building sqllogictest/ ($profile, target $target)"
start=$(date +%s)
CARGO_TARGET_DIR=$target nice -n 15 cargo build --locked "${cargo_flags[@]}"
echo "   built in $(( $(date +%s) - start )) s"

echo "== running"
start=$(date +%s)
status=0
"$target/$profile/jitson-sqllogictest" "${runner_args[@]}" || status=$?
echo "   ran in $(( $(date +%s) - start )) s"
exit $status
