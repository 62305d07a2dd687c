/* Recurrent layers: LSTM, GRU, RNN (both layouts, all directions). */
#include <string.h>

#include "ops.h"

static void infer_rnn(struct infer_ctx *c)
{
    const struct ir_type *x = op_in(c, 0);
    int dtype = op_in_dtype(c, 0);
    int64_t hidden = op_attr_i(c, "hidden_size", -1);
    const char *dir = op_attr_s(c, "direction", "forward");
    int64_t nd = !strcmp(dir, "bidirectional") ? 2 : 1;
    bool batch_first = op_attr_i(c, "layout", 0) != 0;
    struct ir_dim seq = dim_unknown(), batch = dim_unknown();
    if (x && x->rank == 3) {
        seq = x->dims[batch_first ? 1 : 0];
        batch = x->dims[batch_first ? 0 : 1];
    }
    struct ir_dim h = hidden > 0 ? dim_of(hidden) : dim_unknown();
    if (hidden <= 0) {
        /* from R: [num_directions, gates*hidden, hidden] */
        const struct ir_type *r = op_in(c, 2);
        if (r && r->rank == 3)
            h = r->dims[2];
    }
    if (c->n->n_outputs > 0 && c->n->outputs[0]) {
        struct ir_dim *d = op_out(c, 0, dtype, 4);
        if (batch_first) {
            d[0] = batch;
            d[1] = seq;
        } else {
            d[0] = seq;
            d[2] = batch;
        }
        d[batch_first ? 2 : 1] = dim_of(nd);
        d[3] = h;
    }
    for (int o = 1; o < c->n->n_outputs && o < 3; o++) {
        if (!c->n->outputs[o])
            continue;
        struct ir_dim *d = op_out(c, o, dtype, 3);
        d[batch_first ? 1 : 0] = dim_of(nd);
        d[batch_first ? 0 : 1] = batch;
        d[2] = h;
    }
}

const struct op_def ops_rnn[] = {
    {"LSTM", infer_rnn, 0, NULL},
    {"GRU", infer_rnn, 0, NULL},
    {"RNN", infer_rnn, 0, NULL},
    {NULL, NULL, 0, NULL},
};
