/* The CUDA backend without a GPU: generated benchmarks compile and link against cuDNN and
 * cuBLAS (scripts/check-cuda-build), kernels of ours build with nvcc, a binary reports
 * `nodevice` cleanly, hostile model strings stay escaped, gen --repro writes a folder whose
 * files build with the command in their header. Skipped where no CUDA toolkit is installed. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "onnx_fixtures.h"
#include "test.h"

static char dir[] = "/tmp/bz-test-cuda-XXXXXX";


static const char *cuda_home(void)
{
    return test_env("CUDA_HOME", "/usr/local/cuda");
}

static bool have_cuda(void)
{
    char p[512];
    snprintf(p, sizeof(p), "%s/include/cudnn.h", cuda_home());
    if (access(p, R_OK) != 0) {
        TEST_SKIP("no CUDA toolkit with cuDNN at %s (set CUDA_HOME): skipped\n", cuda_home());
        return false;
    }
    return true;
}

/* BENANZA_CUDA_COMPILE=no (make asan-test): gen's part of a test runs, the build of the code
 * it wrote does not (that code is built with its folder's own flags, out of the sanitizers'
 * reach, and make test builds it) */
static bool cuda_compile_off(void)
{
    return !strcmp(test_env("BENANZA_CUDA_COMPILE", "yes"), "no");
}

static bool generated_code_built(const char *what)
{
    if (!cuda_compile_off())
        return true;
    print_message("BENANZA_CUDA_COMPILE=no: %s not built (make test's check)\n", what);
    return false;
}

/* The checks of the runtime's own code here (references, conversions, kernels run on the host)
 * build it with their own flags, not the sanitizers': with BENANZA_CUDA_COMPILE=no (make
 * asan-test) they are skipped, make test runs them */
static bool runtime_checks(void)
{
    if (!have_cuda())
        return false;
    if (cuda_compile_off()) {
        TEST_SKIP("BENANZA_CUDA_COMPILE=no: a check of the runtime's code built with its own flags (make test's)\n");
        return false;
    }
    return true;
}

static void write_fixture(enum fixture f, const char *path)
{
    uint8_t *data;
    size_t n = fixture_build(f, &data);
    assert_int_equal(bz_write_file_atomic(path, data, n), 0);
    free(data);
}

static char *slurp(const char *path)
{
    char *text = NULL;
    size_t len;
    if (bz_read_file(path, 1 << 26, &text, &len) != BZ_READ_OK)
        return NULL;
    return text;
}

/* The fixture whose node, tensor and graph names hold comment ends, newlines, quotes,
 * backslashes, $, spaces, ../ and bytes that are not UTF-8, in a file whose name has a space,
 * a $ and a non-ASCII letter: every generated file compiles (CPU and CUDA, -Werror), and the
 * names appear only escaped. */
