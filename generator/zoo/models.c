/* The built-in zoo: canonical architectures as ONNX graphs with dims-only weights.
 * ResNet-50 v1.5, VGG-16, MobileNetV2 and Inception-v3 follow torchvision's definitions;
 * BERT-base (uncased) and GPT-2 small follow the published configurations. */
#include <stdlib.h>
#include <string.h>

#include "zoo/zoo.h"

enum { F32 = 1, I64 = 7 };

/* ---- CNN pieces ---- */

static const char *conv(struct zb *b, const char *pfx, const char *x, int64_t cin, int64_t cout, int64_t kh,
                        int64_t kw, int64_t s, int64_t ph, int64_t pw, int64_t group, bool bias)
{
    const char *w = zb_weight(b, zb_name(b, "%s.weight", pfx), 4, (int64_t[]){cout, cin / group, kh, kw}, true);
    const char *bb = bias ? zb_weight(b, zb_name(b, "%s.bias", pfx), 1, (int64_t[]){cout}, true) : NULL;
    const struct za *attrs = ZB_ATTRS(ZA_INTS("kernel_shape", kh, kw), ZA_INTS("strides", s, s),
                                      ZA_INTS("pads", ph, pw, ph, pw), ZA_INT("group", group));
    return zb_node(b, "Conv", pfx, bias ? ZB_IN(x, w, bb) : ZB_IN(x, w), attrs, 1);
}

static const char *bn(struct zb *b, const char *pfx, const char *x, int64_t c, float eps)
{
    const char *g = zb_weight(b, zb_name(b, "%s.weight", pfx), 1, (int64_t[]){c}, true);
    const char *bb = zb_weight(b, zb_name(b, "%s.bias", pfx), 1, (int64_t[]){c}, true);
    const char *m = zb_weight(b, zb_name(b, "%s.running_mean", pfx), 1, (int64_t[]){c}, false);
    const char *v = zb_weight(b, zb_name(b, "%s.running_var", pfx), 1, (int64_t[]){c}, false);
    return zb_node(b, "BatchNormalization", pfx, ZB_IN(x, g, bb, m, v), ZB_ATTRS(ZA_FLOAT("epsilon", eps)), 1);
}

static const char *relu(struct zb *b, const char *pfx, const char *x)
{
    return zb_node(b, "Relu", zb_name(b, "%s.relu", pfx), ZB_IN(x), ZB_NOATTR, 1);
}

static const char *relu6(struct zb *b, const char *pfx, const char *x)
{
    const char *lo = zb_const_f32(b, "relu6.min", 0.0f), *hi = zb_const_f32(b, "relu6.max", 6.0f);
    return zb_node(b, "Clip", zb_name(b, "%s.relu6", pfx), ZB_IN(x, lo, hi), ZB_NOATTR, 1);
}

/* conv (no bias) + BN + ReLU, torchvision's BasicConv2d / conv-bn-relu */
static const char *cbr(struct zb *b, const char *pfx, const char *x, int64_t cin, int64_t cout, int64_t kh,
                       int64_t kw, int64_t s, int64_t ph, int64_t pw, float eps)
{
    const char *y = conv(b, zb_name(b, "%s.conv", pfx), x, cin, cout, kh, kw, s, ph, pw, 1, false);
    y = bn(b, zb_name(b, "%s.bn", pfx), y, cout, eps);
    return relu(b, pfx, y);
}

static const char *pool(struct zb *b, const char *op, const char *pfx, const char *x, int64_t k, int64_t s,
                        int64_t p)
{
    const struct za *attrs = ZB_ATTRS(ZA_INTS("kernel_shape", k, k), ZA_INTS("strides", s, s),
                                      ZA_INTS("pads", p, p, p, p));
    return zb_node(b, op, pfx, ZB_IN(x), attrs, 1);
}

/* GlobalAveragePool -> Flatten -> Gemm(W[out,in], bias) */
static const char *head(struct zb *b, const char *x, int64_t in, int64_t out)
{
    x = zb_node(b, "GlobalAveragePool", "avgpool", ZB_IN(x), ZB_NOATTR, 1);
    x = zb_node(b, "Flatten", "flatten", ZB_IN(x), ZB_ATTRS(ZA_INT("axis", 1)), 1);
    const char *w = zb_weight(b, "fc.weight", 2, (int64_t[]){out, in}, true);
    const char *bb = zb_weight(b, "fc.bias", 1, (int64_t[]){out}, true);
    return zb_node(b, "Gemm", "fc", ZB_IN(x, w, bb), ZB_ATTRS(ZA_INT("transB", 1)), 1);
}

static const char *image_input(struct zb *b, int64_t hw)
{
    return zb_input(b, "input", F32, 4, (int64_t[]){1, 3, hw, hw}, NULL);
}

/* ---- ResNet-50 v1.5: the stride is on the 3x3 conv of a bottleneck ---- */

