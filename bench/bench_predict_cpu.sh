#!/bin/bash
# bench_predict_cpu.sh GEN AGG SHARED ARGS: agg's prediction checked on this machine, where both
# sides can be measured: three shared models and gen --calibrate's benchmarks run at one thread
# and at two, then `agg --to threads=2` predicts the two-thread times from the one-thread ones
# (the ceilings measured on both sides) and the prediction report sets them against what was
# measured. Markdown on stdout (make bench-predict writes docs/results/cpu/prediction.md).
set -euo pipefail
gen=$(realpath "$1") agg=$(realpath "$2") shared=$3 args=$4
models="resnet20-cifar10-pytorch-opset9 distilbert-tiny-cls-pytorch-opset11 squeezenet1.1-caffe2-light-opset9"
dir=$(mktemp -d /tmp/bz-predict-XXXXXX)
trap 'rm -rf "$dir"' EXIT
paths=
for m in $models; do paths="$paths $shared/models/$m.onnx"; done
# shellcheck disable=SC2046
"$gen" $paths $(grep '^-' "$args") -b 1 --calibrate -o "$dir/f" > /dev/null 2> "$dir/gen.err"
cd "$dir/f"
ninja > /dev/null
t0=$(date +%s)
./run_all --results results-t1.csv -- --threads 1 > run1.log 2>&1
./run_all --results results-t2.csv -- --threads 2 > run2.log 2>&1
t1=$(date +%s)
"$agg" --db p.db ingest manifest.tsv results-t1.csv results-t2.csv > /dev/null 2>&1 || true
echo "# agg's prediction on a CPU: one thread to two"
echo
echo "Machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) cores;"
echo "$(uname -sr). Made by \`make bench-predict\` (bench/bench_predict_cpu.sh) on $(date -u +%Y-%m-%d):"
echo "models $models at batch 1 with \`gen --calibrate\`, every CPU benchmark run at \`--threads 1\`"
echo "and at \`--threads 2\` ($((t1 - t0)) s), then"
echo
echo "    agg --to threads=2 --report prediction,predict,roofline-models --format md"
echo
echo "Each two-thread layer time is predicted from the one-thread one (agg_roof.c: the roofline's part"
echo "scaled by the ceilings measured at each thread count, the rest by the peak ratio) and set"
echo "against the two-thread measurement. Busy rows (other work on the cores) are counted in the"
echo "busy column; the numbers are this machine's, once."
echo
"$agg" --db p.db report --to threads=2 --report prediction,predict,roofline-models --format md --top 0 |
    sed 's/^## /### /'
echo
echo "Runs: $(grep -h 'rows in' run1.log run2.log | tr '\n' ' ')"