static void cuda_hostile_names(void **state)
{
    (void)state;
    if (!have_cuda())
        return;
    char model[300], out[300];
    snprintf(model, sizeof(model), "%s/hostile $x \xc3\xa9.onnx", dir);
    snprintf(out, sizeof(out), "%s/hostile", dir);
    write_fixture(FIXTURE_HOSTILE_NAMES, model);
    const char *gen = test_env("BENANZA_GEN", "bin/gen");
    /* with the calibration benchmarks (gen --calibrate: cuBLAS GEMMs, a device copy, the empty
     * kernel; oneDNN's GEMM and copy); --top-k 1: later ranks differ only in BZ_OP's rank;
     * CUDA types f32 and f16 only: the names reach a file the same way whatever its type (every
     * family's code in every type is cuda_shared_compile's), and the other three types would
     * add 94 library and 6 kernel files to build (179 -> 116 s); ninja's C compiler with
     * warnings as errors (CC, which gen writes into build.ninja) */
    assert_int_equal(test_sh("CC='cc -Wall -Wextra -Werror' %s --backend all --calibrate --top-k 1 --types f32,f16 -b 1 '%s' -o '%s' "
                             "2>'%s.gen.log'",
                             gen,
                             model, out, out),
                     0);
    assert_int_equal(test_sh("cd '%s' && test -f bench/calib-gpu-copy-f32-memcpy.c && test -f bench/calib-gpu-launch-f32-kernel.cu "
                             "&& test -f bench/calib-gpu-gemm-f16-default.c && test ! -e bench/calib-gpu-gemm-bf16-default_tensor_op.c "
                             "&& test -f agg/agg_specs.c",
                             out),
                     0);
    /* no raw byte of the names anywhere in the generated text: no CR, no 0xff, no injected
     * line, no comment closed early (every '*' '/' pair in a file is its own comment end) */
    assert_int_equal(test_sh("cd '%s' && ! LC_ALL=C grep -l -P '\\r|\\xff' bench/* build.ninja run_all benchmarks.tsv", out), 0);
    assert_int_equal(test_sh("cd '%s' && ! grep -l '^#define\\s*$' bench/*", out), 0);
    /* the node's name, quoted C-style, in the header comment of its benchmarks */
    static const char want[] = "(Conv 'conv * / \\\"q\\\" \\'q\\' \\\\ $HOME $(id) ../../x\\n#define\\r\\t\\xff\\xfe\\xc3\\xa9";
    char wf[400];
    snprintf(wf, sizeof(wf), "%s.want", out);
    assert_int_equal(bz_write_file_atomic(wf, want, strlen(want)), 0);
    assert_int_equal(test_sh("cd '%s' && grep -l -F -f '%s' bench/*-f32-implicit_gemm.c bench/*-f32-c_plain.c 2>/dev/null | grep -q .", out, wf),
                     0);
    assert_int_equal(test_sh("cd '%s' && grep -q 'hostile \\$x \xc3\xa9@1' benchmarks.tsv", out), 0);
    if (!generated_code_built("the hostile fixture's folder"))
        return;
    /* everything builds, warnings as errors: ninja (CPU, CUDA library and kernel benchmarks, the
     * aggregator), the kernels' host code at -O0 (what is checked is that they compile: nvcc
     * took 6.9 s a kernel file with the host code at -O3, 4.9 s at -O0, alone on this machine;
     * the device code is optimised whatever -O says); check-cuda-build checks the files'
     * defines (BC_FAMILY, BC_FAMILIES, BK_KINDS, ...) without building anything again (-O2's
     * warnings on each library family and type are cuda_shared_compile's and
     * cuda_half_models') */
    assert_int_equal(test_sh("cd '%s' && sed -i 's/^nvccflags = -O3 /nvccflags = -O0 -Werror all-warnings /' build.ninja && "
                             "grep -q '^nvccflags = -O0 -Werror all-warnings ' build.ninja && grep -q '^cc = cc -Wall -Wextra -Werror$' build.ninja",
                             out),
                     0);
    assert_int_equal(test_sh("ninja -C '%s' > '%s.ninja.log' 2>&1 || { tail -30 '%s.ninja.log'; exit 1; }", out, out, out), 0);
    assert_int_equal(test_sh("scripts/check-cuda-build --no-alone --no-kernels '%s' > '%s.check.log' 2>&1 || { cat '%s.check.log'; exit 1; }",
                             out, out, out),
                     0);
    /* a kernel benchmark whose BK_KINDS leaves out the kernel it launches is refused */
    assert_int_equal(test_sh("cd '%s' && mkdir -p wrong/bench && f=$(ls bench/*-kernel.cu | head -1) && "
                             "sed 's/^#define BK_KINDS 0x[0-9a-f]*u/#define BK_KINDS 0x00u/' \"$f\" > wrong/$f && "
                             "! grep -q '^#define BK_KINDS 0x00u' \"$f\" && grep -q '^#define BK_KINDS 0x00u' wrong/$f",
                             out),
                     0);
    /* and so is a library benchmark whose BC_FAMILY is not its BZ_OP's family, and one whose
     * BC_FAMILIES (the families gen left the code of) does not start with it */
    assert_int_equal(test_sh("cd '%s' && f=$(ls bench/*-f32-implicit_gemm.c | head -1) && grep -q '^#define BC_FAMILY BC_CONV$' \"$f\" && "
                             "sed 's/^#define BC_FAMILY BC_CONV$/#define BC_FAMILY BC_POOL/' \"$f\" > wrong/$f && "
                             "grep -q '^#define BC_FAMILY BC_POOL$' wrong/$f && "
                             "f=$(ls bench/*-f32-implicit_precomp_gemm.c | head -1) && grep -q '^#define BC_FAMILIES (BC_FAM_CONV)$' \"$f\" && "
                             "sed 's/^#define BC_FAMILIES (BC_FAM_CONV)$/#define BC_FAMILIES (BC_FAM_POOL)/' \"$f\" > wrong/$f && "
                             "grep -q '^#define BC_FAMILIES (BC_FAM_POOL)$' wrong/$f",
                             out),
                     0);
    assert_int_equal(test_sh("scripts/check-cuda-build '%s/wrong' > '%s.wrong.log' 2>&1; test $? = 1 && "
                             "grep -q 'FAILED: .*-kernel.cu: kind BK_[A-Z]*, type .*: BK_KINDS 0x00u' '%s.wrong.log' && "
                             "grep -q 'FAILED: .*-f32-implicit_gemm.c: BC_FAMILY BC_POOL, BZ_OP.s family BC_CONV' '%s.wrong.log' && "
                             "grep -q 'FAILED: .*-f32-implicit_precomp_gemm.c: BC_FAMILIES starts with BC_FAM_POOL, BZ_OP.s family is "
                             "BC_CONV' '%s.wrong.log' || { cat '%s.wrong.log'; exit 1; }",
                             out, out, out, out, out, out),
                     0);
    /* a library benchmark's setup refuses an operation of a family its code was not compiled
     * for (a hand-edited BZ_OP), before any library call: no GPU needed to see it. The driver
     * includes the edited file and calls its setup. */
    static const char driver[] =
        "#define main bz_file_main\n#include \"lib.c\"\n#undef main\n"
        "int main(void)\n{\n    static struct bc_state st;\n    static struct bh_result r;\n    st.op = &OP;\n"
        "    enum bh_status s = bc_lib_setup(&st, &r);\n    printf(\"%d %s\\n\", (int)s, r.note);\n"
        "    bc_lib_teardown(&st);\n    return s == BH_ERROR ? 0 : 1;\n}\n";
    char df[400];
    snprintf(df, sizeof(df), "%s/guard", out);
    assert_int_equal(test_sh("mkdir -p '%s'", df), 0);
    snprintf(df, sizeof(df), "%s/guard/driver.c", out);
    assert_int_equal(bz_write_file_atomic(df, driver, strlen(driver)), 0);
    assert_int_equal(test_sh("cd '%s' && f=$(ls bench/*-f32-implicit_gemm.c | head -1) && "
                             "sed 's/\\.family = BC_CONV,/.family = BC_POOL,/' \"$f\" > guard/lib.c && "
                             "grep -q '^#define BC_FAMILY BC_CONV$' guard/lib.c && grep -q '\\.family = BC_POOL,' guard/lib.c && "
                             "cc -std=c11 -Wall -Wextra -Werror -Wno-unused-function guard/driver.c -o guard/driver -I'%s/include' "
                             "-I'%s/extras/CUPTI/include' -L'%s/lib64' -Wl,-rpath,'%s/lib64' -lcudnn -lcublasLt -lcublas -lcudart "
                             "-ldl -lm && ./guard/driver > guard/out.txt && "
                             "grep -q \"family (4) is not the file's BC_FAMILY (0)\" guard/out.txt || { cat guard/out.txt; exit 1; }",
                             out, cuda_home(), cuda_home(), cuda_home(), cuda_home()),
                     0);
    /* a CUDA binary without a GPU: one row, nodevice, exit 3 */
    assert_int_equal(test_sh("cd '%s' && f=$(ls bin/*-f32-implicit_precomp_gemm | head -1) && $f > row.csv; "
                        "test $? = 3 && grep -q ',nodevice,' row.csv && test $(wc -l < row.csv) = 1",
                        out),
                     0);
    /* run_all without a GPU: the CPU benchmarks run, the first CUDA one says nodevice and the
     * others are skipped; a second run tries the CUDA ones again (nodevice is not finished) */
    assert_int_equal(test_sh("cd '%s' && ./run_all -- --iters 1 --min-ms 1 > run1.log 2>&1 && "
                        "grep -q 'CUDA benchmarks skipped: no GPU' run1.log && "
                        "test $(grep -c ',nodevice,' results.csv) = 1 && "
                        "test $(awk -F, '$6 == \"cpu\" && $10 == \"ok\"' results.csv | wc -l) -ge 4 && "
                        "./run_all -- --iters 1 --min-ms 1 > run2.log 2>&1 && "
                        "test $(grep -c ',nodevice,' results.csv) = 2 && ! grep -q 'nothing to run' run2.log",
                        out),
                     0);
    /* the CPU benchmarks run and verify with these names */
    assert_int_equal(test_sh("cd '%s' && ./run_all --backend cpu --again --list > list.txt && "
                        "for f in $(grep -v -e -any -e -ref_ list.txt | head -3); do ./bin/$f --verify --iters 1 --min-ms 1 >> cpu.csv || exit 1; "
                        "done; test $(grep -c ',ok,.*verified against' cpu.csv) = 3",
                        out),
                     0);
}

