#!/bin/bash
# The CUDA backend's build cost on this machine (no GPU needed): benchmark files per zoo model
# at batch 1 (library .c by family, kernel .cu), and gen + ninja wall time for resnet50 and
# bert_base. Prints Markdown (make bench-cuda writes it to docs/bench/cuda-build.md).
#   bench/bench_cuda_build.sh GEN [--counts]
# --counts: the file counts only (minutes), without the gen + ninja timings (most of an hour
# on 2 cores)
set -euo pipefail
GEN=${1:?usage: bench_cuda_build.sh GEN [--counts]}
COUNTS_ONLY=0
[ "${2:-}" = --counts ] && COUNTS_ONLY=1
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
cores=$(nproc)
cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')
echo "# CUDA backend: benchmark files and build time"
echo
echo "Measured by \`make bench-cuda\` (bench/bench_cuda_build.sh) on $cpu, $cores cores, $(date -u +%Y-%m-%d);"
echo "$(cc --version | head -1), $(${CUDA_HOME:-/usr/local/cuda}/bin/nvcc --version | tail -1). No GPU is needed to build."
echo
echo "## Files per zoo model (batch 1, \`gen --zoo NAME -b 1 --backend cuda\`)"
echo
echo "| model | files | conv (8 fwd algos) | advice | fused conv | gemm | other cuDNN | kernels (.cu) | of them attention | of them batch norm | of them other f16, bf16 |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
attn() { { grep -l -m1 "kind = BK_ATTENTION;" "$1"/*.cu 2>/dev/null || true; } | wc -l; }
bnorm() { { grep -l -m1 "kind = BK_BATCHNORM;" "$1"/*.cu 2>/dev/null || true; } | wc -l; }
# our kernels in a 16-bit type, but attention's, Resize's and batch norm's (always in three types)
half16() { { grep -L -m1 "kind = BK_\(ATTENTION\|RESIZE\|BATCHNORM\);" "$1"/*-f16-*.cu "$1"/*-bf16-*.cu 2>/dev/null || true; } | wc -l; }
for z in resnet50 vgg16 mobilenet_v2 inception_v3 bert_base gpt2 vit_base; do
    "$GEN" --zoo $z -b 1 --backend cuda -o "$W/$z" 2>/dev/null
    b=$W/$z/bench
    total=$(ls "$b" | wc -l)
    fam() { { grep -l -m1 "\.family = $1," "$b"/*.c 2>/dev/null || true; } | wc -l; }
    conv=$(fam BC_CONV); adv=$(fam BC_ADVICE); fused=$(fam BC_CONV_FUSED); gemm=$(( $(fam BC_GEMM) + $(fam BC_GEMV) ))
    cu=$(find "$b" -name "*.cu" | wc -l)
    other=$((total - conv - adv - fused - gemm - cu))
    echo "| $z | $total | $conv | $adv | $fused | $gemm | $other | $cu | $(attn "$b") | $(bnorm "$b") | $(half16 "$b") |"
done
echo
echo "## Fast paths per model (batch 1, \`gen MODEL -b 1 --backend cuda\`, --top-k 8; ../shared's dynamic models with bench/shared_models.args)"
echo
echo "The benchmark kinds of the fast-paths work: attention groups (gen's fusion finds the scaled"
echo "dot-product attention) and their flash-attention kernel files (f32, tf32, f16, bf16) and cuDNN fused-attention"
echo "engine configurations (sdpa_heurA_k, f16tc and bf16); channels-last"
echo "cuDNN convolutions (nhwc_implicit_gemm, nhwc_implicit_precomp_gemm); cuDNN backend-API engine"
echo "configurations (heurA_k in NCHW, nhwc_heurA_k channels-last, every type but f8); cuBLASLt (ltK) for the GEMMs, of them with an epilogue (the"
echo "fused Gemm/MatMul + bias [+ Relu] groups), and again with a constant weight prepacked [n, k] (ltnkK); the 4-D activations an NHWC plan may transpose"
echo "(manifest relayout lines) and their cudnnTransformTensor files; the other channels-last
files (ConvTranspose's nhwc_algo0/1, our Resize's and batch norm's nhwc_kernel) and our Resize kernel files
in all (f32, f16, bf16, in both layouts); an attention group's parts (manifest part lines attn_scores and
attn_context: its two products as strided batched GEMMs on the heads in place) and their files (cuBLAS default and
default_tensor_op, cuBLASLt ltK)."
echo
echo "| model | files | attention groups | fused attention layers | flash-attention (.cu) | cuDNN attention (sdpa_heurA) | nhwc conv | engine configs | cuBLASLt | cuBLASLt with epilogue | cuBLASLt, weight prepacked (ltnk) | relayout values | relayout files | other channels-last | Resize kernels (.cu) | attention parts | their GEMM files |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
SHARED=${SHARED:-../shared}
binds=()
[ -r bench/shared_models.args ] && while read -r l; do case $l in -*) binds+=("$l") ;; esac; done < bench/shared_models.args
count() { { ls "$1" | grep -c -- "$2" || true; } }
row() { # NAME DIR
    local groups layers epi rel relfiles
    rel=$(grep -c "^relayout	" "$2/manifest.tsv" || true)
    relfiles=$({ grep "^relayout	" "$2/manifest.tsv" || true; } | cut -f7,8 | tr '\t' '\n' | sort -u |
        while read -r id; do ls "$2/bench" | grep -c -- "^$id-.*-cudnn\.c$" || true; done | awk '{s += $1} END {print s + 0}')
    groups=$(grep -c "^group.*	attention	" "$2/manifest.tsv" || true)
    layers=$({ grep "^group.*	attention	" "$2/manifest.tsv" || true; } | cut -f5 | sort -u | wc -l)
    epi=$({ grep -l -m1 "\.epilogue = CUBLASLT_EPILOGUE_[A-Z_]*BIAS\|\.epilogue = CUBLASLT_EPILOGUE_RELU\b" "$2/bench"/*-lt[0-9]*.c 2>/dev/null || true; } | wc -l)
    resize=$({ grep -l -m1 "kind = BK_RESIZE;" "$2/bench"/*.cu 2>/dev/null || true; } | wc -l)
    parts=$(grep -c "^part	.*	attn_\(scores\|context\)	" "$2/manifest.tsv" || true)
    pfiles=$({ grep "^part	.*	attn_\(scores\|context\)	" "$2/manifest.tsv" || true; } | cut -f5 | sort -u |
        while read -r id; do ls "$2/bench" | grep -c -- "^$id-" || true; done | awk '{s += $1} END {print s + 0}')
    echo "| $1 | $(ls "$2/bench" | wc -l) | $groups | $layers | $(attn "$2/bench") | $(count "$2/bench" -sdpa_heurA_) | $(count "$2/bench" -nhwc_implicit) | $(count "$2/bench" '-\(nhwc_\)\?heurA_') | $(count "$2/bench" '-lt[0-9]') | $epi | $(count "$2/bench" '-ltnk[0-9]') | $rel | $relfiles | $(count "$2/bench" '-nhwc_\(algo[0-9]\|kernel\)\.') | $resize | $parts | $pfiles |"
}
for z in resnet50 vgg16 mobilenet_v2 inception_v3 bert_base gpt2 vit_base; do
    row "$z (zoo)" "$W/$z"
done
if [ -d "$SHARED/models" ]; then
    for m in "$SHARED"/models/*.onnx; do
        n=$(basename "$m" .onnx)
        "$GEN" "$m" -b 1 "${binds[@]}" --backend cuda -o "$W/s-$n" 2>/dev/null || continue
        row "$n" "$W/s-$n"
    done
fi
[ "$COUNTS_ONLY" = 1 ] && exit 0
echo
echo "## gen + ninja wall time (batch 1, $cores cores)"
echo
echo "| model | gen | ninja | .c files | .cu files | ninja per file |"
echo "|---|---:|---:|---:|---:|---:|"
for z in resnet50 bert_base; do
    rm -rf "$W/t"
    t0=$(date +%s.%N)
    "$GEN" --zoo $z -b 1 --backend cuda -o "$W/t" 2>/dev/null
    t1=$(date +%s.%N)
    ninja -C "$W/t" > "$W/ninja.log" 2>&1 || { tail "$W/ninja.log" >&2; exit 1; }
    t2=$(date +%s.%N)
    nc=$(ls "$W/t/bench"/*.c | wc -l); ncu=$(find "$W/t/bench" -name "*.cu" | wc -l)
    printf '| %s | %.1f s | %.0f s | %d | %d | %.3f s |\n' $z "$(echo "$t1 - $t0" | bc)" "$(echo "$t2 - $t1" | bc)" "$nc" "$ncu" \
        "$(echo "($t2 - $t1) / ($nc + $ncu)" | bc -l)"
done
echo
echo "ninja per file: the wall time over the files it built ($cores jobs at a time; a kernel .cu file"
echo "takes nvcc about 4 s alone (its one kernel: BK_KINDS), a library .c file the C compiler well under one)."
