#!/bin/bash
# gpu_check's verdicts without a GPU: the gpu_check gen writes into a CUDA folder, run in a
# folder of stand-ins (shell scripts that print a results row with the median, kernel_us and
# kernel count of a case, three runs each) and a stand-in ncu (it prints each kernel's
# gpu__time_duration as ncu's --csv does, and nothing unless asked for --cache-control none:
# ncu's default flushes the caches before every kernel, a cold L2 beside warm medians). The
# cases are rows of the 2026-11-26 H100 and H200 runs and the 2026-11-23 H100 probe:
#   gap       one kernel, 4.89 us against CUPTI's 3.84 (the launch gap): pass
#   overlap   cuDNN's FFT, 244 kernels, 663.66 us against their summed 865.0: pass
#   host      the 2026-11-23 enqueue-bound median, 29.95 us against 10.39: FAIL
#   slowcupti one kernel whose CUPTI sample took 3.31 us beside a 2.48 median: FAIL
#   ncufar    ncu 17.4 us against CUPTI's 12.46: FAIL
#   noisy     medians 10, 11 and 12 us: FAIL
#   memset    a kernel and a memset (CUPTI's kernels=2; copies=1): ncu sees one kernel: pass
#   copyonly  a memcpy alone: nothing for ncu, skipped
# Prints gpu_check's output; exit 0 when every verdict and the exit statuses are as above.
#
#   test/gpu_check_standins.sh GEN DIR MODEL.onnx
set -u
gen=${1:?usage: gpu_check_standins.sh GEN DIR MODEL.onnx} dir=${2:?} model=${3:?}
"$gen" "$model" --backend cuda -b 1 --top-k 1 --types f32 -o "$dir/gc-gen" > /dev/null 2>&1 ||
    { echo "gen failed"; exit 1; }
f=$dir/gc
rm -rf "$f"
mkdir -p "$f/bin" "$f/bench" "$f/spec"
cp "$dir/gc-gen/gpu_check" "$f/"
cat > "$f/ncu" << 'EOF'
#!/bin/bash
# a stand-in ncu: --version, or the kernel records of bin/NAME (spec/NAME's last two fields:
# kernels per iteration and ns per kernel), one line per kernel launch as ncu --csv prints them
[ "${1:-}" = --version ] && { echo "NVIDIA (R) Nsight Compute Command Line Profiler (stand-in)"; exit 0; }
case " $* " in *" --cache-control none "*) ;; *) exit 0 ;; esac
for a in "$@"; do case "$a" in bin/*) b=${a#bin/} ;; esac; done
read -r _ _ _ _ k ns _ < "spec/$b"
for i in $(seq $((6 * k))); do echo "\"$i\",\"1\",\"x\",\"k\",\"gpu__time_duration.sum\",\"nsecond\",\"$ns\""; done
EOF
chmod +x "$f/ncu"
printf '# file\tlayer\top\tmodels\tbackend\n' > "$f/benchmarks.tsv"
# NAME: three medians, kernel_us, kernels, ncu's ns per kernel[, memsets and copies]
case_() {
    local name=L$1-f32-kernel
    shift
    echo "$*" > "$f/spec/$name"
    : > "$f/bench/$name.cu"
    printf '%s\tL\tRelu\ttoy@1\tcuda\n' "$name" >> "$f/benchmarks.tsv"
    cat > "$f/bin/$name" << 'EOF'
#!/bin/bash
# a stand-in benchmark: the next of its three medians (a run counter beside its spec)
b=$(basename "$0")
read -r m1 m2 m3 kus k _ c < "spec/$b"
n=$(cat "spec/$b.n" 2>/dev/null || echo 0)
echo $((n + 1)) > "spec/$b.n"
m=$(echo "$m1 $m2 $m3" | cut -d' ' -f$((n % 3 + 1)))
facts="kernels=$((k + ${c:-0}))"
[ -z "$c" ] || facts="$facts; copies=$c"
echo "2,$b,L,l,Relu,cuda,kernel,f32,default,ok,100,$m,$m,$m,$m,$m,0,0,1,1,0,100,GPU S,9.0,132,lib,h,2026-11-26T00:00:00Z,blocking,$kus,,$facts; kernel_names=k"
EOF
    chmod +x "$f/bin/$name"
}
case_ gap 4.89 4.89 4.89 3.84 1 4200
case_ overlap 663.66 663.66 663.66 865.0 244 3566
case_ host 29.95 29.95 29.95 10.39 1 11000
case_ slowcupti 2.48 2.48 2.48 3.31 1 3000
case_ ncufar 13.56 13.56 13.56 12.46 1 17400
case_ noisy 10 11 12 10 1 10000
case_ memset 5.0 5.0 5.0 3.9 1 3700 1
case_ copyonly 510 510 510 509 0 0 1
cd "$f" || exit 1
./gpu_check --help | grep -q 'cache-control none' || { echo "--help: no word of the caches"; exit 1; }
./gpu_check --ncu ./ncu > out.log 2>&1
rc=$?
cat out.log
want="copyonly skip
gap pass
host FAIL
memset pass
ncufar FAIL
noisy FAIL
overlap pass
slowcupti FAIL"
got=$(awk -F, 'NR > 1 { sub(/^L/, "", $1); sub(/-f32-kernel$/, "", $1); print $1, $NF }' gpu_check.csv | sort)
[ "$got" = "$want" ] || { printf 'verdicts:\n%s\nwanted:\n%s\n' "$got" "$want"; exit 1; }
[ $rc = 1 ] || { echo "gpu_check exit $rc, not 1 (3 of 7 pass)"; exit 1; }
# nothing written but gpu_check.csv (an awk printf's '>' once made files of the spreads)
stray=$(ls | grep -vxE 'bench|benchmarks.tsv|bin|gpu_check|gpu_check.csv|ncu|out.log|spec')
[ -z "$stray" ] || { echo "gpu_check wrote files: $stray"; exit 1; }
# the three that pass and the one skipped, alone: exit 0; no ncu: exit 3
grep -v -e host -e slowcupti -e ncufar -e noisy benchmarks.tsv > b && mv b benchmarks.tsv
./gpu_check --ncu ./ncu > out2.log 2>&1 || { cat out2.log; echo "gpu_check failed on the two that pass"; exit 1; }
./gpu_check --ncu ./no-such-ncu > /dev/null 2>&1
rc=$?
[ $rc = 3 ] || { echo "gpu_check without ncu: exit $rc, not 3"; exit 1; }
echo "gpu_check_standins: ok"