/* The runtime's float -> half and bfloat16 conversions (the fill of f16/bf16 buffers) against
 * numpy and ml_dtypes, over 20,000 floats and the edge cases */
static void cuda_half_conversions(void **state)
{
    (void)state;
    if (!runtime_checks())
        return;
    const char *py = test_env("PYTHON", "python3");
    TEST_NEED_PY(py, "numpy, ml_dtypes");
    assert_int_equal(test_sh("cc -std=c11 -Wall -Wextra -Werror -I'%s/include' test/cuda_convert.c -o '%s/convert' "
                        "-L'%s/lib64' -lcudart -lm",
                        cuda_home(), dir, cuda_home()),
                     0);
    assert_int_equal(test_sh("%s test/oracle/half_check.py '%s/convert'", py, dir), 0);
}

/* The host references that --verify holds every library benchmark to (runtime/cuda_ref.h),
 * against oneDNN's reference implementations on the same inputs, every family; each must also
 * reject an output moved past its tolerance (test/cuda_ref_check.c) */
static void cuda_host_references(void **state)
{
    (void)state;
    if (!runtime_checks())
        return;
    assert_int_equal(test_sh("cc -std=c11 -O1 -Wall -Wextra -Werror -I'%s/include' test/cuda_ref_check.c -o '%s/refcheck' "
                             "-L'%s/lib64' -Wl,-rpath,'%s/lib64' -ldnnl -lcudnn -lcublasLt -lcublas -lcudart -ldl -lm && '%s/refcheck' > "
                             "'%s/refcheck.log'; rc=$?; grep -v '^ok' '%s/refcheck.log'; exit $rc",
                             cuda_home(), dir, cuda_home(), cuda_home(), dir, dir, dir),
                     0);
}

