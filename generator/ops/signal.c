/* The signal operators: DFT, STFT, the window generators (HannWindow, HammingWindow,
 * BlackmanWindow) and MelWeightMatrix. Their scalar inputs (lengths, steps, the axis from
 * opset 20, the mel edges) decide the shapes and the work: known constants go in the layer
 * key as attributes, null where gen does not know them (the CPU backend then refuses the
 * layer rather than guess). */
#include <math.h>
#include <string.h>

#include "../plan.h"
#include "ops.h"

/* a scalar integer input's value, or -1 (absent: dflt) */
static int64_t scalar_in(const struct infer_ctx *c, int i, int64_t dflt)
{
    const struct ir_value *v = op_in_value(c, i);
    if (!v)
        return dflt;
    int64_t n;
    const int64_t *x = op_in_ints(c, i, &n);
    return x && n == 1 ? x[0] : -1;
}

/* DFT's axis: opset 20 takes it as input 2 (default -2), before as an attribute (default 1) */
static int64_t dft_axis(const struct infer_ctx *c, int rank, bool *known)
{
    int64_t axis;
    *known = true;
    if (c->opset >= 20) {
        const struct ir_value *v = op_in_value(c, 2);
        int64_t n;
        const int64_t *x = v ? op_in_ints(c, 2, &n) : NULL;
        if (v && (!x || n != 1)) {
            *known = false;
            return -1;
        }
        axis = x ? x[0] : -2;
    } else {
        axis = op_attr_i(c, "axis", 1);
    }
    return axis < 0 ? axis + rank : axis;
}

/* DFT: the axis becomes dft_length long (its first half and one when onesided), the last dim
 * (re, im); an inverse of a onesided spectrum is real ([..., 1]) */
static void infer_dft(struct infer_ctx *c)
{
    const struct ir_type *x = op_in_known(c, 0);
    if (!x)
        return;
    int dtype = x->dtype;
    bool known;
    int64_t axis = dft_axis(c, x->rank, &known);
    if (x->rank < 2 || (known && (axis < 0 || axis >= x->rank - 1))) {
        op_fail(c, "DFT axis out of range for rank %d", x->rank);
        return;
    }
    struct ir_dim *d = op_out(c, 0, dtype, x->rank);
    if (!known)
        return;
    bool inverse = op_attr_i(c, "inverse", 0) != 0, onesided = op_attr_i(c, "onesided", 0) != 0;
    for (int k = 0; k < x->rank - 1; k++)
        d[k] = x->dims[k];
    int64_t len = scalar_in(c, 1, dim_known(x->dims[axis]) ? (inverse && onesided ? 2 * (x->dims[axis].value - 1)
                                                                                  : x->dims[axis].value)
                                                             : -1);
    d[axis] = len < 0 ? dim_unknown() : dim_of(onesided && !inverse ? len / 2 + 1 : len);
    d[x->rank - 1] = dim_of(inverse && onesided ? 1 : 2);
}

/* STFT: [batch, frames, bins, 2] with frames = (length - frame_length) / frame_step + 1 */
static void infer_stft(struct infer_ctx *c)
{
    const struct ir_type *x = op_in(c, 0), *w = op_in(c, 2);
    int dtype = op_in_dtype(c, 0);
    struct ir_dim *d = op_out(c, 0, dtype, 4);
    if (!x || x->rank != 3) {
        if (x)
            op_fail(c, "STFT needs a signal [batch, length, 1 or 2], not rank %d", x->rank);
        return;
    }
    int64_t step = scalar_in(c, 1, -1);
    int64_t fl = scalar_in(c, 3, w && w->rank == 1 && dim_known(w->dims[0]) ? w->dims[0].value : -2);
    if (fl == -2) /* neither a window nor a frame length: the whole signal */
        fl = dim_known(x->dims[1]) ? x->dims[1].value : -1;
    d[0] = x->dims[0];
    d[3] = dim_of(2);
    if (step <= 0 || fl <= 0 || !dim_known(x->dims[1]))
        return;
    if (fl > x->dims[1].value) {
        op_fail(c, "STFT frame length %lld is longer than the signal (%lld)", (long long)fl,
                (long long)x->dims[1].value);
        return;
    }
    d[1] = dim_of((x->dims[1].value - fl) / step + 1);
    d[2] = dim_of(op_attr_i(c, "onesided", 1) ? fl / 2 + 1 : fl);
}

/* the windows: [size] of output_datatype (default float) */
static void infer_window(struct infer_ctx *c)
{
    int64_t size = scalar_in(c, 0, -1);
    op_out(c, 0, (int)op_attr_i(c, "output_datatype", IR_DTYPE_FLOAT), 1)[0] = size < 0 ? dim_unknown() : dim_of(size);
}