static struct zb *build_resnet50(int64_t param)
{
    (void)param;
    struct zb *b = zb_new("resnet50", 17);
    const char *x = image_input(b, 224);
    x = cbr(b, "conv1", x, 3, 64, 7, 7, 2, 3, 3, 1e-5f);
    x = pool(b, "MaxPool", "maxpool", x, 3, 2, 1);
    const int blocks[4] = {3, 4, 6, 3};
    int64_t cin = 64;
    for (int stage = 0; stage < 4; stage++) {
        int64_t width = 64 << stage, cout = width * 4;
        for (int k = 0; k < blocks[stage]; k++) {
            int64_t s = stage > 0 && k == 0 ? 2 : 1;
            const char *p = zb_name(b, "layer%d.%d", stage + 1, k);
            const char *y = cbr(b, zb_name(b, "%s.1", p), x, cin, width, 1, 1, 1, 0, 0, 1e-5f);
            y = cbr(b, zb_name(b, "%s.2", p), y, width, width, 3, 3, s, 1, 1, 1e-5f);
            y = conv(b, zb_name(b, "%s.conv3", p), y, width, cout, 1, 1, 1, 0, 0, 1, false);
            y = bn(b, zb_name(b, "%s.bn3", p), y, cout, 1e-5f);
            const char *sc = x;
            if (k == 0) {
                sc = conv(b, zb_name(b, "%s.downsample.0", p), x, cin, cout, 1, 1, s, 0, 0, 1, false);
                sc = bn(b, zb_name(b, "%s.downsample.1", p), sc, cout, 1e-5f);
            }
            y = zb_node(b, "Add", zb_name(b, "%s.add", p), ZB_IN(y, sc), ZB_NOATTR, 1);
            x = relu(b, p, y);
            cin = cout;
        }
    }
    zb_output(b, head(b, x, 2048, 1000), F32, 2, (int64_t[]){1, 1000});
    return b;
}

/* ---- VGG-16 (configuration D) ---- */

static struct zb *build_vgg16(int64_t param)
{
    (void)param;
    struct zb *b = zb_new("vgg16", 17);
    const char *x = image_input(b, 224);
    const int cfg[] = {64, 64, 0, 128, 128, 0, 256, 256, 256, 0, 512, 512, 512, 0, 512, 512, 512, 0};
    int64_t cin = 3;
    int idx = 0;
    for (size_t i = 0; i < BZ_ARRAY_LEN(cfg); i++, idx++) {
        if (!cfg[i]) {
            x = pool(b, "MaxPool", zb_name(b, "features.%d", idx), x, 2, 2, 0);
            continue;
        }
        x = conv(b, zb_name(b, "features.%d", idx), x, cin, cfg[i], 3, 3, 1, 1, 1, 1, true);
        x = relu(b, zb_name(b, "features.%d", idx), x);
        idx++;
        cin = cfg[i];
    }
    x = zb_node(b, "Flatten", "flatten", ZB_IN(x), ZB_ATTRS(ZA_INT("axis", 1)), 1);
    const int64_t fc[4] = {512 * 7 * 7, 4096, 4096, 1000};
    for (int i = 0; i < 3; i++) {
        const char *p = zb_name(b, "classifier.%d", i * 3);
        const char *w = zb_weight(b, zb_name(b, "%s.weight", p), 2, (int64_t[]){fc[i + 1], fc[i]}, true);
        const char *bb = zb_weight(b, zb_name(b, "%s.bias", p), 1, (int64_t[]){fc[i + 1]}, true);
        x = zb_node(b, "Gemm", p, ZB_IN(x, w, bb), ZB_ATTRS(ZA_INT("transB", 1)), 1);
        if (i < 2)
            x = relu(b, p, x);
    }
    zb_output(b, x, F32, 2, (int64_t[]){1, 1000});
    return b;
}

/* ---- MobileNetV2 (width 1.0) ---- */

static const char *cbr6(struct zb *b, const char *pfx, const char *x, int64_t cin, int64_t cout, int64_t k,
                        int64_t s, int64_t group)
{
    const char *y = conv(b, zb_name(b, "%s.0", pfx), x, cin, cout, k, k, s, k / 2, k / 2, group, false);
    y = bn(b, zb_name(b, "%s.1", pfx), y, cout, 1e-5f);
    return relu6(b, pfx, y);
}

static struct zb *build_mobilenet_v2(int64_t param)
{
    (void)param;
    struct zb *b = zb_new("mobilenet_v2", 17);
    const char *x = image_input(b, 224);
    x = cbr6(b, "features.0", x, 3, 32, 3, 2, 1);
    const int cfg[7][4] = {{1, 16, 1, 1}, {6, 24, 2, 2}, {6, 32, 3, 2}, {6, 64, 4, 2},
                           {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1}};
    int64_t cin = 32;
    int f = 1;
    for (int i = 0; i < 7; i++) {
        for (int k = 0; k < cfg[i][2]; k++, f++) {
            int64_t t = cfg[i][0], cout = cfg[i][1], s = k == 0 ? cfg[i][3] : 1, hidden = cin * t;
            const char *p = zb_name(b, "features.%d.conv", f);
            const char *y = x;
            int j = 0;
            if (t != 1)
                y = cbr6(b, zb_name(b, "%s.%d", p, j++), y, cin, hidden, 1, 1, 1);
            y = cbr6(b, zb_name(b, "%s.%d", p, j++), y, hidden, hidden, 3, s, hidden);
            y = conv(b, zb_name(b, "%s.%d", p, j), y, hidden, cout, 1, 1, 1, 0, 0, 1, false);
            y = bn(b, zb_name(b, "%s.%d", p, j + 1), y, cout, 1e-5f);
            if (s == 1 && cin == cout)
                y = zb_node(b, "Add", zb_name(b, "features.%d.add", f), ZB_IN(x, y), ZB_NOATTR, 1);
            x = y;
            cin = cout;
        }
    }
    x = cbr6(b, zb_name(b, "features.%d", f), x, 320, 1280, 1, 1, 1);
    zb_output(b, head(b, x, 1280, 1000), F32, 2, (int64_t[]){1, 1000});
    return b;
}

