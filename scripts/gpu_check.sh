#!/usr/bin/env bash
# scripts/gpu_check.sh OUTDIR [--cpu-only]: the GPU path on one GPU, in one run (docs/BENCHMARKS.md).
#
# Runs from the source tree (PYTHONPATH=src; nothing installed), needs only numpy, scipy, pandas,
# pyarrow, numba, numba-cuda, pyyaml (pytest if present), no network; about 8 minutes at most.
#   (a) numba must see a GPU, else one line and exit 3 (under NUMBA_ENABLE_CUDASIM=1 the simulator
#       stands in for it and nothing GPU-side is timed; --cpu-only needs no GPU and skips (b) and
#       (d), (c) then times a GPU only where one is visible);
#   (b) the CUDA tests on the device: pytest tests/accountants/ballsbins/cuda where pytest is
#       installed, else python -m dpsampling.benchmark.gpu_check compare (device vs CPU);
#   (c) python -m dpsampling.benchmark.gpu --json OUTDIR/gpu.json, the CPU side on all cores and
#       on 2 (--also-threads 2), the GPU timed once;
#   (d) chua25 Fig. 2 at paper scale, or the part that fits in the time left (extrapolated and
#       marked so): python -m dpsampling.benchmark.gpu --paper-fig2 --time-limit ...
# Every step has a time limit, writes its table and log under OUTDIR, and a failing step does not
# stop the next; OUTDIR/summary.md lists each step's status and seconds. Exit status: 0 when all
# steps passed, 1 when one failed or timed out, 2 for bad arguments, 3 without a GPU.
# Time limits: probe 60 s, tests 150 s, throughput 180 s, Fig. 2 what is left of GPU_CHECK_SECONDS
# (460) less 10 s, if 60 s or more: at most 470 s in all.
# Environment: PYTHON (python3), GPU_CHECK_SECONDS, GPU_CHECK_SCALE (benchmark --scale, 1),
# GPU_CHECK_REPEATS (3), GPU_CHECK_GPU_SCALE (GPU side's samples / CPU's, 10), GPU_CHECK_GPU_CHUNK
# (GPU side's samples per chunk, 8: one GPU thread per chunk, so 25,000 to 250,000 threads).
set -u

usage="usage: scripts/gpu_check.sh OUTDIR [--cpu-only]"
if [ $# -lt 1 ] || [ $# -gt 2 ] || [ -z "$1" ] || { [ $# -eq 2 ] && [ "$2" != "--cpu-only" ]; }; then
    echo "$usage" >&2
    exit 2
fi
cpu_only=0
[ $# -eq 2 ] && cpu_only=1
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$1" || exit 2
out=$(cd "$1" && pwd)
cd "$root" || exit 2
export PYTHONPATH="$root/src${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONUNBUFFERED=1
py=${PYTHON:-python3}
budget=${GPU_CHECK_SECONDS:-460}
scale=${GPU_CHECK_SCALE:-1}
repeats=${GPU_CHECK_REPEATS:-3}
gpu_scale=${GPU_CHECK_GPU_SCALE:-10}
gpu_chunk=${GPU_CHECK_GPU_CHUNK:-8}
failed=0
printf '# scripts/gpu_check.sh %s\n\n| step | status | seconds | output |\n|---|---|---:|---|\n' \
    "$(date -u '+%Y-%m-%d %H:%M UTC')" > "$out/summary.md"

limited() {  # limited SECONDS COMMAND...: COMMAND, killed after SECONDS where timeout exists
    local seconds=$1
    shift
    if command -v timeout > /dev/null; then
        timeout -k 10 "$seconds" "$@"
    else
        "$@"
    fi
}

# step NAME LIMIT LOG COMMAND...: run COMMAND for at most LIMIT seconds, stdout and stderr to LOG.
step() {
    local name=$1 limit=$2 log=$3 status start rc
    shift 3
    start=$SECONDS
    echo "== $name (at most ${limit} s) -> $log"
    limited "$limit" "$@" > "$out/$log" 2>&1
    rc=$?
    case $rc in
        0) status=passed ;;
        124 | 137) status="timed out after ${limit} s"; failed=1 ;;
        *) status="failed (exit $rc)"; failed=1 ;;
    esac
    echo "   $status, $((SECONDS - start)) s"
    echo "| $name | $status | $((SECONDS - start)) | $log |" >> "$out/summary.md"
    return $rc
}