/* The fused attention kernels' host reference (what --verify holds them to) against numpy:
 * strided operands, one head, added and Where masks, f16 and bf16 (test/attention_ref_check.cu,
 * test/oracle/attention_ref_check.py); built by nvcc, host code only. cuDNN fused attention's
 * check, br_sdpa_compare, held to the same cases (test/sdpa_ref_check.c) */
static void cuda_attention_reference(void **state)
{
    (void)state;
    if (!runtime_checks())
        return;
    assert_int_equal(test_sh("'%s/bin/nvcc' -std=c++17 -Werror all-warnings test/attention_ref_check.cu -o '%s/attref' -ldl "
                             "&& '%s/attref' > '%s/attref.jsonl'",
                             cuda_home(), dir, dir, dir),
                     0);
    /* cuDNN fused attention's check (br_sdpa_compare) held to the same cases */
    assert_int_equal(test_sh("cc -std=c11 -O1 -Wall -Wextra -Werror -I'%s/include' test/sdpa_ref_check.c -o '%s/sdparef' "
                             "-L'%s/lib64' -Wl,-rpath,'%s/lib64' -ljansson -lcudnn -lcublasLt -lcublas -lcudart -lm -ldl && "
                             "'%s/sdparef' < '%s/attref.jsonl' > '%s/sdparef.log'; rc=$?; grep -v '^ok' '%s/sdparef.log'; exit $rc",
                             cuda_home(), dir, cuda_home(), cuda_home(), dir, dir, dir, dir),
                     0);
    const char *py = test_env("BENANZA_PYTHON", "python3");
    TEST_NEED_PY(py, "numpy");
    assert_int_equal(test_sh("%s test/oracle/attention_ref_check.py < '%s/attref.jsonl' > '%s/attref.log'; rc=$?; "
                             "grep -v '^ok' '%s/attref.log'; exit $rc",
                             py, dir, dir, dir),
                     0);
}

/* device code of ours run on the host (test/NAME.cc over test/kernel_emu.h's stand-ins for
 * threads, barriers, shuffles, cp.async and WMMA): every line it prints is "ok", else the
 * others are shown and the test fails. Built by the C++ compiler (C++20; a CUDA thread is a
 * fiber there); CUDA's headers only, no GPU, no CUDA library. */
static void emu_check(const char *name)
{
    /* -O1: kernels_emu.cc compiles in 8 s instead of 16 at -O2 and runs as fast (2 s) */
    assert_int_equal(test_sh("${CXX:-g++} -std=c++20 -O1 -Wall -Wextra -Werror -Wno-unknown-pragmas -Wno-unused-parameter "
                             "-Wno-unused-function -I'%s/include' test/%s.cc -o '%s/%s' && "
                             "'%s/%s' > '%s/%s.log'; rc=$?; grep -v '^ok' '%s/%s.log'; exit $rc",
                             cuda_home(), name, dir, name, dir, name, dir, name, dir, name),
                     0);
}

/* The attention kernels held to the host reference with --verify's tolerance
 * (test/attention_emu.cc): bk_attention_split before any GPU ran it, and the two kernels an
 * H100 verified, as the check on the stand-ins. */
static void cuda_attention_emulated(void **state)
{
    (void)state;
    if (runtime_checks())
        emu_check("attention_emu");
}

/* The element-wise (bk_flat4 and the walk), LayerNorm, Transpose and Concat kernels in f32,
 * f16 and bf16 through bk_setup, bk_launch and --verify's bk_verify_run over a CUDA runtime of
 * host memory (test/kernels_emu.cc), and --verify failing each when one output bit is flipped */
static void cuda_kernels_emulated(void **state)
{
    (void)state;
    if (runtime_checks())
        emu_check("kernels_emu");
}

/* a host-only check of ours (test/NAME.cu, built by nvcc with LIBS): every line it prints is
 * "ok", else the others are shown and the test fails */