/* ---- Inception-v3 (without the auxiliary classifier: the inference graph) ---- */

static const char *bc(struct zb *b, const char *pfx, const char *x, int64_t cin, int64_t cout, int64_t kh,
                      int64_t kw, int64_t s, int64_t ph, int64_t pw)
{
    return cbr(b, pfx, x, cin, cout, kh, kw, s, ph, pw, 1e-3f);
}

static const char *cat(struct zb *b, const char *pfx, const char *const *parts)
{
    return zb_node(b, "Concat", zb_name(b, "%s.concat", pfx), parts, ZB_ATTRS(ZA_INT("axis", 1)), 1);
}

static const char *avgpool_same(struct zb *b, const char *pfx, const char *x)
{
    const struct za *attrs = ZB_ATTRS(ZA_INTS("kernel_shape", 3, 3), ZA_INTS("strides", 1, 1),
                                      ZA_INTS("pads", 1, 1, 1, 1), ZA_INT("count_include_pad", 1));
    return zb_node(b, "AveragePool", zb_name(b, "%s.pool", pfx), ZB_IN(x), attrs, 1);
}

static const char *inception_a(struct zb *b, const char *p, const char *x, int64_t cin, int64_t pf)
{
    const char *b1 = bc(b, zb_name(b, "%s.branch1x1", p), x, cin, 64, 1, 1, 1, 0, 0);
    const char *b5 = bc(b, zb_name(b, "%s.branch5x5_1", p), x, cin, 48, 1, 1, 1, 0, 0);
    b5 = bc(b, zb_name(b, "%s.branch5x5_2", p), b5, 48, 64, 5, 5, 1, 2, 2);
    const char *b3 = bc(b, zb_name(b, "%s.branch3x3dbl_1", p), x, cin, 64, 1, 1, 1, 0, 0);
    b3 = bc(b, zb_name(b, "%s.branch3x3dbl_2", p), b3, 64, 96, 3, 3, 1, 1, 1);
    b3 = bc(b, zb_name(b, "%s.branch3x3dbl_3", p), b3, 96, 96, 3, 3, 1, 1, 1);
    const char *bp = bc(b, zb_name(b, "%s.branch_pool", p), avgpool_same(b, p, x), cin, pf, 1, 1, 1, 0, 0);
    return cat(b, p, ZB_IN(b1, b5, b3, bp));
}

static const char *inception_b(struct zb *b, const char *p, const char *x, int64_t cin)
{
    const char *b3 = bc(b, zb_name(b, "%s.branch3x3", p), x, cin, 384, 3, 3, 2, 0, 0);
    const char *bd = bc(b, zb_name(b, "%s.branch3x3dbl_1", p), x, cin, 64, 1, 1, 1, 0, 0);
    bd = bc(b, zb_name(b, "%s.branch3x3dbl_2", p), bd, 64, 96, 3, 3, 1, 1, 1);
    bd = bc(b, zb_name(b, "%s.branch3x3dbl_3", p), bd, 96, 96, 3, 3, 2, 0, 0);
    const char *bp = pool(b, "MaxPool", zb_name(b, "%s.pool", p), x, 3, 2, 0);
    return cat(b, p, ZB_IN(b3, bd, bp));
}

static const char *inception_c(struct zb *b, const char *p, const char *x, int64_t cin, int64_t c7)
{
    const char *b1 = bc(b, zb_name(b, "%s.branch1x1", p), x, cin, 192, 1, 1, 1, 0, 0);
    const char *b7 = bc(b, zb_name(b, "%s.branch7x7_1", p), x, cin, c7, 1, 1, 1, 0, 0);
    b7 = bc(b, zb_name(b, "%s.branch7x7_2", p), b7, c7, c7, 1, 7, 1, 0, 3);
    b7 = bc(b, zb_name(b, "%s.branch7x7_3", p), b7, c7, 192, 7, 1, 1, 3, 0);
    const char *bd = bc(b, zb_name(b, "%s.branch7x7dbl_1", p), x, cin, c7, 1, 1, 1, 0, 0);
    bd = bc(b, zb_name(b, "%s.branch7x7dbl_2", p), bd, c7, c7, 7, 1, 1, 3, 0);
    bd = bc(b, zb_name(b, "%s.branch7x7dbl_3", p), bd, c7, c7, 1, 7, 1, 0, 3);
    bd = bc(b, zb_name(b, "%s.branch7x7dbl_4", p), bd, c7, c7, 7, 1, 1, 3, 0);
    bd = bc(b, zb_name(b, "%s.branch7x7dbl_5", p), bd, c7, 192, 1, 7, 1, 0, 3);
    const char *bp = bc(b, zb_name(b, "%s.branch_pool", p), avgpool_same(b, p, x), cin, 192, 1, 1, 1, 0, 0);
    return cat(b, p, ZB_IN(b1, b7, bd, bp));
}