skip() {  # skip NAME WHY
    echo "== $1: skipped ($2)"
    echo "| $1 | skipped: $2 | 0 | |" >> "$out/summary.md"
}

{
    echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
    echo "host: $(uname -a)"
    echo "commit: $(git -C "$root" rev-parse HEAD 2> /dev/null || echo unknown)"
    echo "python: $(command -v "$py") $("$py" --version 2>&1)"
    echo "cores: $(nproc 2> /dev/null || echo unknown)"
    grep -m1 'model name' /proc/cpuinfo 2> /dev/null
    command -v nvidia-smi > /dev/null && limited 20 nvidia-smi
} > "$out/environment.txt" 2>&1

# (a) does numba see a GPU?
limited 60 "$py" -m dpsampling.benchmark.gpu_check probe --json "$out/device.json" > /dev/null 2> "$out/probe.log"
probe=$?
mode=gpu
case $probe in
    0) ;;
    4) mode=simulator ;;
    *) mode=none ;;
esac
if [ $mode = none ] && [ $cpu_only = 0 ]; then
    why=$(tail -n 1 "$out/probe.log" | sed 's/.*numba: //')
    if [ $probe = 3 ]; then
        echo "scripts/gpu_check.sh: no CUDA GPU visible to numba ($why); pass --cpu-only to time the CPU side alone" >&2
    else
        echo "scripts/gpu_check.sh: the GPU probe failed with exit status $probe ($why); PYTHON=... names another interpreter" >&2
    fi
    exit 3
fi
warning=$(grep -m1 '^warning' "$out/probe.log")
echo "| probe | $mode${warning:+ ($warning)} | | device.json |" >> "$out/summary.md"
echo "== probe: $mode ($out/device.json)${warning:+ $warning}"

# (b) the CUDA kernels on the device (under NUMBA_ENABLE_CUDASIM=1: on the simulator)
if [ $cpu_only = 1 ]; then
    skip "CUDA tests" "--cpu-only"
elif "$py" -c "import pytest" 2> /dev/null; then
    # the tests' conftest turns the simulator on unless NUMBA_ENABLE_CUDASIM is set: 0 on a GPU
    step "CUDA tests (pytest)" 150 cuda_tests.log env NUMBA_ENABLE_CUDASIM="${NUMBA_ENABLE_CUDASIM:-0}" \
        "$py" -m pytest tests/accountants/ballsbins/cuda -q -p no:cacheprovider
else
    step "CUDA tests (gpu_check compare; no pytest)" 150 cuda_tests.log \
        "$py" -m dpsampling.benchmark.gpu_check compare
fi

# (c) throughput: the CPU side on all cores and on 2, the GPU once
step "throughput" 180 gpu.log \
    "$py" -m dpsampling.benchmark.gpu --scale "$scale" --repeats "$repeats" --also-threads 2 \
    --gpu-scale "$gpu_scale" --gpu-samples-per-chunk "$gpu_chunk" --json "$out/gpu.json" \
    && sed -n '/^Balls-and-bins/,$p' "$out/gpu.log" | grep -v '^wrote ' > "$out/gpu.md"

# (d) chua25 Fig. 2 at paper scale, or what fits in the time left
left=$((budget - SECONDS - 10))
if [ $cpu_only = 1 ]; then
    skip "chua25 Fig. 2" "--cpu-only"
elif [ $mode != gpu ]; then
    skip "chua25 Fig. 2" "needs a GPU ($mode)"
elif [ $left -lt 60 ]; then
    skip "chua25 Fig. 2" "only ${left} s left"
else
    step "chua25 Fig. 2" "$left" fig2.log \
        "$py" -m dpsampling.benchmark.gpu --paper-fig2 --config config/paper.yaml \
        --time-limit $((left - 20)) \
        && sed -n '/^chua25 Fig. 2/,$p' "$out/fig2.log" > "$out/fig2.md"
fi

echo "summary: $out/summary.md"
exit $failed