/* MelWeightMatrix: [dft_length / 2 + 1, num_mel_bins] of output_datatype (default float) */
static void infer_mel(struct infer_ctx *c)
{
    int64_t mels = scalar_in(c, 0, -1), len = scalar_in(c, 1, -1);
    struct ir_dim *d = op_out(c, 0, (int)op_attr_i(c, "output_datatype", IR_DTYPE_FLOAT), 2);
    d[0] = len < 0 ? dim_unknown() : dim_of(len / 2 + 1);
    d[1] = mels < 0 ? dim_unknown() : dim_of(mels);
}

static void name_op(const struct canon_ctx *c, struct bz_buf *name)
{
    for (const char *p = c->n->op_type; *p; p++)
        bz_buf_putc(name, (char)(*p >= 'A' && *p <= 'Z' ? *p + 32 : *p));
    bz_buf_putc(name, '_');
    canon_name_dims(name, canon_out(c, 0));
}

/* DFT: the axis (non-negative), inverse, onesided and dft_length (the output's length along
 * the axis says it only with onesided unset) */
static void canon_dft(const struct canon_ctx *c, struct json_t *attrs, struct bz_buf *name)
{
    const struct ir_type *x = canon_in(c, 0);
    if (c->opset >= 20 && c->n->n_inputs > 2 && c->n->inputs[2]) {
        canon_const_scalar(c, attrs, "axis", 2, true, NULL);
    } else {
        canon_set_i(attrs, "axis", c->opset >= 20 ? -2 : ir_node_attr_int(c->n, "axis", 1));
    }
    const json_t *a = json_object_get(attrs, "axis");
    if (json_is_integer(a) && json_integer_value(a) < 0)
        canon_set_i(attrs, "axis", json_integer_value(a) + x->rank);
    canon_default_i(c, attrs, "inverse", 0);
    canon_default_i(c, attrs, "onesided", 0);
    canon_const_scalar(c, attrs, "dft_length", 1, true, NULL);
    bz_buf_puts(name, "dft_");
    canon_name_dims(name, x);
}

/* STFT: frame_step, frame_length (the window's length when not given), onesided */
static void canon_stft(const struct canon_ctx *c, struct json_t *attrs, struct bz_buf *name)
{
    canon_const_scalar(c, attrs, "frame_step", 1, true, NULL);
    canon_const_scalar(c, attrs, "frame_length", 3, true, NULL);
    const struct ir_type *w = canon_in(c, 2);
    if (!json_object_get(attrs, "frame_length") && w && w->rank == 1 && dim_known(w->dims[0]))
        canon_set_i(attrs, "frame_length", w->dims[0].value);
    canon_default_i(c, attrs, "onesided", 1);
    bz_buf_puts(name, "stft_");
    canon_name_dims(name, canon_in(c, 0));
}

/* the windows: periodic (the size and type are the output's) */
static void canon_window_fn(const struct canon_ctx *c, struct json_t *attrs, struct bz_buf *name)
{
    canon_default_i(c, attrs, "periodic", 1);
    name_op(c, name);
}

/* MelWeightMatrix: the sample rate and the edges (the bins and length are the output's; the
 * length is kept, as odd and even lengths give the same output) */
static void canon_mel(const struct canon_ctx *c, struct json_t *attrs, struct bz_buf *name)
{
    canon_const_scalar(c, attrs, "dft_length", 1, true, NULL);
    canon_const_scalar(c, attrs, "sample_rate", 2, true, NULL);
    canon_const_scalar(c, attrs, "lower_edge_hertz", 3, false, NULL);
    canon_const_scalar(c, attrs, "upper_edge_hertz", 4, false, NULL);
    name_op(c, name);
}

/* ---- backends: plain C (runtime/plain_signal.h) ---- */

/* a known integer of the key (a constant input gen folded into it) */
static bool key_int(const struct layer_desc *d, enum desc_attr id)
{
    return desc_present(d, id) && desc_known(d, id);
}

/* the windows (a size gen does not know: the output's shape says it) */
static int window_plain(const struct layer_desc *d, struct pl_op *op)
{
    if (plan_pl_start(d, PL_WINDOW, PL_IDENTITY, -1, op) || !pl_is_float(op->out.dtype))
        return -1;
    op->sg.window = d->def->ids.variant;
    op->sg.periodic = d->a.periodic != 0;
    return op->out.nd == 1 && op->out.d[0] >= 1 ? 0 : -1;
}

/* DFT and STFT: the lengths and steps from the key, checked against the shapes the kernel walks
 * (a layer whose deciding inputs gen does not know is refused) */