static const char *inception_d(struct zb *b, const char *p, const char *x, int64_t cin)
{
    const char *b3 = bc(b, zb_name(b, "%s.branch3x3_1", p), x, cin, 192, 1, 1, 1, 0, 0);
    b3 = bc(b, zb_name(b, "%s.branch3x3_2", p), b3, 192, 320, 3, 3, 2, 0, 0);
    const char *b7 = bc(b, zb_name(b, "%s.branch7x7x3_1", p), x, cin, 192, 1, 1, 1, 0, 0);
    b7 = bc(b, zb_name(b, "%s.branch7x7x3_2", p), b7, 192, 192, 1, 7, 1, 0, 3);
    b7 = bc(b, zb_name(b, "%s.branch7x7x3_3", p), b7, 192, 192, 7, 1, 1, 3, 0);
    b7 = bc(b, zb_name(b, "%s.branch7x7x3_4", p), b7, 192, 192, 3, 3, 2, 0, 0);
    const char *bp = pool(b, "MaxPool", zb_name(b, "%s.pool", p), x, 3, 2, 0);
    return cat(b, p, ZB_IN(b3, b7, bp));
}

static const char *inception_e(struct zb *b, const char *p, const char *x, int64_t cin)
{
    const char *b1 = bc(b, zb_name(b, "%s.branch1x1", p), x, cin, 320, 1, 1, 1, 0, 0);
    const char *b3 = bc(b, zb_name(b, "%s.branch3x3_1", p), x, cin, 384, 1, 1, 1, 0, 0);
    const char *b3a = bc(b, zb_name(b, "%s.branch3x3_2a", p), b3, 384, 384, 1, 3, 1, 0, 1);
    const char *b3b = bc(b, zb_name(b, "%s.branch3x3_2b", p), b3, 384, 384, 3, 1, 1, 1, 0);
    const char *bd = bc(b, zb_name(b, "%s.branch3x3dbl_1", p), x, cin, 448, 1, 1, 1, 0, 0);
    bd = bc(b, zb_name(b, "%s.branch3x3dbl_2", p), bd, 448, 384, 3, 3, 1, 1, 1);
    const char *bda = bc(b, zb_name(b, "%s.branch3x3dbl_3a", p), bd, 384, 384, 1, 3, 1, 0, 1);
    const char *bdb = bc(b, zb_name(b, "%s.branch3x3dbl_3b", p), bd, 384, 384, 3, 1, 1, 1, 0);
    const char *bp = bc(b, zb_name(b, "%s.branch_pool", p), avgpool_same(b, p, x), cin, 192, 1, 1, 1, 0, 0);
    return cat(b, p, ZB_IN(b1, b3a, b3b, bda, bdb, bp));
}

static struct zb *build_inception_v3(int64_t param)
{
    (void)param;
    struct zb *b = zb_new("inception_v3", 17);
    const char *x = image_input(b, 299);
    x = bc(b, "Conv2d_1a_3x3", x, 3, 32, 3, 3, 2, 0, 0);
    x = bc(b, "Conv2d_2a_3x3", x, 32, 32, 3, 3, 1, 0, 0);
    x = bc(b, "Conv2d_2b_3x3", x, 32, 64, 3, 3, 1, 1, 1);
    x = pool(b, "MaxPool", "maxpool1", x, 3, 2, 0);
    x = bc(b, "Conv2d_3b_1x1", x, 64, 80, 1, 1, 1, 0, 0);
    x = bc(b, "Conv2d_4a_3x3", x, 80, 192, 3, 3, 1, 0, 0);
    x = pool(b, "MaxPool", "maxpool2", x, 3, 2, 0);
    x = inception_a(b, "Mixed_5b", x, 192, 32);
    x = inception_a(b, "Mixed_5c", x, 256, 64);
    x = inception_a(b, "Mixed_5d", x, 288, 64);
    x = inception_b(b, "Mixed_6a", x, 288);
    x = inception_c(b, "Mixed_6b", x, 768, 128);
    x = inception_c(b, "Mixed_6c", x, 768, 160);
    x = inception_c(b, "Mixed_6d", x, 768, 160);
    x = inception_c(b, "Mixed_6e", x, 768, 192);
    x = inception_d(b, "Mixed_7a", x, 768);
    x = inception_e(b, "Mixed_7b", x, 1280);
    x = inception_e(b, "Mixed_7c", x, 2048);
    zb_output(b, head(b, x, 2048, 1000), F32, 2, (int64_t[]){1, 1000});
    return b;
}

/* ---- transformer pieces ---- */

static const char *linear(struct zb *b, const char *pfx, const char *x, int64_t in, int64_t out)
{
    const char *w = zb_weight(b, zb_name(b, "%s.weight", pfx), 2, (int64_t[]){in, out}, true);
    const char *bb = zb_weight(b, zb_name(b, "%s.bias", pfx), 1, (int64_t[]){out}, true);
    const char *y = zb_node(b, "MatMul", zb_name(b, "%s.matmul", pfx), ZB_IN(x, w), ZB_NOATTR, 1);
    return zb_node(b, "Add", zb_name(b, "%s.add", pfx), ZB_IN(y, bb), ZB_NOATTR, 1);
}

static const char *layernorm(struct zb *b, const char *pfx, const char *x, int64_t d, float eps)
{
    const char *g = zb_weight(b, zb_name(b, "%s.weight", pfx), 1, (int64_t[]){d}, true);
    const char *bb = zb_weight(b, zb_name(b, "%s.bias", pfx), 1, (int64_t[]){d}, true);
    return zb_node(b, "LayerNormalization", pfx, ZB_IN(x, g, bb),
                   ZB_ATTRS(ZA_INT("axis", -1), ZA_FLOAT("epsilon", eps)), 1);
}

