#!/usr/bin/env bash
# One run on a borrowed many-core machine (issue 27): Dask scaling at 1-16 workers, then the
# quiet-machine figures of the Bayesian paths and of the guaranteed interval.
#
#     OUT=/path/to/empty/folder bash benchmarks/device_scaling.sh          # 16 cores, <= 7 min
#     SCALE=tiny OUT=/tmp/out PYTHON=.venv/bin/python bash benchmarks/device_scaling.sh
#
# On a borrowed machine that gets a copy of the checkout: run `bash benchmarks/device_wheels.sh` in
# that checkout first (.wheels/ is git-ignored), then the command above with `.wheels` carried.
# Seen there (16 cores, idle): python3 is Python 3.12.3 with pip 24.0, g++ is installed.
#
# Runs in the repository root with PYTHONPATH=src. Where dask, distributed, pymc, pytensor or
# arviz do not import, the wheels in .wheels/ (benchmarks/device_wheels.sh) are installed with
# --no-deps into $DEPS (default /tmp/judgestats-deps, outside $OUT), by pip --target or, without
# pip, by unpacking them. Every step runs under `timeout`; the step limits add up to 415 s, so a
# hang cannot take the run past 7 minutes. Writes env.txt, one log per step and results/*.json
# (JUDGESTATS_BENCH_RESULTS: the stored benchmarks/results stay as they are) into $LOGS (default
# a fresh /tmp/judgestats-device.*), and into $OUT only two files (a device machine sends back at most 8):
# summary.md (also printed) and device_scaling.tar.gz (all of $LOGS), both renewed after every
# step.
set -u
: "${OUT:?set OUT to an empty folder}"
SCALE=${SCALE:-full}
PYTHON=${PYTHON:-python3}
DEPS=${DEPS:-/tmp/judgestats-deps}
LOGS=${LOGS:-$(mktemp -d /tmp/judgestats-device.XXXXXX)}
cd "$(dirname "$0")/.."
mkdir -p "$OUT" "$LOGS/results"
export JUDGESTATS_BENCH_RESULTS="$LOGS/results"
export PYTHONPATH="$PWD/src${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONUNBUFFERED=1 CI=true

if [ "$SCALE" = tiny ]; then  # a local end-to-end check of this script, a few minutes
    WORKERS=1,2; CLOSED=(--quick --reps 100); GUARANTEED=(--quick --reps 2)
    BAYES=(--quick --reps 3); THREADS=(--datasets 200 --threads 1,2)
    LIMITS=(60 20 60 60 90 60 120 240)
else  # sized from serial runs on the 16-core machine (idle): closed form 10,500 x 3,000 21.1 s,
    # guaranteed 16 x 20 21.2 s, Bayesian 270 x 20 48.8 s (16 engine threads) / 41.5 s (1 CPU),
    # serial coverage() calls of these studies at 8b100de (before the engine changes of issue 27)
    WORKERS=1,2,4,8,16; CLOSED=(--reps 1500); GUARANTEED=(--reps 8); BAYES=(--reps 8)
    # limits from the run of 2026-11-27 (272 s in all): closed 58 s, guaranteed cut at 50 s before
    # 16 workers, Bayesian 57 s, threads 17 s, guaranteed scaling 19 s, bench_bayes 58 s
    THREADS=(--datasets 1000); LIMITS=(30 25 65 80 75 30 25 85)
fi

SUMMARY="$LOGS/summary.md"
{
    echo "# device_scaling.sh ($SCALE), $(date -u +%FT%TZ)"
    echo
    echo "| step | exit | seconds | limit s |"
    echo "|---|---|---|---|"
} > "$SUMMARY"

send() {  # the two files of $OUT
    cp "$SUMMARY" "$OUT/summary.md"
    tar -czf "$OUT/device_scaling.tar.gz" -C "$LOGS" .
}

step() {  # step NAME LIMIT command...: run it under timeout, log to $LOGS/NAME.log
    local name=$1 limit=$2 start rc
    shift 2
    start=$(date +%s)
    echo "== $name (limit ${limit} s, load $(cut -d' ' -f1-3 /proc/loadavg))"
    timeout --kill-after=5 "$limit" "$@" > "$LOGS/$name.log" 2>&1
    rc=$?
    echo "| $name | $rc$([ $rc = 124 ] && echo ' (timed out)') | $(($(date +%s) - start)) | $limit |" \
        >> "$SUMMARY"
    tail -n 25 "$LOGS/$name.log"
    send
    return 0
}

