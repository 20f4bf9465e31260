#!/usr/bin/env bash
# Runs jitson's cargo-fuzz targets (fuzz/) for a while each. Not part of CI: it
# needs the nightly toolchain and cargo-fuzz (`cargo install cargo-fuzz`).
#
# Usage, from the repository root:
#
#     scripts/fuzz.sh                        # every target, 60 s each
#     scripts/fuzz.sh 600                    # every target, 10 min each
#     scripts/fuzz.sh 60 raw_value           # some targets, by name
#
# Targets (see docs/hardening.md, "Fuzzing"):
#   decode_fixed      arbitrary bytes into fixed nested types, the benchmark models
#                     and std types: JIT = interpreter exactly, = serde_json
#   decode_generated  build.rs-generated types; serialised arbitrary values, edited
#   raw_value         RawValue against serde_json's RawValue, whole and nested
#   encode            values serde_json decodes into the models, encoded by every
#                     backend, compact and pretty: = serde_json's bytes
#   arrow_schema_bytes jitson-arrow: a schema from the first bytes, the rest as
#                     NDJSON; both backends agree, split decodes = whole, arrays valid;
#                     the batches written back = arrow-json writer's bytes
#
# Corpora: fuzz/corpus/<target>/ (kept between runs, not committed), seeded on the
# first run from ../shared/corpus when present: JSONTestSuite's test_parsing files
# and the benchmark files (libFuzzer reads at most -max_len bytes of each, so the
# large ones seed with their first 64 KiB). A crash, a disagreement or a leak
# stops the target and leaves the input in fuzz/artifacts/<target>/; reproduce it
# with `cargo +nightly fuzz run <target> <file>` (from fuzz/'s parent directory).
# Exit status: 0 when every target ran its time without a finding.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${1:-60}"
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    targets=(decode_fixed decode_generated raw_value encode arrow_schema_bytes)
fi
if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
    echo "cargo-fuzz (and the nightly toolchain) are needed: cargo install cargo-fuzz" >&2
    exit 2
fi
shared="${JITSON_CORPUS:-../shared/corpus}"

cargo +nightly fuzz build 2>&1 | tail -n 3
status=0
for target in "${targets[@]}"; do
    corpus="fuzz/corpus/$target"
    mkdir -p "$corpus"
    seeds=()
    if [ -z "$(ls -A "$corpus")" ] && [ -d "$shared" ] && [ "$target" != decode_generated ]; then
        seeds=("$shared/jsontestsuite/test_parsing" "$shared/bench")
    fi
    echo "== $target: ${seconds}s, corpus $corpus ${seeds[*]:-}"
    log="fuzz/artifacts/$target.log"
    mkdir -p fuzz/artifacts
    if cargo +nightly fuzz run "$target" "$corpus" "${seeds[@]}" -- \
        -max_total_time="$seconds" -max_len=65536 -timeout=30 -rss_limit_mb=4096 \
        -print_final_stats=1 >"$log" 2>&1; then
        grep -E "^(Done|stat::number_of_executed_units|stat::peak_rss_mb)" "$log" || true
    else
        status=1
        echo "!! $target found something; log: $log"
        tail -n 40 "$log"
    fi
    echo "   corpus: $(ls "$corpus" | wc -l) inputs"
done
exit $status