/* erf GELU written out as PyTorch exports it: x * 0.5 * (1 + erf(x / sqrt 2)) */
static const char *gelu_erf(struct zb *b, const char *pfx, const char *x)
{
    const char *sqrt2 = zb_const_f32(b, "gelu.sqrt2", 1.4142135381698608f);
    const char *one = zb_const_f32(b, "gelu.one", 1.0f), *half = zb_const_f32(b, "gelu.half", 0.5f);
    const char *q = zb_node(b, "Div", zb_name(b, "%s.div", pfx), ZB_IN(x, sqrt2), ZB_NOATTR, 1);
    const char *e = zb_node(b, "Erf", zb_name(b, "%s.erf", pfx), ZB_IN(q), ZB_NOATTR, 1);
    const char *a = zb_node(b, "Add", zb_name(b, "%s.add", pfx), ZB_IN(e, one), ZB_NOATTR, 1);
    const char *m = zb_node(b, "Mul", zb_name(b, "%s.mul", pfx), ZB_IN(x, a), ZB_NOATTR, 1);
    return zb_node(b, "Mul", zb_name(b, "%s.half", pfx), ZB_IN(m, half), ZB_NOATTR, 1);
}

/* gelu_new, GPT-2's tanh approximation, as exported op by op:
 * 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3))) */
static const char *gelu_tanh(struct zb *b, const char *pfx, const char *x)
{
    const char *three = zb_const_f32(b, "gelu_new.three", 3.0f), *c = zb_const_f32(b, "gelu_new.c", 0.044715f);
    const char *k = zb_const_f32(b, "gelu_new.sqrt_2_over_pi", 0.7978845834732056f);
    const char *one = zb_const_f32(b, "gelu_new.one", 1.0f), *half = zb_const_f32(b, "gelu_new.half", 0.5f);
    const char *x3 = zb_node(b, "Pow", zb_name(b, "%s.pow", pfx), ZB_IN(x, three), ZB_NOATTR, 1);
    x3 = zb_node(b, "Mul", zb_name(b, "%s.mul_c", pfx), ZB_IN(x3, c), ZB_NOATTR, 1);
    const char *inner = zb_node(b, "Add", zb_name(b, "%s.add_x", pfx), ZB_IN(x, x3), ZB_NOATTR, 1);
    inner = zb_node(b, "Mul", zb_name(b, "%s.mul_k", pfx), ZB_IN(inner, k), ZB_NOATTR, 1);
    const char *t = zb_node(b, "Tanh", zb_name(b, "%s.tanh", pfx), ZB_IN(inner), ZB_NOATTR, 1);
    t = zb_node(b, "Add", zb_name(b, "%s.add_1", pfx), ZB_IN(t, one), ZB_NOATTR, 1);
    const char *y = zb_node(b, "Mul", zb_name(b, "%s.mul_x", pfx), ZB_IN(x, t), ZB_NOATTR, 1);
    return zb_node(b, "Mul", zb_name(b, "%s.mul_half", pfx), ZB_IN(y, half), ZB_NOATTR, 1);
}

/* [B, S, H] -> [B, heads, S, H/heads] (and the transpose of K for Q K^T) */
static const char *split_heads(struct zb *b, const char *pfx, const char *x, const char *shape, bool key)
{
    const char *r = zb_node(b, "Reshape", zb_name(b, "%s.reshape", pfx), ZB_IN(x, shape), ZB_NOATTR, 1);
    return zb_node(b, "Transpose", zb_name(b, "%s.transpose", pfx), ZB_IN(r),
                   key ? ZB_ATTRS(ZA_INTS("perm", 0, 2, 3, 1)) : ZB_ATTRS(ZA_INTS("perm", 0, 2, 1, 3)), 1);
}

/* softmax(Q K^T / sqrt(d) [+ mask]) V, heads merged back to [B, S, H]; with QMUL (1 / sqrt(d)),
 * Q is multiplied by it before the product instead, as PyTorch's scaled_dot_product_attention
 * exports it */
static const char *attention_core(struct zb *b, const char *p, const char *q, const char *k, const char *v,
                                  const char *heads_shape, const char *merge_shape, const char *scale,
                                  const char *mask, const char *qmul)
{
    q = split_heads(b, zb_name(b, "%s.q", p), q, heads_shape, false);
    k = split_heads(b, zb_name(b, "%s.k", p), k, heads_shape, true);
    v = split_heads(b, zb_name(b, "%s.v", p), v, heads_shape, false);
    if (qmul)
        q = zb_node(b, "Mul", zb_name(b, "%s.q_scale", p), ZB_IN(q, qmul), ZB_NOATTR, 1);
    const char *s = zb_node(b, "MatMul", zb_name(b, "%s.scores", p), ZB_IN(q, k), ZB_NOATTR, 1);
    if (!qmul)
        s = zb_node(b, "Div", zb_name(b, "%s.scale", p), ZB_IN(s, scale), ZB_NOATTR, 1);
    if (mask)
        s = zb_node(b, "Add", zb_name(b, "%s.mask", p), ZB_IN(s, mask), ZB_NOATTR, 1);
    s = zb_node(b, "Softmax", zb_name(b, "%s.softmax", p), ZB_IN(s), ZB_ATTRS(ZA_INT("axis", -1)), 1);
    const char *c = zb_node(b, "MatMul", zb_name(b, "%s.context", p), ZB_IN(s, v), ZB_NOATTR, 1);
    c = zb_node(b, "Transpose", zb_name(b, "%s.merge", p), ZB_IN(c), ZB_ATTRS(ZA_INTS("perm", 0, 2, 1, 3)), 1);
    return zb_node(b, "Reshape", zb_name(b, "%s.merge_reshape", p), ZB_IN(c, merge_shape), ZB_NOATTR, 1);
}