static void host_check(const char *name, const char *libs)
{
    assert_int_equal(test_sh("'%s/bin/nvcc' -std=c++17 -Werror all-warnings test/%s.cu -o '%s/%s' %s && '%s/%s' > "
                             "'%s/%s.log'; rc=$?; grep -v '^ok' '%s/%s.log'; exit $rc",
                             cuda_home(), name, dir, name, libs, dir, name, dir, name, dir, name),
                     0);
}

/* Our Resize kernel's arithmetic against ONNX's Resize (the plain C one) and its channels-last
 * indexing against the NCHW resize of the transposed input, in f32, f16 and bf16
 * (test/resize_ref_check.cu; host code, built by nvcc) */
static void cuda_resize_layouts(void **state)
{
    (void)state;
    if (runtime_checks())
        host_check("resize_ref_check", "-ldl");
}

/* Our Split kernel's indexing against the plain C Split, and the LayerNorm reference our kernel
 * is verified against (plain, and a residual sum's) against oneDNN (test/kernel_ref_check.cu;
 * host code, built by nvcc) */
static void cuda_kernel_references(void **state)
{
    (void)state;
    if (runtime_checks())
        host_check("kernel_ref_check", "-ldl -ldnnl");
}

/* gen --repro LAYER: just that layer's benchmarks, in a folder of their own; each builds with
 * the command in its header comment alone (CUDA_HOME set for the CUDA ones) */
static void cuda_repro(void **state)
{
    (void)state;
    if (!have_cuda())
        return;
    char model[300], out[300];
    snprintf(model, sizeof(model), "%s/tiny_cnn.onnx", dir);
    snprintf(out, sizeof(out), "%s/repro", dir);
    write_fixture(FIXTURE_TINY_CNN, model);
    const char *gen = test_env("BENANZA_GEN", "bin/gen");
    /* the first Conv's layer id, from the layer table */
    assert_int_equal(test_sh("%s --layers -b 1 '%s' | awk '$3 == \"Conv\" {print $1; exit}' > '%s.layer'", gen, model, out), 0);
    char path[400];
    snprintf(path, sizeof(path), "%s.layer", out);
    char *layer = slurp(path);
    assert_non_null(layer);
    layer[strcspn(layer, "\n")] = '\0';
    assert_int_equal((int)strlen(layer), 16);
    /* --types f32: every file's header command is one of two (a CUDA library one, a oneDNN one)
     * whatever its type (76 files in all types, each built below) */
    assert_int_equal(test_sh("%s --backend all --top-k 1 --types f32 -b 1 '%s' --repro %s -o '%s' 2>'%s.log'", gen, model, layer,
                             out, out),
                     0);
    /* only that layer's files */
    assert_int_equal(test_sh("cd '%s' && test $(ls | grep -v -c '^%s-') = 0 && ls | grep -q 'f32-implicit_gemm.c$' && "
                        "ls | grep -q 'c$'",
                        out, layer),
                     0);
    if (!generated_code_built("the repro folder")) {
        free(layer);
        return;
    }
    /* each .c builds with its own header's command, run from its folder (as many at a time as
     * there are cores) */
    assert_int_equal(test_sh("cd '%s' && export CUDA_HOME='%s' && ls *.c | xargs -P \"$(nproc)\" -I{} sh -c '"
                        "cmd=$(grep -m1 \"^ \\*     cc \" \"$1\" | sed \"s/^ \\*     //\"); "
                        "eval \"$cmd\" 2> \"$1.err\" || { echo \"$1: $cmd\"; cat \"$1.err\"; exit 255; }' _ {}",
                        out, cuda_home()),
                     0);
    free(layer);
}

/* A model whose every tensor is f16, and one all bf16 (test/oracle/half_models.py: a CNN with
 * a Gemm, a LayerNorm and a Transpose, an MLP): their convolutions, GEMMs, pooling and
 * activations have the libraries' benchmarks (cuDNN, cuBLAS) in the model's own type alone
 * (f16 and f16tc; bf16 also where --types names none of it), none in another, and oneDNN's in
 * that type and in f32 (a CPU without 16-bit kernels: e2e_half_models); the
 * LayerNorm and the Transpose, which our kernels take in f32, a kernel in f16 alone; no layer is
 * left without a CUDA or a CPU benchmark, and every CUDA file compiles (scripts/check-cuda-build) */