static int transform_start(const struct layer_desc *d, int kind, struct pl_op *op)
{
    if (plan_pl_start(d, kind, PL_IDENTITY, -1, op) || !pl_is_float(op->out.dtype))
        return -1;
    const struct pl_tensor *x = &op->in[0];
    return x->dtype != op->out.dtype || x->nd < 2 || x->d[x->nd - 1] < 1 || x->d[x->nd - 1] > 2 ? -1 : 0;
}

static int stft_plain(const struct layer_desc *d, struct pl_op *op)
{
    if (transform_start(d, PL_STFT, op))
        return -1;
    struct pl_sg *sg = &op->sg;
    const struct pl_tensor *x = &op->in[0], *y = &op->out;
    if (!key_int(d, DA_frame_step) || !key_int(d, DA_frame_length))
        return -1;
    sg->step = d->a.frame_step;
    int64_t fl = d->a.frame_length;
    if (x->nd != 3 || y->nd != 4 || sg->step <= 0 || fl <= 0 || fl > x->d[1])
        return -1;
    sg->length = fl;
    if (desc_in(d, 2)) {
        op->nin = 2;
        if (plan_pl_tensor(desc_in(d, 2), &op->in[1]) || op->in[1].nd != 1 || op->in[1].d[0] != fl)
            return -1;
    }
    int onesided = d->a.onesided != 0;
    return y->d[0] == x->d[0] && y->d[1] == (x->d[1] - fl) / sg->step + 1 && y->d[2] == (onesided ? fl / 2 + 1 : fl) &&
                   y->d[3] == 2
               ? 0
               : -1;
}

/* DFT: the inverse of a onesided spectrum (a real output) is not benchmarked */
static int dft_plain(const struct layer_desc *d, struct pl_op *op)
{
    if (transform_start(d, PL_DFT, op))
        return -1;
    struct pl_sg *sg = &op->sg;
    const struct pl_tensor *x = &op->in[0], *y = &op->out;
    bool dl = desc_present(d, DA_dft_length);
    if (!key_int(d, DA_axis) || d->a.axis < 0 || d->a.axis >= x->nd - 1 || (dl && !key_int(d, DA_dft_length)))
        return -1;
    int64_t axis = d->a.axis, len = dl ? d->a.dft_length : x->d[axis];
    op->axis = (int)axis;
    sg->inverse = d->a.inverse != 0;
    int onesided = d->a.onesided != 0;
    sg->length = len;
    if ((sg->inverse && onesided) || len < 1 || y->nd != x->nd || y->d[y->nd - 1] != 2 ||
        y->d[axis] != (onesided ? len / 2 + 1 : len))
        return -1;
    for (int k = 0; k < x->nd - 1; k++)
        if (k != axis && y->d[k] != x->d[k])
            return -1;
    return 0;
}

PLAIN_PLANS(window_plans, window_plain, "plain C");
PLAIN_PLANS(stft_plans, stft_plain, "plain C");
PLAIN_PLANS(dft_plans, dft_plain, "plain C (FFT)");

static const struct op_attr window_attrs[] = {ATTR(periodic, 1), ATTR_END};
static const struct op_attr stft_attrs[] = {ATTR(frame_step, 0), ATTR(frame_length, 0), ATTR(onesided, 1), ATTR_END};
static const struct op_attr dft_attrs[] = {ATTR(axis, 0), ATTR(dft_length, 0), ATTR(inverse, 0), ATTR(onesided, 0),
                                           ATTR_END};

const struct op_def ops_signal[] = {
    {"DFT", infer_dft, 0, canon_dft, dft_attrs, &dft_plans, {0}, .schema = OP_SCHEMA(1, 3, 1, 1, 0x1, 17, 0)},
    {"STFT", infer_stft, 0, canon_stft, stft_attrs, &stft_plans, {0}, .schema = OP_SCHEMA(2, 4, 1, 1, 0x3, 17, 0)},
    {"HannWindow", infer_window, 0, canon_window_fn, window_attrs, &window_plans, {.variant = 0}, .schema = OP_SCHEMA(1, 1, 1, 1, 0x1, 17, 0)},
    {"HammingWindow", infer_window, 0, canon_window_fn, window_attrs, &window_plans, {.variant = 1}, .schema = OP_SCHEMA(1, 1, 1, 1, 0x1, 17, 0)},
    {"BlackmanWindow", infer_window, 0, canon_window_fn, window_attrs, &window_plans, {.variant = 2}, .schema = OP_SCHEMA(1, 1, 1, 1, 0x1, 17, 0)},
    {"MelWeightMatrix", infer_mel, 0, canon_mel, NULL, NULL, {0}, .schema = OP_SCHEMA(5, 5, 1, 1, 0x1f, 17, 0)},
    {0},
};