/* the positions 0..seq-1, a constant */
static const char *position_ids(struct zb *b, const char *name, int64_t seq)
{
    int64_t *pos = bz_malloc((size_t)seq * sizeof(int64_t));
    for (int64_t i = 0; i < seq; i++)
        pos[i] = i;
    const char *p = zb_const_i64(b, name, 1, (int64_t[]){seq}, pos);
    free(pos);
    return p;
}

/* ---- BERT-base (uncased): 12 layers, hidden 768, 12 heads, FFN 3072, vocab 30522 ---- */

static struct zb *build_bert_base(int64_t seq)
{
    const int64_t H = 768, heads = 12, ffn = 3072, vocab = 30522, maxpos = 512;
    if (seq <= 0)
        seq = 128;
    struct zb *b = zb_new("bert_base", 17);
    const char *ids = zb_input(b, "input_ids", I64, 2, (int64_t[]){1, seq}, NULL);
    const char *types = zb_input(b, "token_type_ids", I64, 2, (int64_t[]){1, seq}, NULL);
    const char *we = zb_weight(b, "embeddings.word_embeddings.weight", 2, (int64_t[]){vocab, H}, true);
    const char *pe = zb_weight(b, "embeddings.position_embeddings.weight", 2, (int64_t[]){maxpos, H}, true);
    const char *te = zb_weight(b, "embeddings.token_type_embeddings.weight", 2, (int64_t[]){2, H}, true);
    const char *positions = position_ids(b, "embeddings.position_ids", seq);
    const char *x = zb_node(b, "Gather", "embeddings.word", ZB_IN(we, ids), ZB_NOATTR, 1);
    const char *t = zb_node(b, "Gather", "embeddings.token_type", ZB_IN(te, types), ZB_NOATTR, 1);
    const char *ps = zb_node(b, "Gather", "embeddings.position", ZB_IN(pe, positions), ZB_NOATTR, 1);
    x = zb_node(b, "Add", "embeddings.add1", ZB_IN(x, t), ZB_NOATTR, 1);
    x = zb_node(b, "Add", "embeddings.add2", ZB_IN(x, ps), ZB_NOATTR, 1);
    x = layernorm(b, "embeddings.LayerNorm", x, H, 1e-12f);
    /* 0 copies a dim: the targets do not depend on batch or sequence length */
    const char *heads_shape = zb_const_i64(b, "shape.heads", 1, (int64_t[]){4}, (int64_t[]){0, 0, heads, H / heads});
    const char *merge_shape = zb_const_i64(b, "shape.merge", 1, (int64_t[]){3}, (int64_t[]){0, 0, H});
    const char *scale = zb_const_f32(b, "attention.scale", 8.0f);
    for (int l = 0; l < 12; l++) {
        const char *p = zb_name(b, "encoder.layer.%d", l);
        const char *q = linear(b, zb_name(b, "%s.attention.self.query", p), x, H, H);
        const char *k = linear(b, zb_name(b, "%s.attention.self.key", p), x, H, H);
        const char *v = linear(b, zb_name(b, "%s.attention.self.value", p), x, H, H);
        const char *c = attention_core(b, zb_name(b, "%s.attention.self", p), q, k, v, heads_shape, merge_shape,
                                       scale, NULL, NULL);
        c = linear(b, zb_name(b, "%s.attention.output.dense", p), c, H, H);
        c = zb_node(b, "Add", zb_name(b, "%s.attention.output.residual", p), ZB_IN(c, x), ZB_NOATTR, 1);
        x = layernorm(b, zb_name(b, "%s.attention.output.LayerNorm", p), c, H, 1e-12f);
        const char *f = linear(b, zb_name(b, "%s.intermediate.dense", p), x, H, ffn);
        f = gelu_erf(b, zb_name(b, "%s.intermediate.gelu", p), f);
        f = linear(b, zb_name(b, "%s.output.dense", p), f, ffn, H);
        f = zb_node(b, "Add", zb_name(b, "%s.output.residual", p), ZB_IN(f, x), ZB_NOATTR, 1);
        x = layernorm(b, zb_name(b, "%s.output.LayerNorm", p), f, H, 1e-12f);
    }
    zb_output(b, x, F32, 3, (int64_t[]){1, seq, H});
    /* pooler: the first token through a dense layer and tanh */
    const char *first = zb_const_i64(b, "pooler.index", 0, NULL, (int64_t[]){0});
    const char *cls = zb_node(b, "Gather", "pooler.first_token", ZB_IN(x, first), ZB_ATTRS(ZA_INT("axis", 1)), 1);
    cls = linear(b, "pooler.dense", cls, H, H);
    zb_output(b, zb_node(b, "Tanh", "pooler.tanh", ZB_IN(cls), ZB_NOATTR, 1), F32, 2, (int64_t[]){1, H});
    return b;
}