static void cuda_half_models(void **state)
{
    (void)state;
    if (!have_cuda())
        return;
    const char *py = test_env("BENANZA_PYTHON", "python3");
    TEST_NEED_PY(py, "onnx, ml_dtypes");
    const char *gen = test_env("BENANZA_GEN", "bin/gen");
    char out[300];
    snprintf(out, sizeof(out), "%s/half", dir);
    assert_int_equal(test_sh("%s test/oracle/half_models.py '%s.models'", py, out), 0);
    assert_int_equal(test_sh("%s --backend all -b 1 --top-k 1 --types f32,tf32,f16tc '%s.models/f16_cnn.onnx' "
                             "'%s.models/bf16_mlp.onnx' -o '%s' 2> '%s.gen.log' && ! grep 'benchmark yet' '%s.gen.log'",
                             gen, out, out, out, out, out),
                     0);
    /* each model's layers (their names end in the type), and their library files by type */
    assert_int_equal(test_sh("cd '%s' && for t in f16 bf16; do awk -F'\t' -v t=\"_$t\" "
                             "'$1 == \"layer\" && substr($5, length($5) - length(t) + 1) == t {print $2}' manifest.tsv > ids.$t; "
                             "test -s ids.$t || exit 1; done && "
                             "for t in f16 bf16; do ls bench | grep -F -f ids.$t | grep '\\.c$' | sed 's,^,bench/,' | "
                             "xargs grep -l '^static const struct bc_lib_op OP' | sed 's,^bench/[0-9a-f]*-,,; s/-.*//' | sort -u > types.$t; "
                             "ls bench | grep -F -f ids.$t | grep '\\.c$' | sed 's,^,bench/,' | xargs grep -L '^static const struct bc_lib_op OP' | "
                             "sed 's,^bench/[0-9a-f]*-,,; s/-.*//' | sort -u > cpu.$t; done && "
                             "printf 'f16\\nf16tc\\n' | cmp - types.f16 && printf 'bf16\\n' | cmp - types.bf16 && "
                             "printf 'f16\\nf32\\n' | cmp - cpu.f16 && printf 'bf16\\nf32\\n' | cmp - cpu.bf16 && "
                             "ls bench | grep -F -f ids.f16 | grep '\\.cu$' | grep -v -e '-f16-kernel' | ( ! grep . ) && "
                             "test $(ls bench | grep -F -f ids.f16 | grep -c -e '-f16-kernel.cu$') -ge 2 && "
                             "ls bench | grep -q -e '-f16tc-default_tensor_op.c$' && ls bench | grep -q -e '-f16tc-lt0.c$' && "
                             "ls bench | grep -q -e '-f16tc-implicit_precomp_gemm.c$' && ls bench | grep -q -e '-bf16-lt0.c$'",
                             out),
                     0);
    /* real models exported in f16 (test/oracle/to_f16.py): ResNet-20 and DistilBERT (its
     * attention with a bool mask, its GELU and LayerNorm written out) of ../shared, every layer
     * covered and none in another float type (the mask's bool layers are in theirs) */
    char models[400];
    if (test_shared_models(models, sizeof(models))) {
        assert_int_equal(test_sh("for m in resnet20-cifar10-pytorch-opset9 distilbert-tiny-cls-pytorch-opset11; do "
                                 "%s test/oracle/to_f16.py '%s/'$m.onnx '%s.models/'$m-f16.onnx || exit 1; done && "
                                 "%s --backend cuda -b 1 --top-k 1 --types f32,tf32,f16tc '%s.models/resnet20-cifar10-pytorch-opset9-f16.onnx' "
                                 "'%s.models/distilbert-tiny-cls-pytorch-opset11-f16.onnx' "
                                 "--dim=distilbert-tiny-cls-pytorch-opset11-f16:sequence=128 -o '%s.real' 2> '%s.real.log' && "
                                 "! grep 'no CUDA benchmark' '%s.real.log' && ls '%s.real/bench' | grep -q -e '-f16tc-sdpa_heurA_0.c$' -e "
                                 "'-f16-kernel.cu$' && ! ls '%s.real/bench' | grep -e '-f32-' -e '-tf32-' -e '-bf16-'",
                                 py, models, out, gen, out, out, out, out, out, out, out),
                         0);
    } else {
        print_message("%s not found: the f16 exports of shared models not tried\n", models);
    }
    if (!generated_code_built("the 16-bit models' folder"))
        return;
    assert_int_equal(test_sh("scripts/check-cuda-build '%s' > '%s.check.log' 2>&1 || { cat '%s.check.log'; exit 1; }",
                             out, out, out),
                     0);
}

/* Every shared model and every zoo model at batch 1 (the first rank of each heuristic's
 * answers), and a grouped-query attention model: all CUDA library benchmarks compile and link
 * with -Wall -Wextra -Werror, one per family builds alone, one kernel benchmark per kernel kind
 * builds with nvcc, a binary without a GPU says nodevice (scripts/check-cuda-build). */