install_deps() {
    if "$PYTHON" -c "import dask.distributed, pymc, pytensor, arviz" 2> /dev/null; then
        echo "dask, distributed, pymc, pytensor and arviz import: nothing to install"
        return 0
    fi
    ls .wheels/*.whl > /dev/null || { echo "no .wheels/ (benchmarks/device_wheels.sh)"; return 1; }
    mkdir -p "$DEPS"
    if ! "$PYTHON" -m pip install --no-index --no-deps --no-compile --target "$DEPS" \
        .wheels/*.whl; then
        echo "pip failed or is missing: unpacking the wheels instead"
        "$PYTHON" -c "import sys, zipfile; [zipfile.ZipFile(w).extractall(sys.argv[1]) for w in sys.argv[2:]]" \
            "$DEPS" .wheels/*.whl
    fi
}
export -f install_deps
export PYTHON DEPS

versions() {  # what the benchmarks run with (also checks that everything imports)
    "$PYTHON" -c "import numpy, scipy, dask, distributed, pymc, pytensor, arviz
for m in (numpy, scipy, dask, distributed, pymc, pytensor, arviz): print(m.__name__, m.__version__)"
}
export -f versions

{
    echo "nproc $(nproc); $("$PYTHON" --version 2>&1); load $(cat /proc/loadavg)"
    lscpu 2> /dev/null | grep -E "Model name|^CPU\(s\)|Thread|MHz" || true
    free -g 2> /dev/null || true
    command -v g++ > /dev/null && g++ --version | head -1 || echo "no g++ (pytensor: Python backend)"
    git log --oneline -1 2> /dev/null || true
} > "$LOGS/env.txt" 2>&1
cat "$LOGS/env.txt"

step install "${LIMITS[0]}" bash -c install_deps
if ! "$PYTHON" -c "import dask.distributed" 2> /dev/null; then
    export PYTHONPATH="$PYTHONPATH:$DEPS"
fi
step versions "${LIMITS[1]}" bash -c versions

DASK=("$PYTHON" benchmarks/bench_dask.py --workers "$WORKERS" --repeat 1 --serial-once)
step dask_closed "${LIMITS[2]}" "${DASK[@]}" --study closed "${CLOSED[@]}"
step dask_guaranteed "${LIMITS[3]}" "${DASK[@]}" --study guaranteed "${GUARANTEED[@]}"
step dask_bayes "${LIMITS[4]}" "${DASK[@]}" --study bayes --one-core --task-stream "${BAYES[@]}"
step engine_threads "${LIMITS[5]}" "$PYTHON" benchmarks/bench_engine_threads.py "${THREADS[@]}"
step guaranteed_scaling "${LIMITS[6]}" "$PYTHON" benchmarks/bench_guaranteed.py --scaling \
    --repeats 3
# last: the step most likely cut short; it prints its exact-engine figures as it goes
step bench_bayes "${LIMITS[7]}" "$PYTHON" benchmarks/bench_bayes.py --quick --size 10500

{
    echo
    echo "## Dask (serial timed once a study; speed-up = serial / cluster)"
    echo
    for study in closed guaranteed bayes; do
        grep -E "^(study|$study )" "$LOGS/dask_$study.log" | sed 's/^/    /'
        grep -E "^$study: serial on one CPU" "$LOGS/dask_$study.log" | sed 's/^/    /'
        grep -E "^  task stream" "$LOGS/dask_$study.log" | sed 's/^/    /'
    done
    echo
    echo "## Exact engine threads (bench_engine_threads.py)"
    echo
    grep -E "^ +[0-9]+ +[0-9.]+ +[0-9.]+x|^ +threads" "$LOGS/engine_threads.log" | sed 's/^/    /'
    echo
    echo "## Bayesian paths (bench_bayes.py --quick)"
    echo
    grep -E "^\|" "$LOGS/bench_bayes.log" || grep -E "^  |\.\.\.$" "$LOGS/bench_bayes.log" \
        | sed 's/^/    /'  # cut short: the figures it printed on the way
    echo
    echo "## Guaranteed interval against n (bench_guaranteed.py --scaling --repeats 3)"
    echo
    grep -E "^n = " "$LOGS/guaranteed_scaling.log" | sed 's/^/    /'
    echo
    echo "load average at the end: $(cat /proc/loadavg)"
} >> "$SUMMARY"
send
echo
cat "$SUMMARY"