/* ---- GPT-2 small: 12 layers, hidden 768, 12 heads, vocab 50257, context 1024; prefill ---- */

static struct zb *build_gpt2(int64_t seq)
{
    const int64_t H = 768, heads = 12, vocab = 50257, ctx = 1024;
    if (seq <= 0)
        seq = 128;
    struct zb *b = zb_new("gpt2", 17);
    const char *ids = zb_input(b, "input_ids", I64, 2, (int64_t[]){1, seq}, NULL);
    const char *wte = zb_weight(b, "transformer.wte.weight", 2, (int64_t[]){vocab, H}, true);
    const char *wpe = zb_weight(b, "transformer.wpe.weight", 2, (int64_t[]){ctx, H}, true);
    const char *positions = position_ids(b, "transformer.position_ids", seq);
    const char *x = zb_node(b, "Gather", "transformer.wte", ZB_IN(wte, ids), ZB_NOATTR, 1);
    const char *ps = zb_node(b, "Gather", "transformer.wpe", ZB_IN(wpe, positions), ZB_NOATTR, 1);
    x = zb_node(b, "Add", "transformer.embed", ZB_IN(x, ps), ZB_NOATTR, 1);
    /* causal mask [S, S]: -1e4 above the diagonal, built by constant ops (no weights) */
    const char *mshape = zb_const_i64(b, "mask.shape", 1, (int64_t[]){2}, (int64_t[]){seq, seq});
    const char *full = zb_node(b, "ConstantOfShape", "mask.fill", ZB_IN(mshape), ZB_ATTRS(ZA_TENSOR_F("value", -1e4f)), 1);
    const char *one = zb_const_i64(b, "mask.k", 0, NULL, (int64_t[]){1});
    const char *mask = zb_node(b, "Trilu", "mask.upper", ZB_IN(full, one), ZB_ATTRS(ZA_INT("upper", 1)), 1);
    const char *heads_shape = zb_const_i64(b, "shape.heads", 1, (int64_t[]){4}, (int64_t[]){0, 0, heads, H / heads});
    const char *merge_shape = zb_const_i64(b, "shape.merge", 1, (int64_t[]){3}, (int64_t[]){0, 0, H});
    const char *split = zb_const_i64(b, "shape.qkv_split", 1, (int64_t[]){3}, (int64_t[]){H, H, H});
    const char *scale = zb_const_f32(b, "attention.scale", 8.0f);
    for (int l = 0; l < 12; l++) {
        const char *p = zb_name(b, "transformer.h.%d", l);
        const char *a = layernorm(b, zb_name(b, "%s.ln_1", p), x, H, 1e-5f);
        const char *qkv = linear(b, zb_name(b, "%s.attn.c_attn", p), a, H, 3 * H);
        const char *q = zb_node(b, "Split", zb_name(b, "%s.attn.split", p), ZB_IN(qkv, split),
                                ZB_ATTRS(ZA_INT("axis", -1)), 3);
        const char *c = attention_core(b, zb_name(b, "%s.attn", p), q, zb_out(b, q, 1), zb_out(b, q, 2),
                                       heads_shape, merge_shape, scale, mask, NULL);
        c = linear(b, zb_name(b, "%s.attn.c_proj", p), c, H, H);
        x = zb_node(b, "Add", zb_name(b, "%s.attn.residual", p), ZB_IN(c, x), ZB_NOATTR, 1);
        const char *m = layernorm(b, zb_name(b, "%s.ln_2", p), x, H, 1e-5f);
        m = linear(b, zb_name(b, "%s.mlp.c_fc", p), m, H, 4 * H);
        m = gelu_tanh(b, zb_name(b, "%s.mlp.act", p), m);
        m = linear(b, zb_name(b, "%s.mlp.c_proj", p), m, 4 * H, H);
        x = zb_node(b, "Add", zb_name(b, "%s.mlp.residual", p), ZB_IN(m, x), ZB_NOATTR, 1);
    }
    x = layernorm(b, "transformer.ln_f", x, H, 1e-5f);
    /* the LM head shares wte: its transpose is a constant, no new parameters */
    const char *wt = zb_node(b, "Transpose", "lm_head.tied", ZB_IN(wte), ZB_ATTRS(ZA_INTS("perm", 1, 0)), 1);
    zb_output(b, zb_node(b, "MatMul", "lm_head", ZB_IN(x, wt), ZB_NOATTR, 1), F32, 3, (int64_t[]){1, seq, vocab});
    return b;
}

/* ---- ViT-B/16 (torchvision vit_b_16): 16x16 patches of 224x224, class token, 12 layers,
 * hidden 768, 12 heads, MLP 3072, 1000 classes ---- */