static void cuda_shared_compile(void **state)
{
    (void)state;
    if (!have_cuda())
        return;
    char models[400];
    if (!test_shared_models(models, sizeof(models))) {
        TEST_SKIP("%s not found: the shared models are not here; skipped\n", models);
        return;
    }
    const char *gen = test_env("BENANZA_GEN", "bin/gen");
    char out[300];
    snprintf(out, sizeof(out), "%s/shared", dir);
    /* Llama's grouped-query attention (the oracle writes it, where its python has onnx): the
     * kernels' and cuDNN's attention files of K and V with fewer heads than Q */
    char gqa[400] = "";
    const char *py = test_env("BENANZA_PYTHON", "python3");
    if (test_py_has(py, "onnx")) {
        snprintf(gqa, sizeof(gqa), "'%s/llama_gqa.onnx' --dim=llama_gqa:seq=7", dir);
        assert_int_equal(test_sh("%s test/oracle/attention_check.py model '%s/llama_gqa.onnx'", py, dir), 0);
    } else {
        printf("[  note  ] %s has no onnx (scripts/setup installs it): no grouped-query attention model\n", py);
    }
    /* --top-k 1: the heuristics' later ranks differ from rank 0 only in BZ_OP's rank */
    assert_int_equal(test_sh("%s --backend cuda -b 1 --top-k 1 %s/*.onnx %s/*/*.onnx --zoo resnet50 --zoo vgg16 --zoo mobilenet_v2 "
                        "--zoo inception_v3 --zoo bert_base --zoo gpt2 --zoo vit_base $(grep '^-' bench/shared_models.args) "
                        "%s -o '%s' 2>'%s.gen.log'",
                        gen, models, models, gqa, out, out),
                     0);
    /* the grouped-query group's cuDNN attention file records its K and V heads */
    if (*gqa)
        assert_int_equal(test_sh("grep -l -F '.rep = 4' '%s'/bench/*-sdpa_heurA_0.c | grep -q .", out), 0);
    if (cuda_compile_off()) {
        TEST_SKIP("BENANZA_CUDA_COMPILE=no: gen ran on every model; the compile check is make test's\n");
        return;
    }
    assert_int_equal(test_sh("scripts/check-cuda-build '%s' > '%s.check.log' 2>&1; rc=$?; cat '%s.check.log'; exit $rc", out,
                        out, out),
                     0);
}

/* scripts/gpu-run pack: the folder gen writes (for the toolkit folder run makes there), packed
 * whole, its manifest beside it; bad arguments are exit 2; run against this machine's toolkit
 * (a GPU machine's cuDNN comes as a wheel: tried by hand), out of budget and resumed; in the cuda
 * group's lane: its builds are nvcc's */
