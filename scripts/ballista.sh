#!/usr/bin/env bash
# A real Ballista cluster reading JSON through jitson, on this machine: builds
# the programs of ballista/ (a cargo workspace of its own), starts a scheduler
# and two executors as separate processes, runs the queries through a client,
# compares every result with local DataFusion's own JSON reader, checks that a
# broken file fails its query with its path and line while the executors keep
# running and the cluster serves the next query, checks that `COPY … STORED AS
# JSON` through the cluster writes the bytes DataFusion's COPY writes, and
# stops the cluster.
#
# Usage, from anywhere:
#
#     scripts/ballista.sh                 # debug build, 50,000 records in 4 files
#     scripts/ballista.sh --release       # release build (much longer on 2 cores)
#     JITSON_BALLISTA_PORT=52000 scripts/ballista.sh
#
# Ports: the scheduler listens on $JITSON_BALLISTA_PORT (default 50350), the
# executors on the next four (Arrow Flight and gRPC each); every listener is
# bound to 127.0.0.1. The script stops if one of them is taken.
#
# Every server runs in a process group of its own (setsid) under `timeout`
# ($JITSON_BALLISTA_TIMEOUT seconds, default 900). On exit — success, failure,
# Ctrl-C or TERM — the EXIT trap sends TERM to each group, waits, then KILL;
# the timeout bounds their life even if this script is killed with SIGKILL.
# Logs and data: a temporary directory, removed on exit (kept, and its path
# printed, when something failed).
#
# Exit status: 0 when every query and the COPY equal DataFusion's and the
# broken file failed as it should.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

profile=debug
cargo_flags=()
for arg in "$@"; do
    case $arg in
        --release) profile=release; cargo_flags+=(--release) ;;
        -h|--help) sed -n '2,29p' "$0"; exit 0 ;;
        *) echo "ballista.sh: unknown argument $arg" >&2; exit 2 ;;
    esac
done

base=${JITSON_BALLISTA_PORT:-50350}
timeout_s=${JITSON_BALLISTA_TIMEOUT:-900}
scheduler_port=$base
ports=("$base" $((base + 1)) $((base + 2)) $((base + 3)) $((base + 4)))

work=$(mktemp -d "${TMPDIR:-/tmp}/jitson-ballista.XXXXXX")
pids=()
client=
failed=1

# Stops every server's process group: TERM, up to 10 s, then KILL.
stop_cluster() {
    local pid
    for pid in "${pids[@]}"; do
        kill -TERM -- "-$pid" 2>/dev/null || true
    done
    for _ in $(seq 100); do
        local alive=0
        for pid in "${pids[@]}"; do
            if kill -0 -- "-$pid" 2>/dev/null; then alive=1; fi
        done
        [ $alive = 0 ] && break
        sleep 0.1
    done
    for pid in "${pids[@]}"; do
        kill -KILL -- "-$pid" 2>/dev/null || true
    done
    pids=()
}

on_exit() {
    local status=$?
    trap - EXIT INT TERM
    if [ -n "$client" ]; then kill -TERM "$client" 2>/dev/null || true; fi
    stop_cluster
    if [ $failed = 0 ]; then
        rm -rf "$work"
    else
        echo "ballista.sh: FAILED; logs and data kept in $work" >&2
        for log in "$work"/logs/*.log; do
            [ -f "$log" ] || continue
            echo "--- last lines of $log" >&2
            tail -n 15 "$log" >&2
        done
    fi
    exit $status
}
trap on_exit EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# True when something accepts connections on 127.0.0.1:$1.
listening() {
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

for port in "${ports[@]}"; do
    if listening "$port"; then
        echo "ballista.sh: port $port is taken; set JITSON_BALLISTA_PORT to another base" >&2
        exit 1
    fi
done

echo "== building ballista/ ($profile)"
start=$(date +%s)
(cd ballista && nice -n 15 cargo build --bins "${cargo_flags[@]}")
echo "   built in $(( $(date +%s) - start )) s"
target=${CARGO_TARGET_DIR:-$root/ballista/target}
bin=$target/$profile

mkdir -p "$work/logs" "$work/data"
echo "== generating data in $work/data"
"$bin/jitson-ballista-client" generate --dir "$work/data" --rows 50000 --files 4

# Starts "$@" as a server in its own process group, logging to $work/logs/$name.log.
start_server() {
    local name=$1
    shift
    setsid timeout --signal=TERM --kill-after=10 "$timeout_s" "$@" \
        >"$work/logs/$name.log" 2>&1 </dev/null &
    pids+=("$!")
}

# Waits until 127.0.0.1:$2 accepts connections, or fails naming $1.
wait_for() {
    local name=$1 port=$2
    for _ in $(seq 600); do
        listening "$port" && return 0
        sleep 0.1
    done
    echo "ballista.sh: $name did not start listening on 127.0.0.1:$port" >&2
    return 1
}

echo "== starting the scheduler on 127.0.0.1:$scheduler_port"
start_server scheduler "$bin/jitson-scheduler" --port "$scheduler_port"
wait_for scheduler "$scheduler_port"

for i in 1 2; do
    flight=${ports[$((2 * i - 1))]}
    grpc=${ports[$((2 * i))]}
    echo "== starting executor $i on 127.0.0.1:$flight"
    start_server "executor$i" "$bin/jitson-executor" --scheduler-port "$scheduler_port" \
        --port "$flight" --grpc-port "$grpc" --work-dir "$work/executor$i" --vcores 2
done
wait_for "executor 1" "${ports[1]}"
wait_for "executor 2" "${ports[3]}"

echo "== running the queries"
# In the background, so that a signal reaches the trap at once rather than
# after the client ends (the trap stops the client too).
"$bin/jitson-ballista-client" run --scheduler-port "$scheduler_port" --dir "$work/data" &
client=$!
wait "$client"
client=

echo "== checking that every server is still running"
for pid in "${pids[@]}"; do
    if ! kill -0 "$pid" 2>/dev/null; then
        echo "ballista.sh: a server (pid $pid) has exited" >&2
        exit 1
    fi
done

failed=0
echo "== all queries equal local DataFusion's; stopping the cluster"
