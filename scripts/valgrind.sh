#!/usr/bin/env bash
# Runs jitson's error-path test binaries under valgrind (memcheck) and fails on any
# memory error or any definite/indirect leak.
#
# Usage, from the repository root:
#
#     scripts/valgrind.sh                 # tests/errors.rs, values.rs, panics.rs
#     scripts/valgrind.sh errors seed     # any integration tests, by name
#     scripts/valgrind.sh -p jitson-arrow reclaim_stress   # another package's
#
# Why these tests: tests/errors.rs runs every backend (the interpreter, the
# Cranelift JIT where it can run, and Auto) over malformed documents, including
# drop-on-error with a counting Drop type; tests/values.rs decodes every kind
# through every backend; tests/panics.rs panics in user code (defaults, Drop)
# in the middle of decodes. Together they exercise the JIT's slow paths and the
# code that drops a partly written value, where a leak, a double drop or a read
# of uninitialised memory would show.
#
# Compiled JIT modules live as long as the process (the facade caches them), but
# stay reachable through the cache, so they are "still reachable", not leaks.
#
# Each binary is built with `cargo test --no-run` (test profile) and run under
#
#     valgrind --leak-check=full --errors-for-leak-kinds=definite,indirect
#              --error-exitcode=1 --track-origins=no --smc-check=all-non-file
#
# (`--smc-check=all-non-file` because the JIT writes machine code at run time into
# anonymous memory; valgrind must re-translate it rather than trust its cache).
# Tests run on one harness thread, so the log reads in order. The full log of each
# binary is kept in target/valgrind/NAME.log; the ERROR SUMMARY and LEAK SUMMARY
# lines are printed. Exit status: 0 when every binary passed its tests with no
# valgrind error and no definite or indirect leak, 1 otherwise.
#
# Extra valgrind options can be given in $VALGRIND_OPTS (valgrind reads it itself).
# Needs: cargo, valgrind. Takes about a minute after the build (valgrind is slow).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

if ! command -v valgrind >/dev/null; then
    echo "valgrind.sh: valgrind is not installed" >&2
    exit 1
fi

extra=()
tests=()
package=()
while [ $# -gt 0 ]; do
    arg=$1
    shift
    case $arg in
    -p)
        package=(-p "$1")
        shift
        ;;
    -*)
        echo "valgrind.sh: unknown option $arg" >&2
        exit 2
        ;;
    *) tests+=("$arg") ;;
    esac
done
if [ ${#tests[@]} -eq 0 ]; then
    tests=(errors values panics)
fi

# Build every binary first, and find each one's path in cargo's JSON messages: the
# compiler-artifact line of the test target carries "executable":"PATH".
test_args=()
for t in "${tests[@]}"; do
    test_args+=(--test "$t")
done
echo "==> building: cargo test --no-run ${package[*]} ${test_args[*]}"
messages=$(cargo test --no-run --message-format=json ${package[@]+"${package[@]}"} "${test_args[@]}")

binary_for() {
    local name=$1
    printf '%s\n' "$messages" |
        grep '"reason":"compiler-artifact"' |
        grep '"kind":\["test"\]' |
        grep "\"name\":\"$name\"" |
        grep -o '"executable":"[^"]*"' |
        sed 's/^"executable":"//; s/"$//' |
        tail -n 1 || true
}

log_dir=target/valgrind
mkdir -p "$log_dir"
failed=()

for t in "${tests[@]}"; do
    bin=$(binary_for "$t")
    if [ -z "$bin" ] || [ ! -x "$bin" ]; then
        echo "valgrind.sh: no test binary found for '$t'" >&2
        failed+=("$t (not built)")
        continue
    fi
    log="$log_dir/$t.log"
    echo
    echo "==> $t: valgrind $bin  (log: $log)"
    started=$SECONDS
    rc=0
    valgrind \
        --leak-check=full \
        --errors-for-leak-kinds=definite,indirect \
        --error-exitcode=1 \
        --track-origins=no \
        --smc-check=all-non-file \
        --log-file="$log" \
        ${extra[@]+"${extra[@]}"} \
        "$bin" --test-threads=1 -q || rc=$?
    echo "    exit status $rc after $((SECONDS - started)) s"
    # The summary: the error count, and the leak summary's lines.
    grep -E 'ERROR SUMMARY|LEAK SUMMARY|definitely lost:|indirectly lost:|possibly lost:|still reachable:|suppressed:|All heap blocks were freed' "$log" |
        sed 's/^==[0-9]*== /    /' || true
    if [ "$rc" -ne 0 ]; then
        failed+=("$t (exit status $rc)")
    fi
done

echo
if [ ${#failed[@]} -ne 0 ]; then
    echo "valgrind.sh: FAILED: ${failed[*]}" >&2
    echo "valgrind.sh: see the logs in $log_dir/ (exit status 1 = valgrind error or leak, 101 = a test failed)" >&2
    exit 1
fi
echo "valgrind.sh: all clean: ${tests[*]}"