static void gpu_run_pack(void **state)
{
    (void)state;
    char m[300];
    snprintf(m, sizeof(m), "%s/pack.onnx", dir);
    write_fixture(FIXTURE_RESIDUAL, m);
    const char *exe = test_env("BENANZA_GEN", "bin/gen");
    assert_int_equal(test_sh("GEN=%s scripts/gpu-run pack '%s/pk' '%s' -b 1 --top-k 1 --types f32 2>/dev/null && "
                             "test -s '%s/pk/manifest.tsv' && test ! -e '%s/pk/folder' && "
                             "xz -dc '%s/pk/folder.tar.xz' | tar -tf - > '%s/pk/list' && "
                             "grep -q '^folder/build.ninja$' '%s/pk/list' && grep -q '^folder/bench/.*-f32-heurA_0\\.c$' '%s/pk/list' && "
                             "xz -dc '%s/pk/folder.tar.xz' | tar -xOf - folder/build.ninja | grep -q '^cuda_home = /tmp/bz-cuda$'",
                             exe, dir, m, dir, dir, dir, dir, dir, dir, dir),
                     0);
    /* --keep: an earlier run's rows of the library benchmarks the folder has, not our kernels'
     * (the .cu files), a benchmark it lacks, a wrong row (run again) */
    assert_int_equal(test_sh("cd '%s' && l=$(sed -n 's|^folder/bench/\\(.*-f32-heurA_0\\)\\.c$|\\1|p' pk/list | head -1) && "
                             "k=$(sed -n 's|^folder/bench/\\(.*\\)\\.cu$|\\1|p' pk/list | head -1) && test -n \"$l\" && "
                             "test -n \"$k\" && printf 'schema,bench,status\\n2,%%s,ok\\n2,%%s,ok\\n2,gone-f32-x,ok\\n2,%%s,bogus\\n2,%%s,wrong\\n' "
                             "\"$l\" \"$k\" \"$l\" \"$l\" > keep.csv && cd - >/dev/null && "
                             "GEN=%s scripts/gpu-run pack '%s/pk2' --keep '%s/keep.csv' '%s' -b 1 --top-k 1 --types f32 2>/dev/null && "
                             "xz -dc '%s/pk2/folder.tar.xz' | tar -xOf - folder/results.csv > '%s/kept' && "
                             "test \"$(cat '%s/kept')\" = \"$(printf 'schema,bench,status\\n2,%%s,ok' \"$l\")\" || "
                             "{ cat '%s/kept'; exit 1; }; "
                             "scripts/gpu-run pack '%s/pk3' --keep 2>/dev/null; test $? = 2",
                             dir, exe, dir, dir, m, dir, dir, dir, dir, dir),
                     0);
    assert_int_equal(test_sh("scripts/gpu-run run '%s/none' 2>/dev/null; test $? = 2 && "
                             "scripts/gpu-run bogus 2>/dev/null; test $? = 2 && scripts/gpu-run --help | grep -q 'pack DIR'",
                             dir),
                     0);
    /* run, where there is a toolkit (no GPU needed): a budget too short for the build is exit
     * 5 with what was done copied out; the same command again resumes in the unpacked folder,
     * builds the rest and runs it (here: one nodevice row), then gpu_check (GPU_CHECK: with no GPU
 * it times nothing, exit 3, its log copied out) */
    const char *cuda = cuda_home();
    if (test_sh("test -x '%s/bin/nvcc' && test -r '%s/include/cudnn.h'", cuda, cuda) != 0) {
        print_message("no CUDA toolkit with cuDNN at %s: gpu-run run not tried\n", cuda);
    } else if (generated_code_built("gpu-run run's folder")) {
        assert_int_equal(test_sh("export CUDA_ROOT='%s' GPU_RUN_WORK='%s/pkw' MEASURE_TORCH=0; "
                                 "OUT='%s/o1' GPU_RUN_BUDGET=1 scripts/gpu-run run '%s/pk' 2> '%s/o1.log'; test $? = 5 && "
                                 "grep -q 'partial=1' '%s/o1/machine.txt' && test -s '%s/o1/ninja.log' && "
                                 "OUT='%s/o2' GPU_CHECK=2 NCU=/bin/true scripts/gpu-run run '%s/pk' -- --iters 1 2> '%s/o2.log' && "
                                 "grep -q 'resuming in' '%s/o2.log' && grep -q 'partial=0' '%s/o2/machine.txt' && "
                                 "grep -q ',nodevice,' '%s/o2/results.csv' && grep -q 'gpu_check exit 3' '%s/o2.log' && "
                                 "grep -q 'no sampled benchmark timed' '%s/o2/gpu_check.log' || "
                                 "{ cat '%s/o1.log' '%s/o2.log'; exit 1; }",
                                 cuda, dir, dir, dir, dir, dir, dir, dir, dir, dir, dir, dir, dir, dir, dir, dir, dir),
                         0);
    }
    assert_int_equal(test_sh("rm -rf '%s/pk' '%s/pkw' '%s/o1' '%s/o2'", dir, dir, dir, dir), 0);
    unlink(m);
}

/* gpu_check's verdicts on stand-in benchmarks and a stand-in ncu (test/gpu_check_standins.sh):
 * a median above CUPTI's kernel time by the launch gap passes, overlapping kernels under their
 * sum pass; an enqueue-bound median, a CUPTI sample slower than the median, ncu far from CUPTI
 * and noisy medians fail; ncu asked to leave the caches as they are; no GPU needed */
static void gpu_check_verdicts(void **state)
{
    (void)state;
    char m[300];
    snprintf(m, sizeof(m), "%s/gc.onnx", dir);
    write_fixture(FIXTURE_RESIDUAL, m);
    assert_int_equal(test_sh("test/gpu_check_standins.sh '%s' '%s' '%s' > '%s/gc.log' 2>&1; rc=$?; "
                             "[ $rc = 0 ] || cat '%s/gc.log'; exit $rc",
                             test_env("BENANZA_GEN", "bin/gen"), dir, m, dir, dir),
                     0);
    assert_int_equal(test_sh("rm -rf '%s/gc' '%s/gc-gen'", dir, dir), 0);
    unlink(m);
}

void test_cuda_group(struct test_totals *tot)
{
    if (!mkdtemp(dir)) {
        fprintf(stderr, "cannot make %s\n", dir);
        exit(1);
    }
    struct CMUnitTest tests[] = {
        cmocka_unit_test(cuda_half_conversions),
        cmocka_unit_test(cuda_host_references),
        cmocka_unit_test(cuda_attention_reference),
        cmocka_unit_test(cuda_attention_emulated),
        cmocka_unit_test(cuda_kernels_emulated),
        cmocka_unit_test(cuda_resize_layouts),
        cmocka_unit_test(cuda_kernel_references),
        cmocka_unit_test(cuda_hostile_names),
        cmocka_unit_test(cuda_repro),
        cmocka_unit_test(cuda_half_models),
        cmocka_unit_test(cuda_shared_compile),
        cmocka_unit_test(gpu_run_pack),
        cmocka_unit_test(gpu_check_verdicts),
    };
    test_group_run(tot, "cuda", tests, BZ_ARRAY_LEN(tests));
    if (!getenv("BENANZA_KEEP"))
        test_sh("rm -rf '%s'", dir);
}
