#!/usr/bin/env bash
# canada.json: jitson (JIT and interpreter) against serde_json built with its
# default features, i.e. without `float_roundtrip`.
#
# Why a script: jitson's `serde` feature turns on serde_json's
# `float_roundtrip`, and cargo unifies features, so every serde_json in the
# comparison example parses floats correctly rounded (slower on canada's
# 111,126 floats). A user without jitson gets serde_json's default parser,
# which is faster and not always correctly rounded; this compares with that.
# serde_json runs in its own crate outside the workspace
# (benches/serde_json_default), jitson in the `profile` example; the three run
# in turn, ROUNDS times, each for SECONDS, and the medians are compared.
#
# Usage, from anywhere (needs ../shared/corpus or $JITSON_CORPUS):
#
#     scripts/serde_json_default.sh [SECONDS] [ROUNDS]      # default 3 s, 5 rounds
#     NATIVE=1 scripts/serde_json_default.sh                # all built with -C target-cpu=native
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
seconds="${1:-3}"
rounds="${2:-5}"
corpus="${JITSON_CORPUS:-$root/../shared/corpus}/bench/canada.json"
if [[ ! -f "$corpus" ]]; then
    echo "canada.json not found at $corpus (set JITSON_CORPUS)" >&2
    exit 1
fi

if [[ "${NATIVE:-0}" == 1 ]]; then
    export RUSTFLAGS="-C target-cpu=native"
    jitson_target="$root/target/native"
    serde_target="$root/target/serde_json_default-native"
else
    jitson_target="$root/target"
    serde_target="$root/target/serde_json_default"
fi

(cd "$root" && CARGO_TARGET_DIR="$jitson_target" cargo build --release --quiet \
    -p jitson-benches --example profile)
(cd "$root/benches/serde_json_default" && CARGO_TARGET_DIR="$serde_target" \
    cargo build --release --quiet)

profile="$jitson_target/release/examples/profile"
serde="$serde_target/release/serde-json-default"

# ns/op from a line "N decodes, X ns/op, Y MB/s".
ns_of() { sed -n 's/.*decodes, \([0-9]*\) ns\/op.*/\1/p'; }

jit=() interp=() sj=()
for ((r = 1; r <= rounds; r++)); do
    jit+=("$("$profile" canada "$seconds" | ns_of)")
    interp+=("$(JITSON_DISABLE_JIT=1 "$profile" canada "$seconds" | ns_of)")
    sj+=("$("$serde" "$corpus" "$seconds" | ns_of)")
    echo "round $r: jit ${jit[-1]} ns, interpreter ${interp[-1]} ns, serde_json (default features) ${sj[-1]} ns"
done

median() { printf '%s\n' "$@" | sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
m_jit="$(median "${jit[@]}")"
m_interp="$(median "${interp[@]}")"
m_sj="$(median "${sj[@]}")"
echo
echo "medians of $rounds rounds (${seconds} s each), canada.json, ns per decode:"
echo "  jitson JIT          $m_jit   ($(awk -v a="$m_sj" -v b="$m_jit" 'BEGIN {printf "%.2f", a / b}')x serde_json default)"
echo "  jitson interpreter  $m_interp   ($(awk -v a="$m_sj" -v b="$m_interp" 'BEGIN {printf "%.2f", a / b}')x serde_json default)"
echo "  serde_json default  $m_sj"