static struct zb *build_vit_base(int64_t unused)
{
    (void)unused;
    const int64_t H = 768, heads = 12, mlp = 3072, patches = 196, classes = 1000;
    struct zb *b = zb_new("vit_base", 17);
    const char *img = zb_input(b, "images", F32, 4, (int64_t[]){1, 3, 224, 224}, NULL);
    const char *x = conv(b, "conv_proj", img, 3, H, 16, 16, 16, 0, 0, 1, true);
    const char *flat = zb_const_i64(b, "shape.patches", 1, (int64_t[]){3}, (int64_t[]){0, H, patches});
    x = zb_node(b, "Reshape", "patches.flatten", ZB_IN(x, flat), ZB_NOATTR, 1);
    x = zb_node(b, "Transpose", "patches.transpose", ZB_IN(x), ZB_ATTRS(ZA_INTS("perm", 0, 2, 1)), 1);
    /* the class token, expanded to the batch: [B, 1, H] from the patches' shape */
    const char *cls = zb_weight(b, "class_token", 3, (int64_t[]){1, 1, H}, true);
    const char *shape = zb_node(b, "Shape", "class_token.shape", ZB_IN(x), ZB_NOATTR, 1);
    const char *zero = zb_const_i64(b, "class_token.start", 1, (int64_t[]){1}, (int64_t[]){0});
    const char *one = zb_const_i64(b, "class_token.end", 1, (int64_t[]){1}, (int64_t[]){1});
    const char *batch = zb_node(b, "Slice", "class_token.batch", ZB_IN(shape, zero, one), ZB_NOATTR, 1);
    const char *rest = zb_const_i64(b, "class_token.rest", 1, (int64_t[]){2}, (int64_t[]){1, H});
    const char *to = zb_node(b, "Concat", "class_token.target", ZB_IN(batch, rest), ZB_ATTRS(ZA_INT("axis", 0)), 1);
    cls = zb_node(b, "Expand", "class_token.expand", ZB_IN(cls, to), ZB_NOATTR, 1);
    x = zb_node(b, "Concat", "encoder.tokens", ZB_IN(cls, x), ZB_ATTRS(ZA_INT("axis", 1)), 1);
    const char *pos = zb_weight(b, "encoder.pos_embedding", 3, (int64_t[]){1, patches + 1, H}, true);
    x = zb_node(b, "Add", "encoder.add_pos", ZB_IN(x, pos), ZB_NOATTR, 1);
    const char *heads_shape = zb_const_i64(b, "shape.heads", 1, (int64_t[]){4}, (int64_t[]){0, 0, heads, H / heads});
    const char *merge_shape = zb_const_i64(b, "shape.merge", 1, (int64_t[]){3}, (int64_t[]){0, 0, H});
    const char *split = zb_const_i64(b, "shape.qkv_split", 1, (int64_t[]){3}, (int64_t[]){H, H, H});
    const char *qmul = zb_const_f32(b, "attention.q_scale", 0.125f);
    for (int l = 0; l < 12; l++) {
        const char *p = zb_name(b, "encoder.layers.encoder_layer_%d", l);
        const char *a = layernorm(b, zb_name(b, "%s.ln_1", p), x, H, 1e-6f);
        const char *qkv = linear(b, zb_name(b, "%s.self_attention.in_proj", p), a, H, 3 * H);
        const char *q = zb_node(b, "Split", zb_name(b, "%s.self_attention.split", p), ZB_IN(qkv, split),
                                ZB_ATTRS(ZA_INT("axis", -1)), 3);
        const char *c = attention_core(b, zb_name(b, "%s.self_attention", p), q, zb_out(b, q, 1), zb_out(b, q, 2),
                                       heads_shape, merge_shape, NULL, NULL, qmul);
        c = linear(b, zb_name(b, "%s.self_attention.out_proj", p), c, H, H);
        x = zb_node(b, "Add", zb_name(b, "%s.residual_1", p), ZB_IN(c, x), ZB_NOATTR, 1);
        const char *m = layernorm(b, zb_name(b, "%s.ln_2", p), x, H, 1e-6f);
        m = linear(b, zb_name(b, "%s.mlp.0", p), m, H, mlp);
        m = gelu_erf(b, zb_name(b, "%s.mlp.gelu", p), m);
        m = linear(b, zb_name(b, "%s.mlp.3", p), m, mlp, H);
        x = zb_node(b, "Add", zb_name(b, "%s.residual_2", p), ZB_IN(m, x), ZB_NOATTR, 1);
    }
    x = layernorm(b, "encoder.ln", x, H, 1e-6f);
    const char *first = zb_const_i64(b, "heads.index", 0, NULL, (int64_t[]){0});
    x = zb_node(b, "Gather", "heads.class_token", ZB_IN(x, first), ZB_ATTRS(ZA_INT("axis", 1)), 1);
    x = linear(b, "heads.head", x, H, classes);
    zb_output(b, x, F32, 2, (int64_t[]){1, classes});
    return b;
}

const struct zoo_model zoo_models[] = {
    {"resnet50", "ResNet-50 v1.5 (torchvision), 224x224", NULL, 0, 25557032, build_resnet50},
    {"vgg16", "VGG-16 (configuration D, torchvision), 224x224", NULL, 0, 138357544, build_vgg16},
    {"mobilenet_v2", "MobileNetV2 1.0 (torchvision), 224x224", NULL, 0, 3504872, build_mobilenet_v2},
    {"inception_v3", "Inception-v3 without the auxiliary head (torchvision), 299x299", NULL, 0, 23834568,
     build_inception_v3},
    {"bert_base", "BERT-base uncased with pooler (12x768, 12 heads), sequence length seq", "seq", 128, 109482240,
     build_bert_base},
    {"gpt2", "GPT-2 small (12x768, 12 heads, tied LM head), prefill of seq tokens", "seq", 128, 124439808,
     build_gpt2},
    {"vit_base", "ViT-B/16 (torchvision), 224x224", NULL, 0, 86567656, build_vit_base},
    {NULL, NULL, NULL, 0, 0, NULL},
};
