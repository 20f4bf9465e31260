#!/usr/bin/env bash
# DataFusion's own sqllogictest files with jitson as the JSON format: runs
# the test `sqllogictest` of the workspace member sqllogictest/ (package
# jitson-sqllogictest; `cargo test --workspace` runs it too), which runs
# json.slt and the JSON parts of repartition_scan.slt, copy.slt,
# insert_to_external.slt, dynamic_file.slt, ddl.slt and explain_tree.slt, as
# shipped in the crates.io package datafusion-sqllogictest 55.2.0, through
# DataFusion's own sqllogictest engine over a context where
# jitson_datafusion::register has made jitson the JSON format. The data files
# the records read are written by the runner into a temporary directory. See
# docs/datafusion.md, "DataFusion's own tests".
#
# Usage, from anywhere:
#
#     scripts/sqllogictest.sh                  # test profile (what CI runs)
#     scripts/sqllogictest.sh --release        # release build
#     scripts/sqllogictest.sh copy.slt         # some files only
#     scripts/sqllogictest.sh --keep           # keep the temporary directory
#     scripts/sqllogictest.sh --verbose        # a line per record
#
# The build is the workspace's (`--workspace`, so the features and the
# artifacts are those of `cargo test --workspace`: nothing is built twice).
# Prints each failed record (the record, what it expected, what it got) and
# per file the records passed, passed after the plan-name mapping, failed,
# skipped and not run (not JSON). Exit status 0 when no record failed.
set -euo pipefail
cd "$(dirname "$0")/.."

cargo_flags=()
runner_args=()
for arg in "$@"; do
    case $arg in
        --release) cargo_flags+=(--release) ;;
        -h|--help) sed -n '2,25p' "$0"; exit 0 ;;
        *) runner_args+=("$arg") ;;
    esac
done

exec cargo test --workspace "${cargo_flags[@]}" --test sqllogictest -- "${runner_args[@]}"
