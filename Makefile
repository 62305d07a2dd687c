# benanza: plain Makefile. Knobs are ?= so that `make CC=clang` etc. work.
CC        ?= cc
CUDA_HOME ?= /usr/local/cuda
ONNX_PROTO ?= /usr/include/onnx/onnx.proto
# the tests' Python: the project's virtual environment, which scripts/setup makes
TEST_PYTHON ?= $(CURDIR)/.venv/bin/python
SHARED    ?= ../shared
ONNX_TESTDATA ?= /usr/share/libonnx-testdata/data

BUILD  ?= build
BINDIR ?= bin
OPT    ?= -O2 -g
SAN    ?=

WARN      = -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
            -Wpointer-arith -Wformat=2 -Wno-format-nonliteral -Wvla
CPPFLAGS += -D_GNU_SOURCE -Igenerator -I$(BUILD)/pb
ALL_CFLAGS = -std=c11 $(OPT) $(SAN) $(WARN) $(CFLAGS) -MD -MP
LDLIBS_GEN = -lprotobuf-c -ljansson -ldnnl -lm

GEN_LIB_SRCS = generator/base.c generator/ir.c generator/onnx_load.c generator/dump.c \
               generator/mustache.c generator/shape.c generator/layers.c generator/fusion.c generator/relayout.c \
               generator/pipeline.c generator/emit.c generator/emit_cpu.c generator/emit_cuda.c generator/re2posix.c \
               generator/attrs.c generator/desc.c generator/plan.c generator/calib.c generator/folder.c $(wildcard generator/ops/*.c) \
               generator/zoo/builder.c generator/zoo/models.c generator/zoo/zoo.c
GEN_MAIN_SRC = generator/main.c
# the aggregator: plain C and SQLite, no generator code (gen also copies it into out/agg/)
AGG_SRCS     = runtime/agg/agg.c runtime/agg/agg_util.c runtime/agg/agg_csv.c runtime/agg/agg_db.c \
               runtime/agg/agg_model.c runtime/agg/agg_report.c runtime/agg/agg_roof.c runtime/agg/agg_out.c runtime/agg/agg_html.c
AGG_HDRS     = runtime/agg/agg.h
TEST_SRCS    = test/test_main.c test/test_base.c test/test_mustache_spec.c \
               test/test_mustache.c test/test_loader.c test/test_cli.c test/onnx_fixtures.c \
               test/test_util.c test/test_shapes.c test/test_layers.c test/test_zoo.c test/test_e2e.c \
               test/test_agg.c test/test_runner.c test/test_cuda.c
BENCH_SRCS   = bench/bench_load.c bench/bench_gen.c

PB_C   = $(BUILD)/pb/onnx.pb-c.c
PB_H   = $(BUILD)/pb/onnx.pb-c.h
PB_OBJ = $(BUILD)/obj/pb/onnx.pb-c.o

obj = $(patsubst %.c,$(BUILD)/obj/%.o,$(1))
# templates and the runtime headers gen inlines travel inside gen
EMBED_FILES = runtime/harness.h runtime/dnnl_ops.h runtime/dnnl_bench.h \
              runtime/plain_ops.h runtime/plain_index.h runtime/plain_reduce.h runtime/plain_quant.h runtime/plain_sample.h runtime/plain_linalg.h runtime/plain_signal.h runtime/plain_nn.h runtime/plain_random.h runtime/plain_select.h runtime/plain_string.h runtime/plain_rnn.h templates/cpu/plain.c.mustache \
              templates/cpu/dnnl.c.mustache templates/cuda/lib.c.mustache templates/cuda/kernel.cu.mustache runtime/cuda_kernels.cuh runtime/cuda_bench.h runtime/cudnn_ops.h runtime/cuda_ref.h runtime/cublas_ops.h templates/build.ninja.mustache templates/run_all.mustache templates/folder_readme.mustache templates/gpu_check.mustache runtime/run_all.c \
              $(AGG_HDRS) $(AGG_SRCS) runtime/agg/gpu_specs.tsv
# the GPU spec table, compiled into agg (and written with its sources into every folder)
AGG_SPECS_C = $(BUILD)/agg_specs.c
AGG_OBJS = $(call obj,$(AGG_SRCS)) $(call obj,$(AGG_SPECS_C))
EMBED_OBJ = $(BUILD)/obj/embedded.o
GEN_LIB_OBJS = $(call obj,$(GEN_LIB_SRCS)) $(PB_OBJ) $(EMBED_OBJ)

.PHONY: all test asan-test demo bench bench-cuda bench-predict check-cuda setup clean help unit-test fuzz
.DEFAULT_GOAL := all

all: $(BINDIR)/gen $(BINDIR)/agg

help:
	@echo "make            build bin/gen and bin/agg"
	@echo "make demo       the main job on the built-in default model"
	@echo "make test       all tests (installs what is missing first)"
	@echo "make asan-test  the same tests under ASan/UBSan"
	@echo "make fuzz       the libFuzzer targets (gen's loader to layers, agg's ingest), FUZZ_S s each (FUZZ_TARGETS=gen|agg: one)"
	@echo "make bench      benchmarks; results go to docs/bench/"
	@echo "make bench-cuda CUDA benchmark file counts and build times -> docs/bench/cuda-build.md"
	@echo "make bench-predict agg's prediction, one CPU thread to two -> docs/results/cpu/prediction.md"
	@echo "make check-cuda build every generated CUDA benchmark of the shared and zoo models alone"
	@echo "make clean      remove build/, bin/ and out/"

setup:
	@scripts/setup

# protobuf-c code is generated from the system's onnx.proto, never committed
$(PB_C) $(PB_H): $(ONNX_PROTO)
	@mkdir -p $(BUILD)/pb
	protoc-c --c_out=$(BUILD)/pb -I$(dir $(ONNX_PROTO)) $(ONNX_PROTO)

# generated code is not ours: no -Werror on it
$(PB_OBJ): $(PB_C)
	@mkdir -p $(dir $@)
	$(CC) -std=c11 $(OPT) $(SAN) $(CFLAGS) $(CPPFLAGS) -c $< -o $@

$(BUILD)/tools/embed: generator/tools/embed.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -O1 $(WARN) $< -o $@

$(AGG_SPECS_C): $(BUILD)/tools/embed runtime/agg/gpu_specs.tsv
	$(BUILD)/tools/embed --symbol agg_gpu_specs $@ runtime/agg/gpu_specs.tsv

$(BUILD)/embedded.c: $(BUILD)/tools/embed $(EMBED_FILES) $(AGG_SPECS_C)
	$(BUILD)/tools/embed $@ $(EMBED_FILES) runtime/agg/agg_specs.c=$(AGG_SPECS_C)

$(EMBED_OBJ): $(BUILD)/embedded.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 $(OPT) $(SAN) -c $< -o $@

$(BUILD)/obj/%.o: %.c | $(PB_H)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(CPPFLAGS) -c $< -o $@

$(BINDIR)/gen: $(call obj,$(GEN_MAIN_SRC)) $(GEN_LIB_OBJS)
	@mkdir -p $(BINDIR)
	$(CC) $(OPT) $(SAN) $(LDFLAGS) $^ -o $@ $(LDLIBS_GEN)

$(BINDIR)/agg: $(AGG_OBJS)
	@mkdir -p $(BINDIR)
	$(CC) $(OPT) $(SAN) $(LDFLAGS) $^ -o $@ -lsqlite3 -lm

$(BUILD)/test/unit: $(call obj,$(TEST_SRCS)) $(GEN_LIB_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(OPT) $(SAN) $(LDFLAGS) $^ -o $@ $(LDLIBS_GEN) -lcmocka -lsqlite3

$(BUILD)/bench/%: $(BUILD)/obj/bench/%.o $(GEN_LIB_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(OPT) $(SAN) $(LDFLAGS) $^ -o $@ $(LDLIBS_GEN)

# The python oracle summarises every model with the onnx package; the C loader
# test holds our IR against it. Directories that are absent are skipped there.
ORACLE = $(BUILD)/test/onnx_summary.tsv
$(ORACLE): test/oracle/onnx_summary.py
	@mkdir -p $(dir $@)
	$(TEST_PYTHON) test/oracle/onnx_summary.py $(SHARED)/models $(addprefix $(ONNX_TESTDATA)/,node pytorch-converted pytorch-operator simple) > $@.tmp
	@mv $@.tmp $@

SHAPE_ORACLE = $(BUILD)/test/onnx_shapes.tsv
$(SHAPE_ORACLE): test/oracle/shape_summary.py test/oracle/onnx_summary.py
	@mkdir -p $(dir $@)
	$(TEST_PYTHON) test/oracle/shape_summary.py $(SHARED)/models $(addprefix $(ONNX_TESTDATA)/,node pytorch-converted pytorch-operator simple) > $@.tmp
	@mv $@.tmp $@

# The zoo written by gen, read back by the onnx package: checker, shapes, parameters.
ZOO_ORACLE = $(BUILD)/test/zoo_check.txt
ZOO_SPECS = resnet50 vgg16 mobilenet_v2 inception_v3 bert_base gpt2 vit_base
$(ZOO_ORACLE): $(BINDIR)/gen test/oracle/zoo_check.py
	@mkdir -p $(BUILD)/test/zoo
	@for z in $(ZOO_SPECS); do $(BINDIR)/gen --zoo $$z -o $(BUILD)/test --layers >/dev/null || exit 1; done
	$(TEST_PYTHON) test/oracle/zoo_check.py $(BUILD)/test/zoo > $@.tmp || true
	@mv $@.tmp $@

# BENANZA_CUDA_COMPILE=no: the builds of generated CUDA folders are skipped (the compile check
# of every generated CUDA benchmark, the hostile-names and repro folders), and so are the host
# checks of the runtime's CUDA-side code (references, conversions, kernels on the host): they
# test code built with its own flags, not ours under the sanitizers; asan-test runs gen on the
# same models and leaves the builds to test
BENANZA_CUDA_COMPILE ?= yes
# BENANZA_E2E_SEMANTICS=0: the e2e tests stop after gen (asan-test: ninja builds the rest,
# run_all and the folder's bin/agg, with the folder's flags, out of the sanitizers' reach)
BENANZA_E2E_SEMANTICS ?= 1
unit-test: $(BINDIR)/gen $(BINDIR)/agg $(BUILD)/test/unit $(ORACLE) $(SHAPE_ORACLE) $(ZOO_ORACLE)
	BENANZA_GEN=$(BINDIR)/gen BENANZA_AGG=$(BINDIR)/agg BENANZA_SHARED=$(SHARED) BENANZA_ONNX_TESTDATA=$(ONNX_TESTDATA) \
	BENANZA_ORACLE=$(ORACLE) BENANZA_SHAPE_ORACLE=$(SHAPE_ORACLE) BENANZA_ZOO_ORACLE=$(ZOO_ORACLE) \
	BENANZA_CUDA_COMPILE=$(BENANZA_CUDA_COMPILE) BENANZA_E2E_SEMANTICS=$(BENANZA_E2E_SEMANTICS) \
	PYTHON=$(TEST_PYTHON) BENANZA_PYTHON=$(TEST_PYTHON) BENANZA_OBJDIR=$(BUILD)/obj/generator scripts/test-lanes $(BUILD)/test/unit

test: setup
	@$(MAKE) --no-print-directory unit-test

asan-test: setup
	@$(MAKE) --no-print-directory BUILD=build/asan BINDIR=build/asan/bin OPT="-O1 -g" \
	    SAN="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" \
	    BENANZA_CUDA_COMPILE=no BENANZA_E2E_SEMANTICS=0 unit-test

# The main job on the built-in default model: zoo resnet50 at batch 1 through
# gen -> ninja -> run_all -> the lower-bound latency on this CPU (oneDNN backend).
# A second run resumes: only what changed is rebuilt, only missing rows are run. The timing
# is shorter than a benchmark's default (a minimum of 30 ms instead of 100; --max-ms caps the
# slow implementations, oneDNN's reference ones above all, at about 250 ms of timed runs), so
# that the ~1340 benchmarks oneDNN offers on an AVX-512 machine build and run in minutes (README).
DEMO_RUN_FLAGS ?= --warmup 2 --iters 5 --min-ms 30 --max-ms 250
demo:
	@scripts/setup --no-python
	@$(MAKE) --no-print-directory all
	@echo "== 1/4 gen: zoo resnet50, batch 1 -> out/"
	$(BINDIR)/gen --zoo resnet50 -b 1 -o out
	@echo "== 2/4 ninja: build the benchmarks"
	cd out && ninja
	@echo "== 3/4 run_all: run them (results in out/results.csv)"
	cd out && ./run_all -- $(DEMO_RUN_FLAGS)
	@echo "== 4/4 agg: the reports (database out/results.db; more: out/bin/agg --help)"
	cd out && ./bin/agg . --report bound,top-ops,algo,fusion

bench: setup
	@$(MAKE) --no-print-directory $(BUILD)/bench/bench_load $(BUILD)/bench/bench_gen
	@mkdir -p docs/bench
	$(BUILD)/bench/bench_load $(SHARED)/models | tee docs/bench/load.md
	$(BUILD)/bench/bench_gen $(SHARED)/models bench/shared_models.args | tee docs/bench/gen.md
	@$(MAKE) --no-print-directory $(BINDIR)/gen $(BINDIR)/agg
	bench/bench_agg.sh $(BINDIR)/gen $(BINDIR)/agg $(SHARED) bench/shared_models.args | tee docs/bench/agg.md

# agg's prediction checked where both sides are measured: one CPU thread to two (about 20
# minutes on 2 cores; the machine should be otherwise idle)
bench-predict: setup
	@$(MAKE) --no-print-directory $(BINDIR)/gen $(BINDIR)/agg
	@mkdir -p docs/results/cpu
	bench/bench_predict_cpu.sh $(BINDIR)/gen $(BINDIR)/agg $(SHARED) bench/shared_models.args | tee docs/results/cpu/prediction.md.tmp
	@mv docs/results/cpu/prediction.md.tmp docs/results/cpu/prediction.md

# The CUDA backend's file counts and build times (long: it builds resnet50's and bert_base's
# benchmarks with ninja); no GPU needed
bench-cuda: setup
	@$(MAKE) --no-print-directory $(BINDIR)/gen
	@mkdir -p docs/bench
	bench/bench_cuda_build.sh $(BINDIR)/gen > docs/bench/cuda-build.md.tmp
	@mv docs/bench/cuda-build.md.tmp docs/bench/cuda-build.md
	@cat docs/bench/cuda-build.md

# Every generated CUDA benchmark of the shared and zoo models at batch 1 built alone, the way
# ninja builds them (make test checks them all in batches; this is the slow, literal check)
check-cuda: all
	rm -rf $(BUILD)/check-cuda
	$(BINDIR)/gen --backend cuda -b 1 $(SHARED)/models/*.onnx $(SHARED)/models/*/*.onnx --zoo resnet50 --zoo vgg16 \
	    --zoo mobilenet_v2 --zoo inception_v3 --zoo bert_base --zoo gpt2 --zoo vit_base $$(grep '^-' bench/shared_models.args) \
	    -o $(BUILD)/check-cuda
	scripts/check-cuda-build $(BUILD)/check-cuda --all

# libFuzzer (clang) under ASan/UBSan: gen from ONNX bytes to layers, agg from any file to every
# report; each runs its kept regression inputs, then FUZZ_S seconds (scripts/fuzz)
FUZZ_S ?= 60
FUZZ_TARGETS ?= gen agg
FUZZ_SAN = -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
fuzz:
	@scripts/setup --fuzz
	@$(MAKE) --no-print-directory BUILD=build/fuzz BINDIR=build/fuzz/bin CC=clang OPT="-O1 -g" \
	    SAN="$(FUZZ_SAN) -fsanitize=fuzzer-no-link" build/fuzz/fuzz_gen build/fuzz/fuzz_agg
	FUZZ_TARGETS="$(FUZZ_TARGETS)" scripts/fuzz build/fuzz $(FUZZ_S) $(SHARED) $(ONNX_TESTDATA)

$(BUILD)/fuzz_gen: $(BUILD)/obj/fuzz/fuzz_gen.o $(GEN_LIB_OBJS)
	$(CC) $(OPT) $(SAN) -fsanitize=fuzzer $^ -o $@ $(LDLIBS_GEN)

$(BUILD)/fuzz_agg: $(BUILD)/obj/fuzz/fuzz_agg.o $(call obj,$(filter-out runtime/agg/agg.c,$(AGG_SRCS))) $(call obj,$(AGG_SPECS_C))
	$(CC) $(OPT) $(SAN) -fsanitize=fuzzer $^ -o $@ -lsqlite3 -lm

clean:
	rm -rf build bin out

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
