/* libFuzzer target: gen's path from ONNX bytes through loading, the node check and shape
 * inference (at the model's batch and at -b 2) to layer keys, dedupe and fusion: the code a
 * hostile model reaches. Built and run by `make fuzz` (clang, ASan, UBSan). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "fusion.h"
#include "layers.h"
#include "onnx_load.h"
#include "shape.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static FILE *null;
    if (!null)
        null = fopen("/dev/null", "w");
    for (int batch = 0; batch <= 2; batch += 2) {
        struct bz_buf err;
        bz_buf_init(&err);
        struct ir_model *m = NULL;
        if (onnx_load_buffer(data, size, "fuzz.onnx", &m, &err) != ONNX_LOAD_OK) {
            bz_buf_free(&err);
            return 0;
        }
        bz_buf_free(&err);
        struct bz_diag diag = {.out = null};
        struct shape_opts o = {.batch = batch};
        struct shape_result res;
        int invalid = shape_infer(m, &o, &diag, &res);
        free(res.unsupported);
        if (invalid) {
            ir_model_free(m);
            return 0;
        }
        struct layer_set set;
        layer_set_init(&set);
        struct model_run run = {.name = bz_model_name("fuzz.onnx"), .path = "fuzz.onnx", .batch = batch, .m = m};
        layers_add_run(&set, &run, 0);
        fusion_find(&set, &run, 0);
        layers_unique_names(&set);
        model_run_free(&run);
        layer_set_free(&set);
    }
    return 0;
}
