#!/usr/bin/env bash
# Real crates of API models with jitson's derives added, and the JSON fixtures
# their crates.io packages ship. Opt-in, not part of CI: it downloads the
# crates and builds them, jitson and their dependencies in release mode (about
# 10 minutes on the 2-core machine with jitson changed and the dependencies
# already built; a first run takes longer).
#
# Usage, from anywhere:
#
#     scripts/real_models.sh                  # everything
#     scripts/real_models.sh --verbose        # also per-fixture timings and every interpreted layout
#     scripts/real_models.sh --iters 1000     # more decodes per fixture for the timing
#     scripts/real_models.sh --only sns       # the fixtures or types whose name contains "sns"
#
# What it does (see feature-tests/real_models/SOURCES.md):
# 1. `prepare fetch`: cargo resolves the pinned crates (aws_lambda_events,
#    octocrab, openapiv3, cargo_metadata, rustdoc-types; exact versions in
#    prepare/src/main.rs) into its
#    registry, and each package is copied into
#    feature-tests/real_models/target/work/crates/NAME with `jitson::Decode`
#    added beside every `Deserialize` derive, `jitson::Encode` beside every
#    `Serialize` derive, and `jitson = { path = <this checkout> }` in its
#    Cargo.toml. Nothing else of the crates changes; nothing of them is in git.
#    `prepare generate` then makes the fixtures of cargo_metadata and
#    rustdoc-types, whose packages ship none: this machine's `cargo metadata`
#    of jitson and of the harness, cargo's and libtest's JSON messages for two
#    small crates, and rustdoc's JSON for jitson-core and jitson.
# 2. Each copy is built on its own. A crate that does not compile is a result:
#    its errors are summarised by kind (target/real_models/NAME.errors.txt).
#    aws_lambda_events is then tried without the event modules that failed
#    (feature `aws-subset` of the harness), so that its other fixtures run.
# 3. The harness (feature-tests/real_models/src) decodes every fixture of the
#    crates that compiled with serde_json and with jitson on both backends,
#    compares, re-encodes, times, and prints the tables.
#
# Builds use their own target directory, feature-tests/real_models/target,
# under `nice -n 10`. Output and logs: feature-tests/real_models/target/logs.
# Exit status: 0 when every crate compiled and every fixture matched.
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
harness="$root/feature-tests/real_models"
export CARGO_TARGET_DIR="$harness/target"
logs="$CARGO_TARGET_DIR/logs"
mkdir -p "$logs"
cargo=(nice -n 10 cargo)
status=0

echo "== jitson checkout: $root ($(git -C "$root" rev-parse --short HEAD 2>/dev/null)$(git -C "$root" diff --quiet HEAD 2>/dev/null || echo ', with uncommitted changes'))"

"${cargo[@]}" build --release --quiet --manifest-path "$harness/prepare/Cargo.toml" || exit 2
prepare="$CARGO_TARGET_DIR/release/real-models-prepare"
echo "== Fetching and rewriting the pinned crates"
"$prepare" fetch "$CARGO_TARGET_DIR/work" "$root" | tee "$logs/prepare.txt" || exit 2
echo "== Generating the fixtures of cargo_metadata and rustdoc-types (cargo's, libtest's and rustdoc's JSON)"
"$prepare" generate "$CARGO_TARGET_DIR/work" "$root" | tee -a "$logs/prepare.txt" || exit 2

features=()
declare -A result
# crate, harness feature, extra cargo flags (the features the harness uses)
while read -r crate feature flags; do
    echo "== Building $crate with jitson's derives"
    # shellcheck disable=SC2086
    if "${cargo[@]}" build --release --manifest-path "$harness/Cargo.toml" -p "$crate" $flags \
        --message-format=json >"$logs/$crate.json" 2>"$logs/$crate.stderr"; then
        result[$crate]="compiles"
        features+=("$feature")
    else
        status=1
        if ! grep -q '"level":"error"' "$logs/$crate.json"; then
            echo "   the build failed before reaching the crate:"; tail -20 "$logs/$crate.stderr"; exit 2
        fi
        "$prepare" errors "$crate" "$logs/$crate.json" >"$logs/$crate.errors.txt"
        result[$crate]="does not compile: $(head -1 "$logs/$crate.errors.txt")"
        if [ "$crate" = aws_lambda_events ]; then
            features+=(aws-subset)
            result[$crate]+="; running the fixtures of the other event modules (aws-subset)"
        fi
    fi
    "$prepare" warnings "$crate" "$logs/$crate.json" >"$logs/$crate.warnings.txt"
    echo "   ${result[$crate]}"
    [ -s "$logs/$crate.warnings.txt" ] && head -1 "$logs/$crate.warnings.txt" | sed 's/^/   /'
done <<'EOF'
aws_lambda_events aws
octocrab octocrab --no-default-features
openapiv3 openapiv3
cargo_metadata cargo_metadata
rustdoc-types rustdoc-types
EOF

for crate in aws_lambda_events octocrab openapiv3 cargo_metadata rustdoc-types; do
    if [ -f "$logs/$crate.errors.txt" ] && [ "${result[$crate]}" != compiles ]; then
        echo; echo "== Compile errors of $crate ($logs/$crate.errors.txt)"; cat "$logs/$crate.errors.txt"
    fi
done

if [ ${#features[@]} -gt 0 ]; then
    list="$(IFS=,; echo "${features[*]}")"
    echo; echo "== Building the harness (features $list)"
    if ! "${cargo[@]}" build --release --quiet --manifest-path "$harness/Cargo.toml" --features "$list" 2>"$logs/harness.stderr"; then
        cat "$logs/harness.stderr"; exit 2
    fi
    "$CARGO_TARGET_DIR/release/jitson-real-models" "$@" | tee "$logs/run.txt"
    [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
fi

echo; echo "== Summary"
for crate in aws_lambda_events octocrab openapiv3 cargo_metadata rustdoc-types; do
    echo "$crate: ${result[$crate]}"
done
exit $status
