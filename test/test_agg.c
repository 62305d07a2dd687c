/* The aggregator (bin/agg) on hand-made fixtures whose answers are worked out here by hand:
 * bounds and critical path of a small DAG with branches, a fusion group, an advice mismatch,
 * two types, two devices, a framework's measured latency; broken CSV rows; idempotent ingest. */
#include <jansson.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test.h"

static char dir[] = "/tmp/bz-test-agg-XXXXXX";
static const char *db_file = "t.db"; /* in dir */

static const char *agg_bin(void)
{
    return test_env("BENANZA_AGG", "bin/agg");
}

static int run_agg(const char *args, const char *out, const char *err)
{
    struct bz_buf cmd;
    bz_buf_init(&cmd);
    bz_buf_printf(&cmd, "%s --db '%s/%s' %s > '%s' 2> '%s'", agg_bin(), dir, db_file, args, out, err);
    int st = system(cmd.data);
    bz_buf_free(&cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void put_file(const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static char *slurp(const char *path)
{
    char *text = NULL;
    size_t len;
    assert_int_equal(bz_read_file(path, 1 << 26, &text, &len), BZ_READ_OK);
    return text;
}

/*
 * The DAG of model "toy" (batch 1): A -> B -> {C, D -> E} -> F -> G (free) -> H -> S
 *   node  op       layer  fastest f32 on D1 (algorithms)      f16 on D1   f32 on D2
 *   A     Conv     LA     80 (a1 100 = heuristic, a2 80)      40          40
 *   B     Relu     LB     10                                   5           5
 *   C     Conv     LC     50                                  25          25
 *   D     Conv     LD     30 (d1 30, d2 45 = heuristic)       15          15
 *   E     MaxPool  LE     15                                   8           7.5
 *   F     Add      LF      5                                   3           2.5
 *   G     Reshape  -      (free)
 *   H     Gemm     LH     40                                  20          20
 *   S     Softmax  LS     only 'unsupported' rows: no result
 *   group 0 = {A, B} (conv_act), fused layer LAB: 85 on D1 f32, 42 on D2; none in f16
 */
static const char manifest[] =
    "benanza-manifest\t1\n"
    "layer\tLA\tnode\tConv\tconv_a\t1\t{}\n"
    "layer\tLB\tnode\tRelu\trelu_b\t1\t{}\n"
    "layer\tLC\tnode\tConv\tconv_c\t1\t{}\n"
    "layer\tLD\tnode\tConv\tconv_d\t1\t{}\n"
    "layer\tLE\tnode\tMaxPool\tpool_e\t1\t{}\n"
    "layer\tLF\tnode\tAdd\tadd_f\t1\t{}\n"
    "layer\tLH\tnode\tGemm\tgemm_h\t1\t{}\n"
    "layer\tLS\tnode\tSoftmax\tsoftmax_s\t1\t{}\n"
    "layer\tLAB\tfused\tConv+Relu\tconv_a_relu\t1\t{}\n"
    "run\t0\ttoy\t1\ttoy.onnx\t9\n"
    "group\t0\t0\tconv_act\tLAB\t0,1\n"
    "node\t0\t0\tConv\tcompute\tLA\t0\t-\tA\n"
    "node\t0\t1\tRelu\tcompute\tLB\t0\t0\tB\n"
    "node\t0\t2\tConv\tcompute\tLC\t-\t1\tC\n"
    "node\t0\t3\tConv\tcompute\tLD\t-\t1\tD\n"
    "node\t0\t4\tMaxPool\tcompute\tLE\t-\t3\tE\n"
    "node\t0\t5\tAdd\tcompute\tLF\t-\t2,4\tF\n"
    "node\t0\t6\tReshape\tfree\t-\t-\t5\tG\n"
    "node\t0\t7\tGemm\tcompute\tLH\t-\t6\tH\n"
    "node\t0\t8\tSoftmax\tcompute\tLS\t-\t7\tS\n";

/* schema 2's header: schema 1's columns, then method, kernel_us and busy before the note */
static const char header2[] =
    "schema,bench,layer,layer_name,op,backend,impl,dtype,math,status,iters,min_us,median_us,mean_us,p90_us,"
    "max_us,stddev_us,workspace_bytes,flops,bytes,threads,peak_rss_kb,device,cc,sms,lib,host,time,method,"
    "kernel_us,busy,note\n";

static const char header[] =
    "schema,bench,layer,layer_name,op,backend,impl,dtype,math,status,iters,min_us,median_us,mean_us,p90_us,"
    "max_us,stddev_us,workspace_bytes,flops,bytes,threads,peak_rss_kb,device,cc,sms,lib,host,time,note\n";

static void row(struct bz_buf *b, const char *dev, const char *layer, const char *algo, const char *dtype,
                const char *status, double us, const char *note)
{
    int cpu = !strcmp(dev, "D1");
    bz_buf_printf(b, "1,%s-%s-%s,%s,name,op,%s,%s,%s,default,%s,", layer, dtype, algo, layer, cpu ? "cpu" : "cuda",
                  algo, dtype, status);
    if (!strcmp(status, "ok"))
        bz_buf_printf(b, "5,%g,%g,%g,%g,%g,0,", us, us, us, us, us);
    else
        bz_buf_puts(b, "0,,,,,,,");
    bz_buf_printf(b, "0,1000,1000,%d,1000,%s,%s,4,%s,host,2026-11-22T00:00:00Z,%s\n", cpu ? 2 : 0, dev,
                  cpu ? "" : "9.0", cpu ? "lib1" : "lib2", note);
}

static void write_results(void)
{
    struct bz_buf b;
    bz_buf_init(&b);
    bz_buf_puts(&b, header);
    row(&b, "D1", "LA", "a1", "f32", "ok", 100, "choice=heuristic");
    row(&b, "D1", "LA", "a2", "f32", "ok", 80, "verified");
    row(&b, "D1", "LB", "b1", "f32", "ok", 10, "verified; choice=heuristic");
    row(&b, "D1", "LAB", "f1", "f32", "ok", 85, "");
    row(&b, "D1", "LC", "c1", "f32", "ok", 50, "");
    row(&b, "D1", "LD", "d1", "f32", "ok", 30, "");
    row(&b, "D1", "LD", "d2", "f32", "ok", 45, "choice=heuristic");
    row(&b, "D1", "LE", "c_plain", "f32", "ok", 15, ""); /* a plain C kernel of ours */
    row(&b, "D1", "LF", "f1", "f32", "ok", 5, "");
    row(&b, "D1", "LH", "h1", "f32", "ok", 40, "");
    row(&b, "D1", "LS", "s1", "f32", "unsupported", 0, "\"no implementation, here\"");
    static const char *const half[][2] = {{"LA", "40"}, {"LB", "5"}, {"LC", "25"}, {"LD", "15"},
                                          {"LE", "8"},  {"LF", "3"}, {"LH", "20"}};
    for (size_t i = 0; i < 7; i++)
        row(&b, "D1", half[i][0], "x", "f16", "ok", atof(half[i][1]), "");
    static const char *const d2[][2] = {{"LA", "40"}, {"LB", "5"},   {"LAB", "42"}, {"LC", "25"},
                                        {"LD", "15"}, {"LE", "7.5"}, {"LF", "2.5"}, {"LH", "20"}};
    for (size_t i = 0; i < 8; i++)
        row(&b, "D2", d2[i][0], "y", "f32", "ok", atof(d2[i][1]), "");
    put_file("results.csv", b.data);
    bz_buf_free(&b);
    put_file("measured.csv", "model,batch,dtype,device,framework,threads,latency_us,runs,note,node\n"
                             "toy,1,f32,D1,fw 1.0,2,300,10,,\n"
                             "toy,1,f32,D1,fw 1.0,2,60,10,,C\n"
                             "toy,1,f32,D1,fw 1.0,2,100,10,,A+B\n"
                             "toy,1,f32,D1,fw 1.0,2,120,10,,A+C+G\n"
                             "toy,1,f32,D1,fw 1.0,2,99,10,,A+Q\n"
                             "toy,1,f16,D1,fw 1.0,2,30,10,,A+B\n"
                             "toy,1,f16,D1,fw 1.0,2,20,10,,C\n"
                             "toy,1,f32,D1,fw2 1.0,2,5,10,,B\n"
                             "toy,1,f32,D1,fw2 1.0,2,90,10,,A\n"
                             "toy,1,f32,D1,fw2 1.0,2,55,10,,C\n"
                             "toy,1,f32,D1,fw2 1.0,2,12,10,,E\n");
}

static json_t *report(const char *args)
{
    char out[512], err[512], cmd[512];
    snprintf(out, sizeof(out), "%s/report.json", dir);
    snprintf(err, sizeof(err), "%s/report.err", dir);
    snprintf(cmd, sizeof(cmd), "report --format json %s", args);
    assert_int_equal(run_agg(cmd, out, err), 0);
    json_error_t je;
    json_t *j = json_load_file(out, 0, &je);
    if (!j)
        print_message("%s:%d: %s\n", out, je.line, je.text);
    assert_non_null(j);
    return j;
}

static json_t *table(json_t *j, const char *name)
{
    size_t i;
    json_t *t;
    json_array_foreach(json_object_get(j, "reports"), i, t)
    {
        if (!strcmp(json_string_value(json_object_get(t, "name")), name))
            return json_object_get(t, "rows");
    }
    fail_msg("no table %s", name);
    return NULL;
}

/* the row whose text columns match "col=value" pairs (value a prefix) */
static json_t *find_row(json_t *rows, const char *c1, const char *v1, const char *c2, const char *v2)
{
    size_t i;
    json_t *r;
    json_array_foreach(rows, i, r)
    {
        const char *a = json_string_value(json_object_get(r, c1));
        const char *b = c2 ? json_string_value(json_object_get(r, c2)) : "";
        if (a && b && !strncmp(a, v1, strlen(v1)) && (!c2 || !strncmp(b, v2, strlen(v2))))
            return r;
    }
    fail_msg("no row %s=%s %s=%s", c1, v1, c2 ? c2 : "", v2 ? v2 : "");
    return NULL;
}

static double num(json_t *r, const char *col)
{
    json_t *v = json_object_get(r, col);
    assert_true(json_is_number(v));
    return json_number_value(v);
}


static void ingest_fixture(void)
{
    char out[512], err[512], args[600];
    snprintf(out, sizeof(out), "%s/ingest.out", dir);
    snprintf(err, sizeof(err), "%s/ingest.err", dir);
    snprintf(args, sizeof(args), "ingest '%s'", dir);
    assert_int_equal(run_agg(args, out, err), 0);
}

static void test_bounds_by_hand(void **state)
{
    (void)state;
    ingest_fixture();
    json_t *j = report("--model toy");
    json_t *b = find_row(table(j, "bound"), "type", "f32", "device", "D1");
    assert_int_equal((int)num(b, "computing"), 8);
    assert_int_equal((int)num(b, "covered"), 7); /* S has no result */
    /* 80 + 10 + 50 + 30 + 15 + 5 + 40 */
    assert_float_equal(num(b, "sequential"), 230, 1e-9);
    /* A 80, B 10, then C 50 beats D 30 + E 15: 140, F 5, H 40 */
    assert_float_equal(num(b, "parallel"), 185, 1e-9);
    /* the group {A, B}: min(85 fused, 90) */
    assert_float_equal(num(b, "fused"), 225, 1e-9);
    assert_float_equal(num(b, "fused parallel"), 180, 1e-9);
    /* the critical path, in order, without the free node */
    json_t *path = table(j, "path");
    const char *want[] = {"A", "B", "C", "F", "H"};
    size_t i, k = 0;
    json_t *r;
    json_array_foreach(path, i, r)
    {
        if (strncmp(json_string_value(json_object_get(r, "device")), "D1", 2) ||
            strcmp(json_string_value(json_object_get(r, "type")), "f32"))
            continue;
        assert_true(k < 5);
        assert_string_equal(json_string_value(json_object_get(r, "node")), want[k]);
        k++;
    }
    assert_int_equal(k, 5);
    assert_float_equal(num(find_row(path, "node", "H", "device", "D1"), "cumulative"), 185, 1e-9);
    /* coverage names S */
    json_t *m = find_row(table(j, "missing"), "device", "D1", "type", "f32");
    assert_string_equal(json_string_value(json_object_get(m, "node")), "S");
    json_decref(j);
}

static void test_advice_fusion_precision(void **state)
{
    (void)state;
    ingest_fixture();
    json_t *j = report("");
    /* heuristic: LA at a1 100 (fastest a2 80), LD at d2 45 (fastest d1 30): 230 + 20 + 15 */
    json_t *a = find_row(table(j, "algo"), "type", "f32", "device", "D1");
    assert_float_equal(num(a, "heuristic"), 265, 1e-9);
    assert_float_equal(num(a, "heuristic loss"), 100.0 * 35 / 230, 1e-3);
    json_t *la = find_row(table(j, "algo-layers"), "layer", "LA", NULL, NULL);
    assert_string_equal(json_string_value(json_object_get(la, "fastest")), "a2");
    assert_string_equal(json_string_value(json_object_get(la, "heuristic")), "a1");
    assert_float_equal(num(la, "loss"), 20, 1e-9);
    /* largest loss first: LA (20), then LD (45 - 30) */
    json_t *first = json_array_get(table(j, "algo-layers"), 0);
    assert_string_equal(json_string_value(json_object_get(first, "layer")), "LA");
    json_t *second = json_array_get(table(j, "algo-layers"), 1);
    assert_string_equal(json_string_value(json_object_get(second, "layer")), "LD");
    assert_float_equal(num(second, "loss"), 15, 1e-9);
    /* fusion group: members 90, fused 85 */
    json_t *g = find_row(table(j, "fusion-groups"), "device", "D1", "type", "f32");
    assert_float_equal(num(g, "members"), 90, 1e-9);
    assert_float_equal(num(g, "fused"), 85, 1e-9);
    assert_float_equal(num(g, "speedup"), 90.0 / 85, 1e-3);
    /* the bound takes it fused: at 85, as the fused benchmark's algorithm */
    assert_float_equal(num(g, "bound"), 85, 1e-9);
    assert_true(strncmp(json_string_value(json_object_get(g, "bound as")), "members", 7) != 0);
    /* f16 on D1: 40+5+25+15+8+3+20 = 116, speedup 230/116; the group has no f16 fused result */
    json_t *p = find_row(table(j, "precision"), "type", "f16", "device", "D1");
    assert_float_equal(num(p, "sequential"), 116, 1e-9);
    assert_float_equal(num(p, "fused"), 116, 1e-9);
    assert_float_equal(num(p, "speedup vs f32"), 230.0 / 116, 1e-3);
    /* D2: 40+5+25+15+7.5+2.5+20 = 115; fused min(42, 45): 112; ratio to D1's 225 */
    json_t *d = find_row(table(j, "devices"), "model", "toy", "type", "f32");
    assert_float_equal(num(d, "D2, lib2"), 112, 1e-9);
    assert_float_equal(num(d, "ratio 2/1"), 112.0 / 225, 1e-3);
    /* framework: 300 measured vs 225 fused on D1 with 2 threads */
    json_t *fw = find_row(table(j, "framework"), "model", "toy", "device", "D1");
    assert_float_equal(num(fw, "overhead"), 75, 1e-9);
    assert_float_equal(num(fw, "measured/fused bound"), 300.0 / 225, 1e-3);
    /* its node rows (framework-layers, below): of C, A+B and A+C+G (A+Q has no bound), A+C+G
     * alone is above the framework's time, by 130 - 120; fw2's rows are another framework's */
    assert_float_equal(num(fw, "layers above"), 1, 1e-9);
    assert_float_equal(num(fw, "their excess"), 10, 1e-9);
    assert_string_equal(json_string_value(json_object_get(fw, "most excess op")), "Conv+Reshape");
    assert_float_equal(num(fw, "its excess"), 10, 1e-9);
    json_t *fl = find_row(table(j, "framework-layers"), "node", "C", "type", "f32");
    assert_float_equal(num(fl, "bound"), 50, 1e-9);
    assert_float_equal(num(fl, "gap"), 10, 1e-9);
    assert_string_equal(json_string_value(json_object_get(fl, "algorithm")), "c1");
    /* a module that is several nodes: the whole group {A, B} at its fused cost, min(85, 90);
     * A, C and the free G at A's 80 + C's 50 (A alone is no group), NOT A BOUND under 130; a
     * name that is no node gives no bound */
    json_t *ab = find_row(table(j, "framework-layers"), "node", "A+B", "type", "f32");
    assert_float_equal(num(ab, "bound"), 85, 1e-9);
    assert_string_equal(json_string_value(json_object_get(ab, "op")), "conv_act");
    assert_string_equal(json_string_value(json_object_get(ab, "algorithm")), "f1"); /* LAB's row */
    assert_string_equal(json_string_value(json_object_get(ab, "check")), "ok");
    json_t *acg = find_row(table(j, "framework-layers"), "node", "A+C+G", NULL, NULL);
    assert_float_equal(num(acg, "bound"), 130, 1e-9);
    assert_string_equal(json_string_value(json_object_get(acg, "op")), "Conv+Reshape");
    assert_string_equal(json_string_value(json_object_get(acg, "algorithm")), "a2+c1");
    assert_string_equal(json_string_value(json_object_get(acg, "check")), "NOT A BOUND: above measured");
    /* why: the fastest library configurations, each named */
    const char *why = json_string_value(json_object_get(acg, "why"));
    assert_non_null(why);
    assert_non_null(strstr(why, "the fastest library configuration benchmarked (a2)"));
    assert_non_null(strstr(why, "the fastest library configuration benchmarked (c1)"));
    assert_null(json_string_value(json_object_get(ab, "why"))); /* a bound: no why */
    /* in f16 the group {A, B} has no fused row: at its members' 40 + 5, above 30 */
    json_t *ab16 = find_row(table(j, "framework-layers"), "node", "A+B", "type", "f16");
    assert_float_equal(num(ab16, "bound"), 45, 1e-9);
    assert_string_equal(json_string_value(json_object_get(ab16, "why")),
                        "a fusion group at its members' sum: its fused benchmark has no ok row");
    json_t *c16 = find_row(table(j, "framework-layers"), "node", "C", "type", "f16");
    assert_non_null(strstr(json_string_value(json_object_get(c16, "why")), "benchmarked (x)"));
    /* modules that split the group {A, B} (fw2's B and A): one row, held against the group's
     * 85 with their 5 + 90; no row of B or A alone; C, in no group, as it is (fw2's rows have
     * the smaller gaps: the checks above, by prefix, meet fw's first) */
    json_t *ba = find_row(table(j, "framework-layers"), "node", "A+B", "framework", "fw2 1.0");
    assert_non_null(ba);
    assert_float_equal(num(ba, "measured"), 95, 1e-9);
    assert_float_equal(num(ba, "bound"), 85, 1e-9);
    assert_string_equal(json_string_value(json_object_get(ba, "op")), "conv_act");
    assert_string_equal(json_string_value(json_object_get(ba, "check")), "ok");
    size_t fi;
    json_t *fr;
    json_array_foreach(table(j, "framework-layers"), fi, fr)
    {
        const char *node = json_string_value(json_object_get(fr, "node"));
        assert_true(strcmp(node, "A") && strcmp(node, "B"));
    }
    json_t *c2 = find_row(table(j, "framework-layers"), "node", "C", "framework", "fw2 1.0");
    assert_float_equal(num(c2, "bound"), 50, 1e-9);
    /* E's bound is our plain C kernel (file ...-c_plain), 15 against fw2's 12: why says so */
    json_t *e2 = find_row(table(j, "framework-layers"), "node", "E", "framework", "fw2 1.0");
    assert_string_equal(json_string_value(json_object_get(e2, "why")),
                        "a kernel of ours (c_plain): benanza's code to speed up");
    json_t *aq = find_row(table(j, "framework-layers"), "node", "A+Q", NULL, NULL);
    assert_true(json_is_null(json_object_get(aq, "bound")) || !json_object_get(aq, "bound"));
    /* top layers: LA (80) leads D1's f32 list with 80/230 of the bound */
    json_t *tl = find_row(table(j, "top-layers"), "device", "D1", "type", "f32");
    assert_string_equal(json_string_value(json_object_get(tl, "layer")), "LA");
    assert_float_equal(num(tl, "share"), 100.0 * 80 / 230, 1e-3);
    json_decref(j);
}

/* One query's rows as text, "a|b|...|" per row */
static char *query_text(sqlite3 *db, const char *sql)
{
    struct bz_buf b;
    bz_buf_init(&b);
    sqlite3_stmt *s;
    assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &s, NULL), SQLITE_OK);
    while (sqlite3_step(s) == SQLITE_ROW) {
        for (int c = 0; c < sqlite3_column_count(s); c++) {
            const unsigned char *t = sqlite3_column_text(s, c);
            bz_buf_printf(&b, "%s|", t ? (const char *)t : "NULL");
        }
        bz_buf_putc(&b, '\n');
    }
    sqlite3_finalize(s);
    return b.data;
}

static char *db_dump(void)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/t.db", dir);
    sqlite3 *db;
    assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    struct bz_buf b;
    bz_buf_init(&b);
    static const char *const q[] = {
        "SELECT * FROM target ORDER BY id", "SELECT * FROM result ORDER BY target, run, bench, host, time",
        "SELECT * FROM layer ORDER BY id", "SELECT * FROM model_run ORDER BY id",
        "SELECT * FROM node ORDER BY run, idx", "SELECT * FROM fgroup ORDER BY run, grp",
        "SELECT * FROM measured ORDER BY model, node",
        "SELECT * FROM best ORDER BY target, run, layer, prec, algo",
        "SELECT * FROM pick ORDER BY target, run, layer, prec, choice"};
    for (size_t i = 0; i < sizeof(q) / sizeof(q[0]); i++) {
        char *rows = query_text(db, q[i]);
        if (rows) /* NULL: the table is empty */
            bz_buf_puts(&b, rows);
        free(rows);
    }
    sqlite3_close(db);
    return b.data;
}

static void test_ingest_idempotent(void **state)
{
    (void)state;
    ingest_fixture();
    char *before = db_dump();
    ingest_fixture();
    char *after = db_dump();
    assert_true(strlen(before) > 1000);
    assert_string_equal(before, after);
    char path[512];
    snprintf(path, sizeof(path), "%s/ingest.err", dir);
    char *err = slurp(path);
    assert_non_null(strstr(err, "0 rows added"));
    /* and names the database they went to */
    char db[560];
    snprintf(db, sizeof(db), "bad (database %s/%s)\n", dir, db_file);
    assert_non_null(strstr(err, db));
    free(err);
    free(before);
    free(after);
}

static void test_broken_rows(void **state)
{
    (void)state;
    struct bz_buf b;
    bz_buf_init(&b);
    bz_buf_puts(&b, header);
    const char *good = "1,G%d-f32-a,G%d,n,Conv,cpu,a,f32,default,ok,5,1,2,2,3,4,0.5,0,1,1,2,100,CPU X,,2,lib,h,"
                       "2026-11-22T00:00:0%dZ,\"note, with comma\nand a line break\"\n";
    /* line numbers: the header is line 1; the good row with the quoted break spans two */
    bz_buf_printf(&b, good, 1, 1, 1);                                                              /* 2-3 */
    bz_buf_puts(&b, "1,B1-f32-a,B1,n,Conv,cpu,a,f32,default,ok,5,1,2\n");                          /* 4 missing columns */
    bz_buf_puts(&b, "1,B2-f32-a,B2,n,Conv,cpu,a,f32,default,ok,5,1,abc,2,3,4,0,0,1,1,2,100,CPU X,,2,lib,h,2026-11-22T00:00:00Z,\n"); /* 5 text */
    bz_buf_puts(&b, "1,B3-f32-a,B3,n,Conv,cpu,a,f32,default,ok,5,-1,2,2,3,4,0,0,1,1,2,100,CPU X,,2,lib,h,2026-11-22T00:00:00Z,\n"); /* 6 negative */
    bz_buf_puts(&b, "1,B4-f32-a,B4,n,Conv,cpu,a,f32,default,great,5,1,2,2,3,4,0,0,1,1,2,100,CPU X,,2,lib,h,2026-11-22T00:00:00Z,\n"); /* 7 status */
    bz_buf_printf(&b, good, 1, 1, 1);                                                              /* 8-9 duplicate of 2 */
    bz_buf_puts(&b, "1,B6-f32-a,B6,n,Conv,cpu,a,f32,default,ok,5,1,2,2,3,4,0,0,1,1,2,100,CPU X,,2,lib,h,yesterday,\n"); /* 10 time */
    bz_buf_puts(&b, "1,B7-f32-a,B7,n,Conv,tpu,a,f32,default,ok,5,1,2,2,3,4,0,0,1,1,2,100,CPU X,,2,lib,h,2026-11-22T00:00:00Z,\n"); /* 11 backend */
    bz_buf_puts(&b, "1,B8-f32-a,B8,n,Conv,cpu,a,f32,default,ok,5,,,,,,,0,1,1,2,100,CPU X,,2,lib,h,2026-11-22T00:00:00Z,\n"); /* 12 ok without times */
    bz_buf_puts(&b, "1,B9-f32-a,B9,n,Conv,cpu,a,f32,default,ok,5,9,2,2,3,4,0,0,1,1,2,100,CPU X,,2,lib,h,2026-11-22T00:00:00Z,\n"); /* 13 min > median */
    bz_buf_printf(&b, good, 2, 2, 2);                                                              /* 14-15 */
    bz_buf_puts(&b, "2,B10-f32-a,B10,n,Conv,cpu,a,f32,default,ok,5,1,2,2,3,4,0,0,1,1,2,100,CPU X,,2,lib,h,2026-11-22T00:00:00Z,\n"); /* 16 schema */
    bz_buf_puts(&b, "1,B11-f32-a,B11,n,Conv,cpu,a,f32,default,ok,5,1,2,2,3,4,0,0,1,1,2,100,,,2,lib,h,2026-11-22T00:00:00Z,\n"); /* 17 no device */
    bz_buf_printf(&b, good, 3, 3, 3);                                                              /* 18-19 */
    bz_buf_puts(&b, "1,B12-f32-a,B12,n,Conv,cpu,a,f32,default,ok,5,1,2,2,3,4,0,0,1,1,2,100,CPU X,,2,lib,h,2026-11-22T00:00:00Z,\"cut");  /* 20 truncated */
    char bad_dir[600];
    snprintf(bad_dir, sizeof(bad_dir), "%s/broken", dir);
    assert_int_equal(mkdir(bad_dir, 0755), 0);
    put_file("broken/results.csv", b.data);
    bz_buf_free(&b);
    char out[512], err[512], args[1400];
    snprintf(out, sizeof(out), "%s/broken.out", dir);
    snprintf(err, sizeof(err), "%s/broken.err", dir);
    snprintf(args, sizeof(args), "--db '%s/broken.db' ingest '%s/results.csv'", bad_dir, bad_dir);
    /* run_agg adds its own --db; the later one wins */
    assert_int_equal(run_agg(args, out, err), 3);
    char *text = slurp(err);
    print_message("%s", text);
    static const int bad_lines[] = {4, 5, 6, 7, 8, 10, 11, 12, 13, 16, 17, 20};
    for (size_t i = 0; i < sizeof(bad_lines) / sizeof(bad_lines[0]); i++) {
        char where[64];
        snprintf(where, sizeof(where), "results.csv:%d: ", bad_lines[i]);
        if (!strstr(text, where))
            fail_msg("no report for line %d", bad_lines[i]);
    }
    assert_non_null(strstr(text, "3 rows added, 0 already there, 12 bad"));
    /* every good row is kept, whole */
    char path[1024];
    snprintf(path, sizeof(path), "%s/broken.db", bad_dir);
    sqlite3 *db;
    assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    sqlite3_stmt *s;
    assert_int_equal(sqlite3_prepare_v2(db, "SELECT count(*), min(note) FROM result", -1, &s, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(s), SQLITE_ROW);
    assert_int_equal(sqlite3_column_int(s, 0), 3);
    assert_string_equal((const char *)sqlite3_column_text(s, 1), "note, with comma\nand a line break");
    sqlite3_finalize(s);
    sqlite3_close(db);
    free(text);
}

static void test_formats_and_errors(void **state)
{
    (void)state;
    ingest_fixture();
    char out[512], err[512];
    snprintf(out, sizeof(out), "%s/r.out", dir);
    snprintf(err, sizeof(err), "%s/r.err", dir);
    static const char *const fmts[] = {"table", "csv", "md", "html"};
    for (size_t i = 0; i < 4; i++) {
        char args[128];
        snprintf(args, sizeof(args), "report --format %s --top 0", fmts[i]);
        assert_int_equal(run_agg(args, out, err), 0);
        char *text = slurp(out);
        assert_non_null(strstr(text, i == 3 ? "<svg" : "toy"));
        if (i == 3) {
            assert_non_null(strstr(text, "</html>"));
            assert_null(strstr(text, "http://www.w3.org/2000/svg\" src")); /* no external resource */
            assert_null(strstr(text, "<script"));
        }
        free(text);
    }
    assert_int_equal(run_agg("report --report nosuch", out, err), 2);
    assert_int_equal(run_agg("report --model nomodel", out, err), 4);
    assert_int_equal(run_agg("report --format pdf", out, err), 2);
    char args[1400];
    snprintf(args, sizeof(args), "ingest '%s/manifest.tsv' '%s/nonexistent.csv'", dir, dir);
    assert_int_equal(run_agg(args, out, err), 3);
    /* -o writes the whole file */
    snprintf(args, sizeof(args), "report --format csv --report bound -o '%s/bound.csv'", dir);
    assert_int_equal(run_agg(args, out, err), 0);
    snprintf(args, sizeof(args), "%s/bound.csv", dir);
    char *text = slurp(args);
    assert_true(strncmp(text, "model,batch,type,device,", 24) == 0);
    free(text);
    /* -o onto a FIFO (as onto /dev/null or /dev/stdout): written through, the FIFO kept */
    char fifo[300];
    snprintf(fifo, sizeof(fifo), "%s/report.fifo", dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    snprintf(args, sizeof(args), "report --format csv --report bound -o '%s' & timeout 60 cat '%s' > '%s/through.csv'; wait $!", fifo,
             fifo, dir);
    assert_int_equal(run_agg(args, out, err), 0);
    struct stat st;
    assert_int_equal(lstat(fifo, &st), 0);
    assert_true(S_ISFIFO(st.st_mode));
    snprintf(args, sizeof(args), "%s/through.csv", dir);
    text = slurp(args);
    assert_true(strncmp(text, "model,batch,type,device,", 24) == 0);
    free(text);
}

/* The summary tables (best: fastest median per algorithm; pick: the latest choice) that
 * ingest keeps in memory and writes in batches, held against SQL over the result rows
 * themselves: three files whose keys overlap and whose times come in no order, a batch of 5
 * keys so that one file is flushed many times, and the same files again. */
static void test_summary_tables(void **state)
{
    (void)state;
    db_file = "summary.db";
    unsigned lcg = 12345;
#define NEXT() (lcg = lcg * 1103515245u + 12345u, (lcg >> 8) % 1000)
    static const char *const times[] = {"2026-11-03T00:00:00Z", "2026-11-01T00:00:00Z",
                                        "2026-11-05T00:00:00Z", "2026-11-02T00:00:00Z",
                                        "2026-11-04T00:00:00Z", "2026-11-06T00:00:00Z"};
    char args[4096] = "ingest";
    for (int file = 0; file < 3; file++) {
        struct bz_buf b;
        bz_buf_init(&b);
        bz_buf_puts(&b, header);
        for (int t = 2 * file; t < 2 * file + 2; t++) {
            for (int l = 0; l < 9; l++) {
                int pick = (int)NEXT() % 4;
                for (int a = 0; a < 4; a++) {
                    for (int dev = 0; dev < 2; dev++) {
                        int ok = NEXT() < 800;
                        double us = 1 + (double)NEXT();
                        const char *d = dev ? "cuda" : "cpu";
                        bz_buf_printf(&b, "1,L%d-f32-a%d,L%d,name,op,%s,a%d,f32,%s,%s,", l, a, l, d, a,
                                      a == 3 ? "tensor_op" : "default", ok ? "ok" : "unsupported");
                        if (ok)
                            bz_buf_printf(&b, "5,%g,%g,%g,%g,%g,0,", us, us, us, us, us);
                        else
                            bz_buf_puts(&b, "0,,,,,,,");
                        bz_buf_printf(&b, "0,1,1,%d,1,D%d,,4,lib,host,%s,%s\n", dev ? 0 : 2, dev,
                                      times[t], ok && a == pick ? "choice=heuristic" : "");
                    }
                }
            }
        }
        char name[32];
        snprintf(name, sizeof(name), "s%d.csv", file);
        put_file(name, b.data);
        bz_buf_free(&b);
        size_t n = strlen(args);
        snprintf(args + n, sizeof(args) - n, " '%s/%s'", dir, name);
    }
#undef NEXT
    /* twice: a whole file per batch (keys meet in memory), 5 keys per batch (in the table) */
    static const char *const batch[] = {NULL, "5"}, *const dbs[] = {"summary.db", "summary5.db"};
    for (int k = 0; k < 2; k++) {
        char out[512], err[512], path[512];
        snprintf(out, sizeof(out), "%s/summary.out", dir);
        snprintf(err, sizeof(err), "%s/summary.err", dir);
        db_file = dbs[k];
        if (batch[k])
            setenv("BENANZA_AGG_BATCH", batch[k], 1);
        assert_int_equal(run_agg(args, out, err), 0);
        assert_int_equal(run_agg(args, out, err), 0);
        unsetenv("BENANZA_AGG_BATCH");
        db_file = "t.db";
        snprintf(path, sizeof(path), "%s/%s", dir, dbs[k]);
        sqlite3 *db;
        assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
        char *rows = query_text(db, "SELECT count(*), count(DISTINCT src_ingest) FROM result");
        assert_string_equal(rows, "432|3|\n"); /* 3 files x 2 times x 9 layers x 4 algos x 2 devices */
        free(rows);
        static const char *const pairs[][2] = {
            {"SELECT target, run, layer, prec, algo, median_us FROM best ORDER BY target, run, layer, prec, algo",
             "SELECT target, run, layer, prec, algo, min(median_us) FROM result WHERE status='ok'"
             " GROUP BY target, run, layer, prec, algo ORDER BY target, run, layer, prec, algo"},
            {"SELECT * FROM pick ORDER BY target, run, layer, prec, choice",
             "SELECT target, run, layer, prec, choice, chosen, max(time) FROM result WHERE choice IS"
             " NOT NULL GROUP BY target, run, layer, prec, choice ORDER BY target, run, layer, prec,"
             " choice"}};
        for (size_t i = 0; i < 2; i++) {
            char *kept = query_text(db, pairs[i][0]), *truth = query_text(db, pairs[i][1]);
            assert_true(strlen(truth) > 100);
            assert_string_equal(kept, truth);
            free(kept);
            free(truth);
        }
        sqlite3_close(db);
    }
}

/* Schema 2 rows from a GPU (method, kernel_us, busy, CUPTI's kernel names), beside schema 1
 * rows in one file: the framework's f16 is held against the f16+tensor_op bound, a bound
 * above the measured time says NOT A BOUND (and only then), the algorithm report names the
 * kernels of the fastest and of the heuristic's algorithm, a bad method or busy value is a
 * bad row, and run_all's own error rows (device unknown) make no report target. */
static void test_gpu_rows(void **state)
{
    (void)state;
    static const char *const layers[] = {"LA", "LB", "LAB", "LC", "LD", "LE", "LF", "LH", "LS"};
    struct bz_buf b;
    bz_buf_init(&b);
    bz_buf_puts(&b, header2);
    for (size_t i = 0; i < sizeof(layers) / sizeof(layers[0]); i++) {
        double us = 10.0 * (double)(i + 1);
        /* two algorithms: k1 the faster, k2 the heuristic's pick */
        bz_buf_printf(&b, "2,%s-f16tc-k1,%s,n,op,cuda,k1,f16,tensor_op,ok,20,%g,%g,%g,%g,%g,0,0,1,1,0,100,GPU X,9.0,132,"
                          "libG,h,2026-11-23T00:00:00Z,blocking,%g,,\"kernels=1; kernel_names=fast_kernel<half, 4>|x\"\n",
                      layers[i], layers[i], us, us, us, us, us, us * 0.98);
        bz_buf_printf(&b, "2,%s-f16tc-k2,%s,n,op,cuda,k2,f16,tensor_op,ok,20,%g,%g,%g,%g,%g,0,0,1,1,0,100,GPU X,9.0,132,"
                          "libG,h,2026-11-23T00:00:00Z,graph-host,%g,,kernels=2; kernel_names=slow_kernel\n",
                      layers[i], layers[i], 2 * us, 2 * us, 2 * us, 2 * us, 2 * us, 1.9 * us);
    }
    /* LS's fastest a kernel of ours, in f16 without Tensor Cores (the f16+tensor_op bound takes it) */
    bz_buf_printf(&b, "2,LS-f16-kernel,LS,n,op,cuda,kernel,f16,default,ok,20,89,89,89,89,89,0,0,1,1,0,100,GPU X,9.0,132,"
                      "libG,h,2026-11-23T00:00:00Z,blocking,%g,,kernels=1\n",
                  0.98 * 89);
    bz_buf_puts(&b, "2,LA-f16tc-heuristic,LA,n,Conv,cuda,heuristic,f16,tensor_op,advice,0,,,,,,,0,1,1,0,100,GPU X,9.0,132,"
                    "libG,h,2026-11-23T00:00:00Z,,,,ranking=k2>k1\n");
    /* run_all's own error row: every required column, device unknown */
    bz_buf_puts(&b, "2,LB-f16-x,LB,,Relu,cuda,,f16,,error,0,,,,,,,0,0,0,0,0,unknown,,,,h,2026-11-23T00:00:00Z,,,,"
                    "not built: run ninja first\n");
    /* a schema 1 row in the same file */
    bz_buf_puts(&b, "1,LA-f32-s1,LA,n,Conv,cuda,s1,f32,default,ok,5,7,7,7,7,7,0,0,1,1,0,100,GPU X,9.0,132,libG,h,"
                    "2026-11-23T00:00:00Z,old\n");
    /* bad: an unknown method, a busy of 2 */
    bz_buf_puts(&b, "2,LA-f16tc-k9,LA,n,Conv,cuda,k9,f16,tensor_op,ok,20,1,1,1,1,1,0,0,1,1,0,100,GPU X,9.0,132,libG,h,"
                    "2026-11-23T00:00:00Z,stopwatch,,,\n");
    bz_buf_puts(&b, "2,LA-f16tc-k8,LA,n,Conv,cuda,k8,f16,tensor_op,ok,20,1,1,1,1,1,0,0,1,1,0,100,GPU X,9.0,132,libG,h,"
                    "2026-11-23T00:00:00Z,blocking,,2,\n");
    assert_int_equal(test_sh("mkdir -p '%s/gpu' && cp '%s/manifest.tsv' '%s/gpu/'", dir, dir, dir), 0);
    char path[512];
    snprintf(path, sizeof(path), "%s/gpu/results.csv", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(b.data, f);
    fclose(f);
    bz_buf_free(&b);
    db_file = "gpu.db";
    char out[512], err[512], args[600];
    snprintf(out, sizeof(out), "%s/gpu.out", dir);
    snprintf(err, sizeof(err), "%s/gpu.err", dir);
    snprintf(args, sizeof(args), "ingest '%s/gpu'", dir);
    assert_int_equal(run_agg(args, out, err), 3); /* the two bad rows */
    char *e = slurp(err);
    assert_non_null(strstr(e, "unknown method 'stopwatch'"));
    assert_non_null(strstr(e, "column busy: '2'"));
    assert_non_null(strstr(e, "0 already there, 2 bad"));
    free(e);
    json_t *j = report("--report bound,algo-layers,devices --type 'f16*'");
    json_t *bound = find_row(table(j, "bound"), "type", "f16+tensor_op", NULL, NULL);
    double fused = num(bound, "fused");
    assert_true(fused > 0);
    /* the kernel clock: every chosen time is a k1 row, whose kernel_us is 0.98 of its median */
    assert_float_equal(num(bound, "kernels fused"), 0.98 * fused, 1e-6);
    assert_float_equal(num(bound, "kernels sequential"), 0.98 * num(bound, "sequential"), 1e-6);
    /* the algorithm report: the fastest k1 and its kernels, the heuristic's k2 and its kernels */
    json_t *al = find_row(table(j, "algo-layers"), "layer", "LA", NULL, NULL);
    assert_string_equal(json_string_value(json_object_get(al, "fastest")), "k1");
    assert_string_equal(json_string_value(json_object_get(al, "fastest kernels")), "fast_kernel<half, 4>|x");
    assert_string_equal(json_string_value(json_object_get(al, "heuristic kernels")), "slow_kernel");
    /* one device only: the error row's "unknown" is no target (no devices report) */
    size_t i;
    json_t *t;
    json_array_foreach(json_object_get(j, "reports"), i, t)
        assert_string_not_equal(json_string_value(json_object_get(t, "name")), "devices");
    json_decref(j);
    /* a framework faster than the bound, and one slower, in f16 (held against f16+tensor_op) */
    snprintf(path, sizeof(path), "%s/gpu/measured.csv", dir);
    f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "model,batch,dtype,device,framework,threads,latency_us,runs,note,node\n"
               "toy,1,f16,GPU X,fw fast,1,%.3f,10,,\ntoy,1,f16,GPU X,fw slow,1,%.3f,10,,\n"
               "toy,1,f16,GPU X,fw kernels,1,%.3f,10,,\ntoy,1,f16,GPU X,fw graph,1,%.3f,10,,\n"
               "toy,1,f16,GPU X,fw kernels,1,60,10,,S\ntoy,1,f16,GPU X,fw kernels,1,25,10,,C\n"
               "toy,1,f16,GPU X,fw kernels,1,35,10,,D\ntoy,1,f16,GPU X,fw kernels,1,100,10,,H\n"
               "toy,1,f16,GPU X,fw slow,1,1000,10,,H\n",
            fused / 2, fused * 2, fused * 0.99, fused * 0.99);
    fclose(f);
    assert_int_equal(run_agg(args, out, err), 3);
    j = report("--report framework");
    json_t *fast = find_row(table(j, "framework"), "framework", "fw fast", NULL, NULL);
    json_t *slow = find_row(table(j, "framework"), "framework", "fw slow", NULL, NULL);
    assert_true(fabs(num(fast, "fused bound") - fused) < 1e-6);
    assert_string_equal(json_string_value(json_object_get(fast, "check")), "NOT A BOUND: above measured");
    assert_true(num(fast, "overhead") < 0);
    assert_string_equal(json_string_value(json_object_get(slow, "check")), "ok");
    assert_true(num(slow, "overhead") > 0);
    assert_string_equal(json_string_value(json_object_get(slow, "clock")), "median");
    /* a kernel-time sum (a framework named "... kernels") at 0.99 of the fused medians: held
     * against the kernel clock's 0.98, a bound; a wall-clock figure as low is not */
    json_t *kern = find_row(table(j, "framework"), "framework", "fw kernels", NULL, NULL);
    json_t *graph = find_row(table(j, "framework"), "framework", "fw graph", NULL, NULL);
    assert_string_equal(json_string_value(json_object_get(kern, "clock")), "kernels");
    assert_float_equal(num(kern, "fused bound"), 0.98 * fused, 1e-6);
    assert_string_equal(json_string_value(json_object_get(kern, "check")), "ok");
    assert_string_equal(json_string_value(json_object_get(graph, "check")), "NOT A BOUND: above measured");
    /* fw kernels also timed nodes, held against the kernel clock (0.98 of each median): S
     * (Softmax, 0.98 x 89 against 60), C and D (Conv, 0.98 x 40 against 25 and 0.98 x 50
     * against 35) above, H (0.98 x 80 against 100) not. Conv's two rows hold the most excess
     * together (28.2), though each holds less than Softmax's one (27.22). fw slow timed H only,
     * below its bound: zero layers above, no op. fw graph timed no node: no layer columns */
    assert_float_equal(num(kern, "layers above"), 3, 1e-9);
    assert_float_equal(num(kern, "their excess"), (0.98 * 89 - 60) + (0.98 * 40 - 25) + (0.98 * 50 - 35), 1e-6);
    assert_string_equal(json_string_value(json_object_get(kern, "most excess op")), "Conv");
    assert_float_equal(num(kern, "its excess"), (0.98 * 40 - 25) + (0.98 * 50 - 35), 1e-6);
    assert_float_equal(num(slow, "layers above"), 0, 1e-9);
    assert_float_equal(num(slow, "their excess"), 0, 1e-9);
    assert_true(json_is_null(json_object_get(slow, "most excess op")) || !json_object_get(slow, "most excess op"));
    assert_true(json_is_null(json_object_get(graph, "layers above")) || !json_object_get(graph, "layers above"));
    json_decref(j);
    /* a node whose bound is a kernel of ours above the framework's 60 us: why says so */
    j = report("--report framework-layers");
    json_t *s = find_row(table(j, "framework-layers"), "node", "S", NULL, NULL);
    assert_float_equal(num(s, "bound"), 0.98 * 89, 1e-6);
    assert_string_equal(json_string_value(json_object_get(s, "why")), "a kernel of ours (kernel): benanza's code to speed up");
    json_decref(j);
    db_file = "t.db";
}

/* The reliability issue's hostile inputs to agg: a manifest whose node index is beyond its run
 * (and one that is malformed further down) is rejected whole and the database keeps the good
 * one; an unclosed quote is one bad row and the rows after it are ingested; numbers in hex or
 * with a leading space are bad; a NUL makes one bad row; control bytes from the file are
 * escaped in messages; a byte-order mark is accepted; a missing file is one error and no
 * database is created; reports work with no measured rows (UBSan: asan-test) */
static void test_hostile_inputs(void **state)
{
    (void)state;
    char out[512], err[512], args[900], path[600];
    snprintf(out, sizeof(out), "%s/h.out", dir);
    snprintf(err, sizeof(err), "%s/h.err", dir);
    assert_int_equal(test_sh("mkdir -p '%s/h' && cp '%s/manifest.tsv' '%s/h/manifest.tsv'", dir, dir, dir), 0);
    db_file = "hostile.db";
    /* a missing file: one error, nothing created */
    snprintf(args, sizeof(args), "ingest '%s/h/manifest.tsv' '%s/h/nothere.csv'", dir, dir);
    assert_int_equal(run_agg(args, out, err), 3);
    char *e = slurp(err);
    assert_non_null(strstr(e, "nothere.csv: error: No such file or directory"));
    assert_ptr_equal(strchr(e, '\n'), e + strlen(e) - 1);
    free(e);
    snprintf(path, sizeof(path), "%s/hostile.db", dir);
    assert_int_not_equal(access(path, F_OK), 0);
    /* the good manifest, then two bad ones that must change nothing */
    snprintf(args, sizeof(args), "ingest '%s/h/manifest.tsv'", dir);
    assert_int_equal(run_agg(args, out, err), 0);
    static const char *const bad_manifests[] = {
        "benanza-manifest\t1\nrun\t0\ttoy\t1\ttoy.onnx\t9\nnode\t0\t2147483648\tRelu\tcompute\tLB\t-\t-\tB\n",
        "benanza-manifest\t1\nrun\t0\ttoy\t1\ttoy.onnx\t2\nnode\t0\t0\tConv\tcompute\tLA\t-\t-\tA\n"
        "node\t0\t1\tRelu\tcompute\tLB\t-\t7\tB\n",
        "benanza-manifest\t1\nrun\t0\ttoy\t1\ttoy.onnx\t2\nnode\t0\t0\tConv\tcompute\tLA\t-\t-\tA\nnode\t0\tx\n",
    };
    for (size_t i = 0; i < 3; i++) {
        put_file("h/bad.tsv", bad_manifests[i]);
        snprintf(args, sizeof(args), "ingest '%s/h/bad.tsv'", dir);
        assert_int_equal(run_agg(args, out, err), 3);
        e = slurp(err);
        assert_non_null(strstr(e, "the manifest is not ingested"));
        free(e);
    }
    sqlite3 *db;
    assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    char *nodes = query_text(db, "SELECT count(*), max(idx) FROM node");
    assert_string_equal(nodes, "9|8|\n");
    free(nodes);
    sqlite3_close(db);
    /* results: a BOM, hex, a leading space, a NUL, an escape sequence, an unclosed quote */
    static const char hdr[] = "schema,bench,layer,layer_name,op,backend,impl,dtype,math,status,iters,min_us,median_us,"
                              "mean_us,p90_us,max_us,stddev_us,workspace_bytes,flops,bytes,threads,peak_rss_kb,device,"
                              "cc,sms,lib,host,time,method,kernel_us,busy,note\n";
#define ROW(bench, us) "2," bench ",LA,n,Conv,cpu,a,f32,default,ok,3," us "," us "," us "," us "," us ",0,0,1,1,2,9,CPU,,2,lib,h,2026-11-23T00:00:00Z,cpu,,0,\n"
    struct bz_buf b;
    bz_buf_init(&b);
    bz_buf_puts(&b, "\xef\xbb\xbf");
    bz_buf_puts(&b, hdr);
    bz_buf_puts(&b, ROW("LA-f32-good1", "5"));
    bz_buf_puts(&b, ROW("LA-f32-hex", "0x10"));
    bz_buf_puts(&b, ROW("LA-f32-space", " 5"));
    bz_buf_puts(&b, ROW("LA-f32-inf", "inf"));
    bz_buf_puts(&b, "2,LA-f32-esc,LA,n,Conv,cpu,a,f32,default,ok\x1b[31m,3,5,5,5,5,5,0,0,1,1,2,9,CPU,,2,lib,h,"
                    "2026-11-23T00:00:00Z,cpu,,0,\n");
    bz_buf_puts(&b, "2,LA-f32-nul,LA,n,Conv,cpu,a,f32,default,ok,3,5,5,5,5,5,0,0,1,1,2,9,CP");
    bz_buf_append(&b, "\0", 1);
    bz_buf_puts(&b, "U,,2,lib,h,2026-11-23T00:00:00Z,cpu,,0,\n");
    bz_buf_puts(&b, "2,LA-f32-quote,LA,\"n,Conv,cpu,a,f32,default,ok,3,5,5,5,5,5,0,0,1,1,2,9,CPU,,2,lib,h,"
                    "2026-11-23T00:00:00Z,cpu,,0,\n");
    bz_buf_puts(&b, ROW("LA-f32-good2", "4"));
    bz_buf_puts(&b, ROW("LA-f32-good3", "3"));
    snprintf(path, sizeof(path), "%s/h/results.csv", dir);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fwrite(b.data, 1, b.len, f);
    fclose(f);
    bz_buf_free(&b);
#undef ROW
    snprintf(args, sizeof(args), "ingest '%s/h/results.csv'", dir);
    assert_int_equal(run_agg(args, out, err), 3);
    e = slurp(err);
    assert_non_null(strstr(e, ":3: column min_us: '0x10' is not a number"));
    assert_non_null(strstr(e, ":4: column min_us: ' 5' is not a number"));
    assert_non_null(strstr(e, ":5: column min_us: 'inf' is not a number"));
    assert_non_null(strstr(e, "\\x1b[31m"));
    assert_null(strchr(e, '\x1b'));
    assert_non_null(strstr(e, ":7: a NUL byte in the row"));
    assert_non_null(strstr(e, ":8: a quote that is not closed on its line"));
    assert_non_null(strstr(e, "3 rows added, 0 already there, 6 bad"));
    free(e);
    /* a report with no measured rows; nothing busy yet */
    json_t *j = report("--report bound,framework");
    json_t *bound = find_row(table(j, "bound"), "model", "toy", NULL, NULL);
    assert_true(num(bound, "busy") == 0);
    json_decref(j);
    /* a faster LA row taken on a busy machine: the bound uses it, and says so in every table */
    put_file("h/busy.csv", "schema,bench,layer,layer_name,op,backend,impl,dtype,math,status,iters,min_us,median_us,"
                           "mean_us,p90_us,max_us,stddev_us,workspace_bytes,flops,bytes,threads,peak_rss_kb,device,"
                           "cc,sms,lib,host,time,method,kernel_us,busy,note\n"
                           "2,LA-f32-busy,LA,n,Conv,cpu,a,f32,default,ok,3,1,1,1,1,1,0,0,1,1,2,9,CPU,,2,lib,h,"
                           "2026-11-23T00:00:01Z,cpu,,1,busy_cores=1.90\n");
    snprintf(args, sizeof(args), "ingest '%s/h/busy.csv'", dir);
    assert_int_equal(run_agg(args, out, err), 0);
    j = report("--report bound,top-layers,path");
    bound = find_row(table(j, "bound"), "model", "toy", NULL, NULL);
    assert_true(num(bound, "busy") == 1);
    assert_true(num(find_row(table(j, "top-layers"), "layer", "LA", NULL, NULL), "busy") == 1);
    json_decref(j);
    db_file = "t.db";
}

/* one row of the roofline test: LAYER on DEV at f32 in US with its work */
/* Results rows ROWS (freed) beside the toy manifest in DIR/NAME, ingested into NAME.db (the
 * database the reports then read); OUT and ERR (512 bytes) name agg's output files */
static void ingest_rows_with(const char *name, const char *extra_manifest, struct bz_buf *rows, char *out,
                             char *err)
{
    static char db[64];
    assert_int_equal(test_sh("mkdir -p '%s/%s' && cp '%s/manifest.tsv' '%s/%s/'", dir, name, dir, dir, name), 0);
    char path[512], args[600];
    if (extra_manifest) {
        snprintf(path, sizeof(path), "%s/%s/manifest.tsv", dir, name);
        FILE *m = fopen(path, "a");
        assert_non_null(m);
        fputs(extra_manifest, m);
        fclose(m);
    }
    snprintf(path, sizeof(path), "%s/%s/results.csv", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(rows->data, f);
    fclose(f);
    bz_buf_free(rows);
    snprintf(db, sizeof(db), "%s.db", name);
    db_file = db;
    snprintf(out, 512, "%s/%s.out", dir, name);
    snprintf(err, 512, "%s/%s.err", dir, name);
    snprintf(args, sizeof(args), "ingest '%s/%s'", dir, name);
    assert_int_equal(run_agg(args, out, err), 0);
}

static void ingest_rows(const char *name, struct bz_buf *rows, char *out, char *err)
{
    ingest_rows_with(name, NULL, rows, out, err);
}

/* a GPU row of algorithm ALGO in f32, its kernel_us KUS */
static void gpu_row_k(struct bz_buf *b, const char *dev, const char *layer, const char *algo, const char *lib, double us,
                      double kus, double flops, double bytes, const char *note)
{
    bz_buf_printf(b, "2,%s-f32-%s,%s,n,op,cuda,%s,f32,default,ok,20,%g,%g,%g,%g,%g,0,0,%.17g,%.17g,0,100,%s,9.0,132,%s,h,"
                     "2026-11-24T00:00:00Z,blocking,%g,,%s\n",
                  layer, algo, layer, algo, us, us, us, us, us, flops, bytes, dev, lib, kus, note);
}

/* the same, algorithm a, its kernel_us its median */
static void gpu_row(struct bz_buf *b, const char *dev, const char *layer, const char *lib, double us, double flops,
                    double bytes, const char *note)
{
    gpu_row_k(b, dev, layer, "a", lib, us, us, flops, bytes, note);
}

/* Layout plans on the toy model (cuda devices D3, D4): LC and LD also have channels-last
 * results (nhwc_*). D3: LC 50 or nhwc 20, LD 30 or nhwc 40. The NCHW plan: 40 + 5 + 50 + 30 +
 * 7.5 + 2.5 + 20 = 155 sequential, 152 fused ({A, B}: 42 < 45); the NHWC plan: 40 + 5 + 20 + 40
 * + 7.5 + 2.5 + 20 = 135, 132 fused: the bound is NHWC's (mixing the two per layer, 125, would
 * count no layout change). D4: LC nhwc 60: NHWC fused 172, NCHW's 152 wins. */
static void test_layout_plans(void **state)
{
    (void)state;
    struct bz_buf b;
    bz_buf_init(&b);
    bz_buf_puts(&b, header);
    for (int d = 0; d < 2; d++) {
        const char *dev = d ? "D4" : "D3";
        static const char *const rows[][3] = {{"LA", "a", "40"},        {"LB", "b", "5"},  {"LAB", "f", "42"},
                                              {"LC", "c", "50"},        {"LD", "d", "30"}, {"LD", "nhwc_d", "40"},
                                              {"LE", "e", "7.5"},       {"LF", "f", "2.5"}, {"LH", "h", "20"}};
        for (size_t i = 0; i < BZ_ARRAY_LEN(rows); i++)
            row(&b, dev, rows[i][0], rows[i][1], "f32", "ok", atof(rows[i][2]), "");
        row(&b, dev, "LC", "nhwc_c", "f32", "ok", d ? 60 : 20, "");
    }
    char out[512], err[512];
    ingest_rows("layout", &b, out, err);
    json_t *j = report("--model toy");
    json_t *r = find_row(table(j, "bound"), "device", "D3", "type", "f32");
    assert_string_equal(json_string_value(json_object_get(r, "layout")), "nhwc");
    assert_float_equal(num(r, "sequential"), 135, 1e-9);
    assert_float_equal(num(r, "fused"), 132, 1e-9);
    assert_float_equal(num(r, "other layout fused"), 152, 1e-9);
    r = find_row(table(j, "bound"), "device", "D4", "type", "f32");
    assert_string_equal(json_string_value(json_object_get(r, "layout")), "nchw");
    assert_float_equal(num(r, "sequential"), 155, 1e-9);
    assert_float_equal(num(r, "fused"), 152, 1e-9);
    assert_float_equal(num(r, "other layout fused"), 172, 1e-9);
    json_decref(j);
    db_file = "t.db";
}

/* The NHWC plan's layout changes, on the toy model with its 4-D values (manifest relayout
 * lines) and the rows of test_layout_plans. NHWC plan on D3: {A, B} fused (LAB, not
 * channels-last: NCHW), C and D channels-last, E NCHW (no nhwc row), F elementwise, G free
 * (NCHW). Values: the graph input -> A (NCHW, NCHW: none); A -> B (inside the group: none);
 * B (NCHW) -> C, D (NHWC): one Transpose TB_H (3 us) for both; C (NHWC) -> F: F takes NHWC;
 * D (NHWC) -> E (NCHW): TD_C 2 us; E (NCHW) -> F (NHWC): TE_H 2 us; F (NHWC) -> G (free, NCHW):
 * TF_C, no result (counted 0, missing 1). NHWC: 135 + 7 = 142 sequential, 132 + 7 = 139 fused,
 * still below NCHW's 152. D4: NHWC 172 + 7 = 179 fused, NCHW's 152 is the bound. */
static void test_layout_changes(void **state)
{
    (void)state;
    struct bz_buf b;
    bz_buf_init(&b);
    bz_buf_puts(&b, header);
    for (int d = 0; d < 2; d++) {
        const char *dev = d ? "D4" : "D3";
        static const char *const rows[][3] = {{"LA", "a", "40"},   {"LB", "b", "5"},     {"LAB", "f", "42"},
                                              {"LC", "c", "50"},   {"LD", "d", "30"},    {"LD", "nhwc_d", "40"},
                                              {"LE", "e", "7.5"},  {"LF", "f", "2.5"},   {"LH", "h", "20"},
                                              {"TB_H", "cudnn", "3"}, {"TD_C", "cudnn", "2"}, {"TD_C", "kernel", "2.5"},
                                              {"TE_H", "cudnn", "2"}, {"TIN_H", "cudnn", "9"}};
        for (size_t i = 0; i < BZ_ARRAY_LEN(rows); i++)
            row(&b, dev, rows[i][0], rows[i][1], "f32", "ok", atof(rows[i][2]), "");
        row(&b, dev, "LC", "nhwc_c", "f32", "ok", d ? 60 : 20, "");
    }
    static const char extra[] = "layer\tTIN_H\tnode\tTranspose\tt_in_h\t1\t{}\n"
                                "layer\tTB_H\tnode\tTranspose\tt_b_h\t1\t{}\n"
                                "layer\tTD_C\tnode\tTranspose\tt_d_c\t1\t{}\n"
                                "layer\tTE_H\tnode\tTranspose\tt_e_h\t1\t{}\n"
                                "layer\tTF_C\tnode\tTranspose\tt_f_c\t1\t{}\n"
                                "relayout\t0\t-\t0\t-\t0\tTIN_H\tTIN_C\n"
                                "relayout\t0\t0\t1\t1\t0\tTA_H\tTA_C\n"
                                "relayout\t0\t1\t2,3\t-\t0\tTB_H\tTB_C\n"
                                "relayout\t0\t2\t5\t5\t0\tTC_H\tTC_C\n"
                                "relayout\t0\t3\t4\t-\t0\tTD_H\tTD_C\n"
                                "relayout\t0\t4\t5\t5\t0\tTE_H\tTE_C\n"
                                "relayout\t0\t5\t6\t-\t0\tTF_H\tTF_C\n";
    char out[512], err[512];
    ingest_rows_with("relayout", extra, &b, out, err);
    json_t *j = report("--model toy");
    json_t *r = find_row(table(j, "bound"), "device", "D3", "type", "f32");
    assert_string_equal(json_string_value(json_object_get(r, "layout")), "nhwc");
    assert_float_equal(num(r, "sequential"), 142, 1e-9);
    assert_float_equal(num(r, "fused"), 139, 1e-9);
    assert_float_equal(num(r, "other layout fused"), 152, 1e-9);
    assert_float_equal(num(r, "layout changes"), 4, 1e-9);
    assert_float_equal(num(r, "layout change"), 7, 1e-9);
    assert_float_equal(num(r, "changes missing"), 1, 1e-9);
    r = find_row(table(j, "bound"), "device", "D4", "type", "f32");
    assert_string_equal(json_string_value(json_object_get(r, "layout")), "nchw");
    assert_float_equal(num(r, "fused"), 152, 1e-9);
    assert_float_equal(num(r, "other layout fused"), 179, 1e-9);
    assert_float_equal(num(r, "layout changes"), 4, 1e-9);
    json_decref(j);
    /* a relayout line naming a node beyond the run, or malformed: the manifest is refused */
    static const char *const bad[] = {"relayout\t0\t9\t1\t-\t0\tX\tY\n", "relayout\t0\t-\t1\t-\t2\tX\tY\n",
                                      "relayout\t0\t-\t1\t-\t0\tX\n"};
    for (size_t i = 0; i < BZ_ARRAY_LEN(bad); i++) {
        char name[32], path[512], args[600];
        snprintf(name, sizeof(name), "relayout_bad%zu", i);
        assert_int_equal(test_sh("mkdir -p '%s/%s' && cp '%s/manifest.tsv' '%s/%s/' && printf '%%s' '%s' >> '%s/%s/manifest.tsv'",
                                 dir, name, dir, dir, name, bad[i], dir, name), 0);
        snprintf(path, sizeof(path), "%s/%s.err", dir, name);
        snprintf(args, sizeof(args), "ingest '%s/%s/manifest.tsv'", dir, name);
        db_file = "relayout_bad.db";
        assert_int_not_equal(run_agg(args, out, path), 0);
        char *text = slurp(path);
        assert_non_null(strstr(text, "relayout line"));
        free(text);
    }
    db_file = "t.db";
}

/* A group whose first member's value is read beyond it (an add_layernorm group that keeps its
 * sum, a pre-LN transformer's residual stream): model "pre", X (Add) -> L (LayerNorm) -> M
 * (Gemm), and X -> P (Gemm); {X, L} one group. On D5 at f32: X 10, L 20, the group 12, M 30,
 * P 50. Sequential 110; parallel X + max(L + M, P) = 60; fused 12 + 30 + 50 = 92; fused
 * parallel: the sum exists once the group's kernel has run, so 12 + max(30, 50) = 62 (the
 * group's time on L alone would let P start at 0: 50). On D6, with no fused row, the members
 * run one by one: fused parallel 60, as unfused (the group as one node would give 80).
 * Model "cyc": X -> S (a Shape, free) -> L, X -> L, L -> M, {X, L} one group: taken as one
 * node the group would close a cycle through S, so its members stay nodes of their own: 12 +
 * 30 = 42 (a cycle would leave out L and M: 0). */
static void test_group_kept_sum(void **state)
{
    (void)state;
    struct bz_buf b;
    bz_buf_init(&b);
    bz_buf_puts(&b, header);
    static const char *const rows[][2] = {{"LX", "10"}, {"LL", "20"}, {"LXL", "12"}, {"LM", "30"}, {"LP", "50"}};
    for (size_t i = 0; i < BZ_ARRAY_LEN(rows); i++) {
        row(&b, "D5", rows[i][0], "k", "f32", "ok", atof(rows[i][1]), "");
        if (strcmp(rows[i][0], "LXL"))
            row(&b, "D6", rows[i][0], "k", "f32", "ok", atof(rows[i][1]), "");
    }
    static const char extra[] = "layer\tLX\tnode\tAdd\tadd_x\t1\t{}\n"
                                "layer\tLL\tnode\tLayerNormalization\tln_l\t1\t{}\n"
                                "layer\tLXL\tfused\tAdd+LayerNormalization\tadd_layernorm_keep__x\t1\t{}\n"
                                "layer\tLM\tnode\tGemm\tgemm_m\t1\t{}\n"
                                "layer\tLP\tnode\tGemm\tgemm_p\t1\t{}\n"
                                "run\t1\tpre\t1\tpre.onnx\t4\n"
                                "group\t1\t0\tadd_layernorm\tLXL\t0,1\n"
                                "node\t1\t0\tAdd\tcompute\tLX\t0\t-\tX\n"
                                "node\t1\t1\tLayerNormalization\tcompute\tLL\t0\t0\tL\n"
                                "node\t1\t2\tGemm\tcompute\tLM\t-\t1\tM\n"
                                "node\t1\t3\tGemm\tcompute\tLP\t-\t0\tP\n"
                                "run\t2\tcyc\t1\tcyc.onnx\t4\n"
                                "group\t2\t0\tadd_layernorm\tLXL\t0,2\n"
                                "node\t2\t0\tAdd\tcompute\tLX\t0\t-\tX\n"
                                "node\t2\t1\tShape\tfree\t-\t-\t0\tS\n"
                                "node\t2\t2\tLayerNormalization\tcompute\tLL\t0\t0,1\tL\n"
                                "node\t2\t3\tGemm\tcompute\tLM\t-\t2\tM\n";
    char out[512], err[512];
    ingest_rows_with("kept_sum", extra, &b, out, err);
    json_t *j = report("--model pre --report bound");
    json_t *r = find_row(table(j, "bound"), "device", "D5", "type", "f32");
    assert_float_equal(num(r, "sequential"), 110, 1e-9);
    assert_float_equal(num(r, "parallel"), 60, 1e-9);
    assert_float_equal(num(r, "fused"), 92, 1e-9);
    assert_float_equal(num(r, "fused parallel"), 62, 1e-9);
    r = find_row(table(j, "bound"), "device", "D6", "type", "f32");
    assert_float_equal(num(r, "fused"), 110, 1e-9);
    assert_float_equal(num(r, "fused parallel"), 60, 1e-9);
    json_decref(j);
    j = report("--model cyc --report bound");
    r = find_row(table(j, "bound"), "device", "D5", "type", "f32");
    assert_float_equal(num(r, "fused"), 42, 1e-9);
    assert_float_equal(num(r, "fused parallel"), 42, 1e-9);
    json_decref(j);
    db_file = "t.db";
}

/* A group's part (the manifest's part line): model "sw", Conv X -> Sigmoid S -> Mul M(X, S) ->
 * Gemm G, {X, S, M} a conv_act group LCA whose part {S, M} is the silu layer LSI. D7: no fused
 * row, so the members, the part at its silu time: 20 + 4, then G 10: fused 34 (41 without the
 * part). D8: the fused row 22 wins: 32. D9: the silu row 12 is slower than S and M (5 + 6): 41.
 * D10: S and M have no row, the part 4 and the fused 30: the members are known through the part,
 * 20 + 4 beats 30: 34.
 * Model "sw2", Conv X -> BatchNormalization B -> Sigmoid S -> Mul M -> Gemm G, {X, B, S, M} a
 * conv_bn_act group with two parts, {X, B} the conv_bn layer LCB and {S, M} LSI; D11, no fused
 * row: 21 + 4, then G: 35 (49 without the parts); the manifest again with only the silu part:
 * 20 + 8 + 4 + 10 = 42.
 * The same manifest without its part lines, ingested again, drops the parts (D7 41); a part line
 * for a group no group line defined is a bad line, the manifest not ingested. */
static void test_group_part(void **state)
{
    (void)state;
    struct bz_buf b;
    bz_buf_init(&b);
    bz_buf_puts(&b, header);
    static const char *const devs[] = {"D7", "D8", "D9"};
    for (int d = 0; d < 3; d++) {
        row(&b, devs[d], "LCX", "k", "f32", "ok", 20, "");
        row(&b, devs[d], "LSG", "k", "f32", "ok", 5, "");
        row(&b, devs[d], "LMU", "k", "f32", "ok", 6, "");
        row(&b, devs[d], "LGM", "k", "f32", "ok", 10, "");
    }
    row(&b, "D7", "LSI", "k", "f32", "ok", 4, "");
    row(&b, "D8", "LSI", "k", "f32", "ok", 4, "");
    row(&b, "D8", "LCA", "k", "f32", "ok", 22, "");
    row(&b, "D9", "LSI", "k", "f32", "ok", 12, "");
    row(&b, "D10", "LCX", "k", "f32", "ok", 20, "");
    row(&b, "D10", "LGM", "k", "f32", "ok", 10, "");
    row(&b, "D10", "LSI", "k", "f32", "ok", 4, "");
    row(&b, "D10", "LCA", "k", "f32", "ok", 30, "");
    static const char *const sw2[][2] = {{"LCX", "20"}, {"LBN", "8"}, {"LSG", "5"}, {"LMU", "6"},
                                         {"LGM", "10"}, {"LCB", "21"}, {"LSI", "4"}};
    for (size_t i = 0; i < BZ_ARRAY_LEN(sw2); i++)
        row(&b, "D11", sw2[i][0], "k", "f32", "ok", atof(sw2[i][1]), "");
    static const char extra[] = "layer\tLCX\tnode\tConv\tconv_x\t1\t{}\n"
                                "layer\tLSG\tnode\tSigmoid\tsigmoid_s\t1\t{}\n"
                                "layer\tLMU\tnode\tMul\tmul_m\t1\t{}\n"
                                "layer\tLGM\tnode\tGemm\tgemm_g\t1\t{}\n"
                                "layer\tLCA\tfused\tConv+Sigmoid+Mul\tconv_act__x\t1\t{}\n"
                                "layer\tLSI\tfused\tSigmoid+Mul\tsilu__s\t1\t{}\n"
                                "run\t1\tsw\t1\tsw.onnx\t4\n"
                                "group\t1\t0\tconv_act\tLCA\t0,1,2\n"
                                "part\t1\t0\tsilu\tLSI\t1,2\n"
                                "node\t1\t0\tConv\tcompute\tLCX\t0\t-\tX\n"
                                "node\t1\t1\tSigmoid\tcompute\tLSG\t0\t0\tS\n"
                                "node\t1\t2\tMul\tcompute\tLMU\t0\t0,1\tM\n"
                                "node\t1\t3\tGemm\tcompute\tLGM\t-\t2\tG\n"
                                "layer\tLBN\tnode\tBatchNormalization\tbn_b\t1\t{}\n"
                                "layer\tLCB\tfused\tConv+BatchNormalization\tconv_bn__x\t1\t{}\n"
                                "layer\tLCBA\tfused\tConv+BatchNormalization+Sigmoid+Mul\tconv_bn_act__x\t1\t{}\n"
                                "run\t2\tsw2\t1\tsw2.onnx\t5\n"
                                "group\t2\t0\tconv_bn_act\tLCBA\t0,1,2,3\n"
                                "part\t2\t0\tconv_bn\tLCB\t0,1\n"
                                "part\t2\t0\tsilu\tLSI\t2,3\n"
                                "node\t2\t0\tConv\tcompute\tLCX\t0\t-\tX\n"
                                "node\t2\t1\tBatchNormalization\tcompute\tLBN\t0\t0\tB\n"
                                "node\t2\t2\tSigmoid\tcompute\tLSG\t0\t1\tS\n"
                                "node\t2\t3\tMul\tcompute\tLMU\t0\t1,2\tM\n"
                                "node\t2\t4\tGemm\tcompute\tLGM\t-\t3\tG\n";
    char out[512], err[512];
    ingest_rows_with("part", extra, &b, out, err);
    json_t *j = report("--model sw --report bound");
    static const double want[] = {34, 32, 41};
    for (int d = 0; d < 3; d++) {
        json_t *r = find_row(table(j, "bound"), "device", devs[d], "type", "f32");
        assert_float_equal(num(r, "sequential"), 41, 1e-9);
        assert_float_equal(num(r, "fused"), want[d], 1e-9);
        assert_float_equal(num(r, "fused parallel"), want[d], 1e-9);
    }
    assert_float_equal(num(find_row(table(j, "bound"), "device", "D10", "type", "f32"), "fused"), 34, 1e-9);
    json_decref(j);
    j = report("--model sw2 --report bound,fusion-groups");
    json_t *r2 = find_row(table(j, "bound"), "device", "D11", "type", "f32");
    assert_float_equal(num(r2, "sequential"), 49, 1e-9);
    assert_float_equal(num(r2, "fused"), 35, 1e-9);
    assert_float_equal(num(r2, "fused parallel"), 35, 1e-9);
    /* fusion-groups: the members 20 + 8 + 5 + 6, no fused row on D11; the bound takes the two
     * parts, conv_bn 21 and silu 4 */
    json_t *g2 = find_row(table(j, "fusion-groups"), "device", "D11", "type", "f32");
    assert_float_equal(num(g2, "members"), 39, 1e-9);
    assert_true(json_is_null(json_object_get(g2, "fused")) || !json_object_get(g2, "fused"));
    assert_float_equal(num(g2, "bound"), 25, 1e-9);
    assert_string_equal(json_string_value(json_object_get(g2, "bound as")), "members (parts fused)");
    json_decref(j);
    /* a database whose parts table has no idx (the form of its first day) gets it again, empty
     * until the manifest is ingested again */
    const char *py = test_env("PYTHON", "python3");
    assert_int_equal(test_sh("cp '%s/part.db' '%s/old.db' && %s -c \"import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); "
                             "c.executescript('DROP TABLE fpart; CREATE TABLE fpart(run INTEGER NOT NULL, grp INTEGER NOT NULL, "
                             "pattern TEXT, layer TEXT, members TEXT, PRIMARY KEY(run, grp));'); c.commit()\" '%s/old.db'",
                             dir, dir, py, dir),
                     0);
    db_file = "old.db";
    j = report("--model sw2 --report bound");
    assert_float_equal(num(find_row(table(j, "bound"), "device", "D11", "type", "f32"), "fused"), 49, 1e-9);
    json_decref(j);
    char again_args[600];
    snprintf(again_args, sizeof(again_args), "ingest '%s/part/manifest.tsv'", dir);
    assert_int_equal(run_agg(again_args, out, err), 0);
    j = report("--model sw2 --report bound");
    assert_float_equal(num(find_row(table(j, "bound"), "device", "D11", "type", "f32"), "fused"), 35, 1e-9);
    json_decref(j);
    db_file = "part.db";
    /* part lines that are no parts: a node outside the group, a node in two parts */
    static const char *const bad[][2] = {
        {"part\\t2\\t0\\tsilu\\tLSI\\t3,4\\n", "a node that is not a member of group 0"},
        {"part\\t2\\t0\\tsilu\\tLSI\\t1,2\\n", "or in another part of it"}};
    for (size_t k = 0; k < BZ_ARRAY_LEN(bad); k++) {
        assert_int_equal(test_sh("cp '%s/part/manifest.tsv' '%s/bad.tsv' && printf '%s' >> '%s/bad.tsv'", dir, dir, bad[k][0], dir),
                         0);
        char bad_args[600];
        snprintf(bad_args, sizeof(bad_args), "ingest '%s/bad.tsv'", dir);
        assert_int_not_equal(run_agg(bad_args, out, err), 0);
        assert_int_equal(test_sh("grep -q '%s' '%s'", bad[k][1], err), 0);
    }
    /* part lines dropped (sed), the manifest ingested again: the fused bound of one model */
    static const struct {
        const char *drop, *model, *dev;
        double fused;
    } again[] = {{"/^part\t2\t0\tconv_bn/d", "sw2", "D11", 42}, {"/^part/d", "sw", "D7", 41}};
    char args[600];
    snprintf(args, sizeof(args), "ingest '%s/part/manifest.tsv'", dir);
    for (size_t k = 0; k < BZ_ARRAY_LEN(again); k++) {
        char sel[64];
        assert_int_equal(test_sh("sed -i '%s' '%s/part/manifest.tsv'", again[k].drop, dir), 0);
        assert_int_equal(run_agg(args, out, err), 0);
        snprintf(sel, sizeof(sel), "--model %s --report bound", again[k].model);
        j = report(sel);
        assert_float_equal(num(find_row(table(j, "bound"), "device", again[k].dev, "type", "f32"), "fused"), again[k].fused,
                           1e-9);
        json_decref(j);
    }
    assert_int_equal(test_sh("printf 'part\\t1\\t5\\tsilu\\tLSI\\t1,2\\n' >> '%s/part/manifest.tsv'", dir), 0);
    assert_int_not_equal(run_agg(args, out, err), 0);
    assert_int_equal(test_sh("grep -q 'part line for group 5 of run 1, which no group line defined before' '%s'", err), 0);
    db_file = "t.db";
}

/* The engines report: the toy's LC (Conv) with two legacy algorithms and two engine
 * configurations, LH (Gemm) with cuBLAS and cuBLASLt, on one GPU at f16+tensor_op. LC:
 * implicit_gemm 50 us vs nhwc_heurA_0 30 us (its note's configuration and CUPTI kernels kept,
 * the tags after them not): 0.6, gain 20; the fused LAB: implicit_gemm 30 vs heurA_0 (NCHW) 24:
 * gain 6; LH: default_tensor_op 20 vs lt0 15 and ltnk0 (B prepacked) 12: gain 8. A
 * database of schema 2 (no configuration or kernel time column) is brought up to schema 4, its
 * rows kept and their kernel times found again. */
static void test_engines_report(void **state)
{
    (void)state;
    struct bz_buf b;
    bz_buf_init(&b);
    bz_buf_puts(&b, header2);
    static const struct {
        const char *layer, *algo;
        double us;
        const char *note;
    } rows[] = {
        {"LC", "implicit_gemm", 50, "kernels=1; kernel_names=implicit_convolve_sgemm"},
        {"LC", "winograd", 70, ""},
        {"LC", "nhwc_heurA_0", 30,
         "engine 7, heuristic mode A rank 0 of 3: numerical notes tensor_core; knobs 1=0,2=4; workspace 0 bytes; "
         "kernels=1; kernel_names=sm90_xmma_fprop"},
        {"LC", "nhwc_heurA_1", 35, "engine 9, heuristic mode A rank 1 of 3: numerical notes tensor_core; knobs none"},
        {"LH", "default_tensor_op", 20, ""},
        {"LAB", "implicit_gemm", 30, ""},
        {"LAB", "heurA_0", 24, "engine 3, heuristic mode A rank 0 of 2: numerical notes tensor_core; knobs none"},
        {"LH", "lt0", 15,
         "cuBLASLt heuristic rank 0 of 8: algo id 21, tile 20, stages 8; verify: verified against the host reference "
         "(double): 4 of 4 elements; kernels=1; kernel_names=sm90_gemm"},
        {"LH", "ltnk0", 12, "cuBLASLt heuristic rank 0 of 6: algo id 66, tile 18, stages 30; kernels=1; kernel_names=sm90_gemm_tn"},
    };
    for (size_t i = 0; i < BZ_ARRAY_LEN(rows); i++)
        bz_buf_printf(&b, "2,%s-f16tc-%s,%s,n,op,cuda,%s,f16,tensor_op,ok,20,%g,%g,%g,%g,%g,0,0,1,1,0,100,GPU E,9.0,132,"
                          "libG,h,2026-11-24T00:00:00Z,blocking,%g,0,\"%s\"\n",
                      rows[i].layer, rows[i].algo, rows[i].layer, rows[i].algo, rows[i].us, rows[i].us, rows[i].us,
                      rows[i].us, rows[i].us, rows[i].us, rows[i].note);
    char out[512], err[512];
    ingest_rows("engines", &b, out, err);
    for (int pass = 0; pass < 2; pass++) {
        json_t *j = report("--report engines --device 'GPU E'");
        json_t *t = table(j, "engines");
        json_t *lc = find_row(t, "layer", "LC", NULL, NULL), *lh = find_row(t, "layer", "LH", NULL, NULL);
        assert_string_equal(json_string_value(json_object_get(lc, "other")), "implicit_gemm");
        assert_float_equal(num(lc, "other time"), 50, 1e-9);
        assert_string_equal(json_string_value(json_object_get(lc, "engine")), "nhwc_heurA_0");
        assert_float_equal(num(lc, "engine/other"), 0.6, 1e-9);
        assert_float_equal(num(lc, "gain"), 20, 1e-9);
        assert_string_equal(json_string_value(json_object_get(lc, "other kernels")), "implicit_convolve_sgemm");
        assert_string_equal(json_string_value(json_object_get(lc, "engine kernels")), "sm90_xmma_fprop");
        assert_string_equal(json_string_value(json_object_get(lh, "engine")), "ltnk0");
        assert_string_equal(json_string_value(json_object_get(lh, "other")), "default_tensor_op");
        assert_float_equal(num(lh, "gain"), 8, 1e-9);
        const char *cfg = json_string_value(json_object_get(lc, "engine config"));
        if (pass == 0) {
            assert_string_equal(cfg, "engine 7, heuristic mode A rank 0 of 3: numerical notes tensor_core; knobs 1=0,2=4; "
                                     "workspace 0 bytes");
            assert_string_equal(json_string_value(json_object_get(lh, "engine config")),
                                "cuBLASLt heuristic rank 0 of 6: algo id 66, tile 18, stages 30");
        } else {
            assert_true(!cfg || !*cfg); /* rows summarized under schema 2 have none */
        }
        /* the fusion group's layer (the conv_act group {A, B}) too */
        json_t *lab = find_row(t, "layer", "LAB", NULL, NULL);
        assert_string_equal(json_string_value(json_object_get(lab, "engine")), "heurA_0"); /* NCHW */
        assert_float_equal(num(lab, "gain"), 6, 1e-9);
        assert_int_equal(json_array_size(t), 3);
        json_decref(j);
        if (pass == 0) {
            /* back to schema 2: the configuration column gone */
            char path[512];
            snprintf(path, sizeof(path), "%s/engines.db", dir);
            sqlite3 *db;
            assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
            assert_int_equal(sqlite3_exec(db, "ALTER TABLE best DROP COLUMN config; ALTER TABLE best DROP COLUMN kernel_us;"
                                              " UPDATE meta SET value='2' WHERE key='schema'",
                                          NULL, NULL, NULL),
                             SQLITE_OK);
            sqlite3_close(db);
        }
    }
    char path[512];
    snprintf(path, sizeof(path), "%s/engines.db", dir);
    sqlite3 *db;
    assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    char *v = query_text(db, "SELECT value FROM meta WHERE key='schema'");
    assert_string_equal(v, "4|\n");
    free(v);
    /* the upgrade gave each best row its median's kernel_us (these rows' are their medians) */
    v = query_text(db, "SELECT count(*), sum(kernel_us = median_us) FROM best");
    assert_string_equal(v, "9|9|\n");
    free(v);
    sqlite3_close(db);
    db_file = "t.db";
}

/* An fp8 bound: the toy's LH (Gemm) has an f8 row (10 us; a bf16 one at 5 does not stand in: it
 * is another storage), LC (Conv) only bfloat16 ones (40 us on Tensor Cores, 30 without): at
 * f8+tensor_op LH counts its fp8 time and LC the faster of its bfloat16 ones, 40 us over the two
 * layers with results */
static void test_f8_bound(void **state)
{
    (void)state;
    struct bz_buf b;
    bz_buf_init(&b);
    bz_buf_puts(&b, header2);
    bz_buf_puts(&b, "2,LH-f8-lt0,LH,n,op,cuda,lt0,f8,tensor_op,ok,20,10,10,10,10,10,0,0,1,1,0,100,GPU F,9.0,132,libG,h,"
                    "2026-11-24T00:00:00Z,blocking,10,0,\n"
                    "2,LC-bf16-a,LC,n,op,cuda,a,bf16,tensor_op,ok,20,40,40,40,40,40,0,0,1,1,0,100,GPU F,9.0,132,libG,h,"
                    "2026-11-24T00:00:00Z,blocking,40,0,\n"
                    /* LH in bf16, faster than its fp8 GEMM: another storage, no stand-in where f8 has a row */
                    "2,LH-bf16-a,LH,n,op,cuda,a,bf16,tensor_op,ok,20,5,5,5,5,5,0,0,1,1,0,100,GPU F,9.0,132,libG,h,"
                    "2026-11-24T00:00:00Z,blocking,5,0,\n"
                    /* LC in bf16 without Tensor Cores at 30: within the stand-in's storage, the faster */
                    "2,LC-bf16-b,LC,n,op,cuda,b,bf16,default,ok,20,30,30,30,30,30,0,0,1,1,0,100,GPU F,9.0,132,libG,h,"
                    "2026-11-24T00:00:00Z,blocking,30,0,\n");
    char out[512], err[512];
    ingest_rows("f8", &b, out, err);
    json_t *j = report("--report bound --device 'GPU F' --type 'f8*'");
    json_t *r = find_row(table(j, "bound"), "type", "f8+tensor_op", NULL, NULL);
    assert_float_equal(num(r, "sequential"), 40, 1e-9);
    assert_float_equal(num(r, "covered"), 2, 1e-9);
    json_decref(j);
    db_file = "t.db";
}

/* A model is bounded at a precision where that is its layers' own type (most of them) or gen
 * wrote some layer in it beside its own type, not where another model's rows bring the
 * precision: on GPU Y, m16 (f16 layers, also written in f32) has f16 and f32 plans, not the
 * bf16 one b16 brings; m32 (two f32 Convs, a Cast to f16 with its f16 row) only f32; b16 only
 * bf16. Each refused plan would take its layers' own-type rows (agg_cands_get's fallback). */
static void test_plans_of_a_models_types(void **state)
{
    (void)state;
    static const char extra[] =
        "layer\tP16\tnode\tConv\tp16\t1\t{\"outputs\":[{\"dtype\":\"FLOAT16\"}]}\n"
        "layer\tQ16\tnode\tRelu\tq16\t1\t{\"outputs\":[{\"dtype\":\"FLOAT16\"}]}\n"
        "layer\tP32\tnode\tConv\tp32\t1\t{\"outputs\":[{\"dtype\":\"FLOAT\"}]}\n"
        "layer\tK16\tnode\tCast\tk16\t1\t{\"outputs\":[{\"dtype\":\"FLOAT16\"}]}\n"
        "layer\tB16\tnode\tRelu\tb16\t1\t{\"outputs\":[{\"dtype\":\"BFLOAT16\"}]}\n"
        "run\t1\tm16\t1\tm16.onnx\t2\n"
        "node\t1\t0\tConv\tcompute\tP16\t-\t-\tp\n"
        "node\t1\t1\tRelu\tcompute\tQ16\t-\t0\tq\n"
        "run\t2\tm32\t1\tm32.onnx\t3\n"
        "node\t2\t0\tConv\tcompute\tP32\t-\t-\tp\n"
        "node\t2\t1\tConv\tcompute\tP32\t-\t0\tp2\n"
        "node\t2\t2\tCast\tcompute\tK16\t-\t1\tk\n"
        "run\t3\tb16\t1\tb16.onnx\t1\n"
        "node\t3\t0\tRelu\tcompute\tB16\t-\t-\tb\n";
    struct bz_buf b;
    bz_buf_init(&b);
    bz_buf_puts(&b, header2);
    static const char *const rows[][3] = {{"P16", "f16", "10"}, {"Q16", "f16", "5"}, {"P16", "f32", "20"},
                                          {"P32", "f32", "30"}, {"K16", "f16", "2"}, {"B16", "bf16", "4"}};
    for (size_t i = 0; i < BZ_ARRAY_LEN(rows); i++)
        bz_buf_printf(&b, "2,%s-%s-a,%s,n,op,cuda,a,%s,default,ok,20,%s,%s,%s,%s,%s,0,0,1,1,0,100,GPU Y,9.0,132,libG,h,"
                          "2026-11-24T00:00:00Z,blocking,%s,0,\n",
                      rows[i][0], rows[i][1], rows[i][0], rows[i][1], rows[i][2], rows[i][2], rows[i][2], rows[i][2],
                      rows[i][2], rows[i][2]);
    char out[512], err[512];
    ingest_rows_with("types", extra, &b, out, err);
    json_t *j = report("--report bound --device 'GPU Y'");
    char got[256] = "";
    size_t i;
    json_t *r;
    json_array_foreach(table(j, "bound"), i, r)
    {
        const char *model = json_string_value(json_object_get(r, "model"));
        if (strcmp(model, "toy") != 0)
            snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s %s;", model,
                     json_string_value(json_object_get(r, "type")));
    }
    assert_string_equal(got, "b16 bf16;m16 f32;m16 f16;m32 f32;");
    /* m16's f16 plan: its own rows, 10 + 5 */
    assert_float_equal(num(find_row(table(j, "bound"), "model", "m16", "type", "f16"), "sequential"), 15, 1e-9);
    json_decref(j);
    db_file = "t.db";
}

/* A tf32 plan runs each layer at the faster of its tf32 and f32 rows (TF32 allowed does not
 * force it): on GPU T, LA tf32 60 and f32 50, LC tf32 20 and f32 50: the tf32 bound is 50 + 20
 * = 70, not 60 + 20; the f32 bound stays 100 */
static void test_tf32_takes_the_faster(void **state)
{
    (void)state;
    struct bz_buf b;
    bz_buf_init(&b);
    bz_buf_puts(&b, header2);
    static const char *const rows[][4] = {
        {"LA", "tf32", "tensor_op", "60"}, {"LA", "f32", "default", "50"}, {"LC", "tf32", "tensor_op", "20"},
        {"LC", "f32", "default", "50"}};
    for (size_t i = 0; i < BZ_ARRAY_LEN(rows); i++)
        bz_buf_printf(&b, "2,%s-%s-a,%s,n,op,cuda,a,%s,%s,ok,20,%s,%s,%s,%s,%s,0,0,1,1,0,100,GPU T,9.0,132,libG,h,"
                          "2026-11-24T00:00:00Z,blocking,%s,0,\n",
                      rows[i][0], rows[i][1], rows[i][0], rows[i][1], rows[i][2], rows[i][3], rows[i][3], rows[i][3],
                      rows[i][3], rows[i][3], rows[i][3]);
    char out[512], err[512];
    ingest_rows("tf32min", &b, out, err);
    json_t *j = report("--report bound --device 'GPU T' --model toy");
    json_t *r = find_row(table(j, "bound"), "type", "tf32+tensor_op", NULL, NULL);
    assert_float_equal(num(r, "sequential"), 70, 1e-9);
    assert_float_equal(num(r, "covered"), 2, 1e-9);
    r = find_row(table(j, "bound"), "type", "f32", NULL, NULL);
    assert_float_equal(num(r, "sequential"), 100, 1e-9);
    json_decref(j);
    db_file = "t.db";
}

/* The roofline and the prediction, worked out by hand on two GPUs of the spec table:
 * H100-SXM (67 TFLOP/s f32, 3350 GB/s, 1980 MHz) and H200 (67 TFLOP/s, 4800 GB/s, 1980 MHz).
 * On the H100, at f32:
 *   LA 200 us, 6.7e9 flop, 3.35e6 bytes: datasheet roof max(100, 1) = 100 us (50% achieved);
 *   LB 125 us, no flop, 3.35e8 bytes:    datasheet roof 100 us (80%), memory bound;
 *   LC  50 us, 6.7e9 flop, 0 bytes:      roof 100 us: faster than the datasheet, flagged;
 *   LD  10 us, no flop, 1e6 bytes:       its data fit in the L2: no memory term, roof 0 (the
 *                                        datasheet's), 2 us measured (the launch floor).
 * Calibration rows: a GEMM of 6.7e11 flop in 12500 us (53.6 TFLOP/s), a copy of 2.68e9 bytes
 * in 1000 us (2680 GB/s), an empty kernel of 2 us (a kernel row: it joins the library target).
 * Measured roofs: LA max(6.7e9 / 53.6e12 = 125 us, 1.25 us, 2 us) = 125 us (62.5%);
 *   LB 3.35e8 / 2.68e12 = 125 us (100%).
 * Prediction on the H200 (datasheets on both sides: the H200 has no calibration rows), launch
 * floor 2 us kept:
 *   LB: gamma 1 (no flop); floor 2, roof part min(123, 100) = 100 x 3350/4800, rest 23 x 1
 *       (clock ratio): 2 + 69.7917 + 23 = 94.7917 us;
 *   LA: its 3.35 MB fit in the 50 MB L2 of both: gamma 0 (memory plays no part), the roof part
 *       100 x (67/67) = 100, the rest 98 x 1: 2 + 100 + 98 = 200 us.
 * Measured on the H200: LA 190 us, LB 100 us: errors 5.263% and 5.208%; LA's algorithm b, 150 us
 * on the H200 alone, is no prediction's: the errors pair algorithms measured on both. The H200
 * covers 2 of the 4 layers: its sum (290) is no bound, so no bound error; the sums on both:
 * 294.7917 predicted, 290 measured.
 * The kernel clock (no launch floor there): LB's kernel_us 100 on the H100 (its median 125):
 *   gamma 1, the roof part min(100, 100) x 3350/4800 = 69.7917, nothing left; LA's 200 -> 200
 *   (as its median's, all roof and rest); LC's 50 -> 50, LD's 10 -> 10 (all rest, clock ratio 1).
 *   H200: LA 190, LB 80: errors 5.263% and 12.760%; on both 269.7917 against 270. */
static void test_roofline_and_prediction(void **state)
{
    (void)state;
    struct bz_buf b;
    bz_buf_init(&b);
    bz_buf_puts(&b, header2);
    const char *h100 = "NVIDIA H100 80GB HBM3", *h200 = "NVIDIA H200";
    gpu_row(&b, h100, "LA", "libG", 200, 6.7e9, 3.35e6, "");
    gpu_row_k(&b, h100, "LB", "a", "libG", 125, 100, 0, 3.35e8, "");
    gpu_row(&b, h100, "LC", "libG", 50, 6.7e9, 0, "");
    gpu_row(&b, h100, "LD", "libG", 10, 0, 1e6, "");
    gpu_row(&b, h100, "calib-gpu-gemm", "libG", 12500, 6.7e11, 3 * 4.0 * 8192 * 8192, "");
    gpu_row(&b, h100, "calib-gpu-copy", "libG", 1000, 0, 2.68e9, "");
    gpu_row(&b, h100, "calib-gpu-launch", "benanza CUDA kernels", 2, 0, 0, "");
    gpu_row(&b, h200, "LA", "libG", 190, 6.7e9, 3.35e6, "");
    gpu_row_k(&b, h200, "LB", "a", "libG", 100, 80, 0, 3.35e8, "");
    gpu_row_k(&b, h200, "LA", "b", "libG", 150, 150, 6.7e9, 3.35e6, "");
    char out[512], err[512], args[600];
    ingest_rows("roof", &b, out, err);

    json_t *j = report("--report roofline,roofline-models --device 'NVIDIA H100*'");
    json_t *rows = table(j, "roofline");
    json_t *la = find_row(rows, "layer", "LA", NULL, NULL), *lb = find_row(rows, "layer", "LB", NULL, NULL);
    json_t *lc = find_row(rows, "layer", "LC", NULL, NULL);
    assert_true(fabs(num(la, "roof datasheet") - 100) < 1e-6);
    assert_true(fabs(num(la, "achieved datasheet") - 50) < 1e-6);
    assert_true(fabs(num(la, "roof measured") - 125) < 1e-6);
    assert_true(fabs(num(la, "achieved measured") - 62.5) < 1e-6);
    assert_string_equal(json_string_value(json_object_get(la, "bound")), "compute");
    assert_string_equal(json_string_value(json_object_get(la, "flag")), "");
    assert_true(fabs(num(la, "flop/byte") - 2000) < 1e-6);
    assert_true(fabs(num(lb, "roof datasheet") - 100) < 1e-6);
    assert_true(fabs(num(lb, "roof measured") - 125) < 1e-6);
    assert_string_equal(json_string_value(json_object_get(lb, "bound")), "memory");
    assert_string_equal(json_string_value(json_object_get(lc, "flag")), "faster than datasheet");
    json_t *ld = find_row(rows, "layer", "LD", NULL, NULL);
    assert_true(fabs(num(ld, "roof datasheet")) < 1e-9);
    assert_true(fabs(num(ld, "roof measured") - 2) < 1e-9);
    assert_string_equal(json_string_value(json_object_get(ld, "bound")), "launch");
    assert_string_equal(json_string_value(json_object_get(ld, "flag")), "");
    json_t *m = find_row(table(j, "roofline-models"), "model", "toy", NULL, NULL);
    assert_true(fabs(num(m, "sequential") - 385) < 1e-6);
    assert_true(fabs(num(m, "floor datasheet") - 300) < 1e-6);
    assert_true(fabs(num(m, "floor measured") - (125 + 125 + 125 + 2)) < 1e-6); /* LC: 6.7e9 / 53.6e12 */
    assert_true(fabs(num(m, "faster than datasheet") - 1) < 1e-9);
    assert_true(fabs(num(m, "peak measured") - 53600) < 1e-6);
    assert_true(fabs(num(m, "GB/s measured") - 2680) < 1e-6);
    assert_true(fabs(num(m, "launch floor") - 2) < 1e-9);
    json_decref(j);

    j = report("--report predict,prediction --to H200 --from 'NVIDIA H100*'");
    json_t *p = find_row(table(j, "prediction"), "model", "toy", NULL, NULL);
    assert_true(fabs(num(p, "layers") - 2) < 1e-9);
    double ea = 100 * (200 - 190) / 190.0, eb = 100 * (100 - 94.7917) / 100;
    assert_true(fabs(num(p, "layer error mean") - (ea + eb) / 2) < 1e-2);
    assert_true(fabs(num(p, "layer error p90") - fmax(ea, eb)) < 1e-2);
    assert_true(fabs(num(p, "nodes on both") - 2) < 1e-9);
    assert_true(fabs(num(p, "predicted on both") - 294.7917) < 1e-2);
    assert_true(fabs(num(p, "measured on both") - 290) < 1e-6);
    assert_true(fabs(num(p, "error on both") - 100 * 4.7917 / 290) < 1e-2);
    double kb = 100 * (80 - 69.7917) / 80;
    assert_true(fabs(num(p, "kernel layers") - 2) < 1e-9);
    assert_true(fabs(num(p, "kernel layer error median") - (ea + kb) / 2) < 1e-2);
    assert_true(fabs(num(p, "kernel predicted on both") - 269.7917) < 1e-2);
    assert_true(fabs(num(p, "kernel measured on both") - 270) < 1e-6);
    assert_true(json_is_null(json_object_get(p, "bound error")) || !json_object_get(p, "bound error"));
    json_t *pr = find_row(table(j, "predict"), "model", "toy", NULL, NULL);
    /* LC predicted too: gamma 0 (no bytes), 2 + 48 (the roof part, min(48, 100)) x 1; LD 2 + 0
     * (no roof in the cache) + 8 x 1 */
    assert_true(fabs(num(pr, "predicted sequential") - (200 + 94.7917 + 50 + 10)) < 1e-2);
    assert_true(fabs(num(pr, "predicted kernels fused") - (200 + 69.7917 + 50 + 10)) < 1e-2);
    /* the H200's two layers of four are no bound to hold the prediction to */
    assert_true(json_is_null(json_object_get(pr, "measured sequential")) || !json_object_get(pr, "measured sequential"));
    json_decref(j);
    /* with every layer measured there, they are */
    bz_buf_init(&b);
    bz_buf_puts(&b, header2);
    gpu_row(&b, h200, "LC", "libG", 40, 6.7e9, 0, "");
    gpu_row(&b, h200, "LD", "libG", 10, 0, 1e6, "");
    ingest_rows("roof2", &b, out, err);
    snprintf(args, sizeof(args), "ingest '%s/roof'", dir);
    assert_int_equal(run_agg(args, out, err), 0);
    j = report("--report predict,prediction --to H200 --from 'NVIDIA H100*'");
    pr = find_row(table(j, "predict"), "model", "toy", NULL, NULL);
    assert_true(fabs(num(pr, "measured sequential") - (150 + 100 + 40 + 10)) < 1e-6);
    p = find_row(table(j, "prediction"), "model", "toy", NULL, NULL);
    assert_true(fabs(num(p, "nodes on both") - 4) < 1e-9);
    assert_true(fabs(num(p, "bound error") - 100 * (354.7917 - 300) / 300) < 1e-2);
    json_decref(j);
    /* errors: a GPU the table lacks (2), a destination nothing can be predicted from (4) */
    assert_int_equal(run_agg("report --to Z9000", out, err), 2);
    char *e = slurp(err);
    assert_non_null(strstr(e, "not a GPU of the spec table"));
    free(e);
    assert_int_equal(run_agg("report --to threads=4", out, err), 4);
    /* the spec table: built in, or a file of one's own (a broken one is a located error) */
    assert_int_equal(run_agg("specs --format csv", out, err), 0);
    e = slurp(out);
    assert_non_null(strstr(e, "H100-SXM,"));
    free(e);
    put_file("specs.tsv", "name\tmatch\tsms\tboost_mhz\tl2_mb\tmem_gbs\tf32\tf16\ttf32\tf16tc\tbf16tc\tfp8\tsource\n"
                          "X1\tX1\t1\t1\t1\tfast\t1\t1\t1\t1\t1\t1\tnone\n");
    snprintf(args, sizeof(args), "specs --specs '%s/specs.tsv'", dir);
    assert_int_equal(run_agg(args, out, err), 2);
    e = slurp(err);
    assert_non_null(strstr(e, "specs.tsv:2: error: column mem_gbs: 'fast' is not a number"));
    free(e);
    db_file = "t.db";
}

/* bench/h100_from_h200.py on the two GPU runs of 2026-11-26 in docs/results (committed with
 * the repository): the prediction pairs their rows (the H100's partial run compared where it
 * ran, no bound error against it), and the estimate covers every computing layer of both
 * models with a kernel-clock bound (what docs/results/h100/prediction-from-h200.md shows) */
static void test_h100_from_h200(void **state)
{
    (void)state;
    if (access("docs/results/h200/2026-11-26/results.csv", R_OK) != 0) {
        print_message("no docs/results/h200/2026-11-26 here: skipped\n");
        skip();
    }
    char out[512];
    snprintf(out, sizeof(out), "%s/h100est.md", dir);
    assert_int_equal(test_sh("'%s' bench/h100_from_h200.py '%s' > '%s'", test_env("BENANZA_PYTHON", "python3"), agg_bin(),
                             out),
                     0);
    char *md = slurp(out);
    assert_non_null(strstr(md, "| library | resnet50 | f32 | 41 |"));
    assert_non_null(strstr(md, "| bert_base-seq128 | tf32+tensor_op | 357 of 357 |"));
    assert_non_null(strstr(md, "| resnet50 | f16+tensor_op | 174 of 174 |"));
    /* every estimated bound has both clocks */
    const char *est = strstr(md, "## 3.");
    assert_non_null(est);
    assert_null(strstr(est, "| - |"));
    free(md);
}

static void cpu_row(struct bz_buf *b, long threads, const char *layer, const char *lib, const char *prec, double us,
                    double flops, double bytes, const char *note)
{
    bz_buf_printf(b, "2,%s-%s-a,%s,n,op,cpu,a,%s,default,ok,20,%g,%g,%g,%g,%g,0,0,%.17g,%.17g,%ld,100,TestCPU,,,%s,h,"
                     "2026-11-24T00:00:00Z,,,0,\"%s\"\n",
                  layer, prec, layer, prec, us, us, us, us, us, flops, bytes, threads, lib, note);
}

/* A CPU from one thread to two, by hand (no cache size in the notes: memory always counts).
 * Calibration: 1 thread: a GEMM of 1e9 flop in 10000 us (100 GFLOP/s; its datasheet arithmetic
 * 100 for every type), a copy of 1e9 bytes in 50000 us (20 GB/s), a launch floor of 1 us;
 * 2 threads: 5000 us (200 GFLOP/s; datasheet 200), 40000 us (25 GB/s), 2 us. No bf16 GEMM
 * ran (a CPU without bf16 instructions): bf16 takes both sides' datasheet peaks, 100 and 200.
 *   LA f32, oneDNN, 101 us, 1e7 flop, no bytes: gamma 0; the floor 1 -> 2, the roof part
 *       min(100, 1e7 / 1e11 = 100 us) x 100/200, nothing left: 2 + 50 = 52 us;
 *   LA bf16, oneDNN, 201 us: 2 + 50 + the rest 100 x 100/200 = 102 us;
 *   LB, our plain C (one thread, rows at threads 1 feeding both thread counts), 30 us in f32
 *       and bf16: it stays 30 us (scaled as oneDNN's would be 2 + 5 + 9.5 = 16.5).
 * Measured at 2 threads: LA 55 and 110 us; the bounds 85 and 140 us, predicted 82 and 132. */
static void test_cpu_thread_prediction(void **state)
{
    (void)state;
    struct bz_buf b;
    bz_buf_init(&b);
    bz_buf_puts(&b, header2);
    const char *dnnl = "oneDNN 9", *plain = "benanza plain C";
    cpu_row(&b, 1, "calib-cpu-gemm", dnnl, "f32", 10000, 1e9, 0, "cpu_peak_gflops=f32:100,bf16:100,f16:100");
    cpu_row(&b, 1, "calib-cpu-copy", dnnl, "f32", 50000, 0, 1e9, "");
    cpu_row(&b, 1, "calib-cpu-launch", dnnl, "f32", 1, 0, 8, "");
    cpu_row(&b, 2, "calib-cpu-gemm", dnnl, "f32", 5000, 1e9, 0, "cpu_peak_gflops=f32:200,bf16:200,f16:200");
    cpu_row(&b, 2, "calib-cpu-copy", dnnl, "f32", 40000, 0, 1e9, "");
    cpu_row(&b, 2, "calib-cpu-launch", dnnl, "f32", 2, 0, 8, "");
    cpu_row(&b, 1, "LA", dnnl, "f32", 101, 1e7, 0, "");
    cpu_row(&b, 1, "LA", dnnl, "bf16", 201, 1e7, 0, "");
    cpu_row(&b, 2, "LA", dnnl, "f32", 55, 1e7, 0, "");
    cpu_row(&b, 2, "LA", dnnl, "bf16", 110, 1e7, 0, "");
    cpu_row(&b, 1, "LB", plain, "f32", 30, 1e6, 0, "");
    cpu_row(&b, 1, "LB", plain, "bf16", 30, 1e6, 0, "");
    char out[512], err[512];
    ingest_rows("cputh", &b, out, err);
    json_t *j = report("--report predict,prediction --to threads=2");
    json_t *rows = table(j, "predict");
    json_t *p32 = find_row(rows, "model", "toy", "type", "f32"), *p16 = find_row(rows, "model", "toy", "type", "bf16");
    assert_non_null(p32);
    assert_non_null(p16);
    assert_true(fabs(num(p32, "predicted sequential") - 82) < 1e-6);
    assert_true(fabs(num(p32, "measured sequential") - 85) < 1e-6);
    assert_true(fabs(num(p16, "predicted sequential") - 132) < 1e-6);
    assert_true(fabs(num(p16, "measured sequential") - 140) < 1e-6);
    json_t *e16 = find_row(table(j, "prediction"), "model", "toy", "type", "bf16");
    assert_true(fabs(num(e16, "bound error") - 100 * 8 / 140.0) < 1e-2);
    json_decref(j);
    db_file = "t.db";
}

/* Plain C rows at the benchmark's thread count (a kernel that splits its work, pl_par_run) feed
 * the library targets of at least that count: LA by oneDNN at 1 and 2 threads (100, 60 us), LB
 * by plain C at 1 and 2 threads (30, 12 us). The 1-thread bound takes LB's 1-thread row alone:
 * 100 + 30; the 2-thread bound the faster of both: 60 + 12. Without a library row (plain C
 * alone), plain C's two thread counts are one target, its LB the faster: 12. */
static void test_cpu_plain_threads(void **state)
{
    (void)state;
    struct bz_buf b;
    bz_buf_init(&b);
    bz_buf_puts(&b, header2);
    const char *dnnl = "oneDNN 9", *plain = "benanza plain C";
    cpu_row(&b, 1, "LA", dnnl, "f32", 100, 1e7, 0, "");
    cpu_row(&b, 2, "LA", dnnl, "f32", 60, 1e7, 0, "");
    cpu_row(&b, 1, "LB", plain, "f32", 30, 1e6, 0, "");
    cpu_row(&b, 2, "LB", plain, "f32", 12, 1e6, 0, "");
    char out[512], err[512];
    ingest_rows("cpupar", &b, out, err);
    json_t *j = report("--report bound");
    json_t *rows = table(j, "bound");
    assert_true(fabs(num(find_row(rows, "device", "TestCPU, oneDNN 9, 1 threads", "type", "f32"), "sequential") - 130) <
                1e-6);
    assert_true(fabs(num(find_row(rows, "device", "TestCPU, oneDNN 9, 2 threads", "type", "f32"), "sequential") - 72) <
                1e-6);
    assert_int_equal(json_array_size(rows), 2);
    json_decref(j);
    bz_buf_init(&b);
    bz_buf_puts(&b, header2);
    cpu_row(&b, 1, "LB", plain, "f32", 30, 1e6, 0, "");
    cpu_row(&b, 2, "LB", plain, "f32", 12, 1e6, 0, "");
    ingest_rows("cpupar-alone", &b, out, err);
    j = report("--report bound");
    rows = table(j, "bound");
    assert_int_equal(json_array_size(rows), 1);
    assert_true(fabs(num(find_row(rows, "device", "TestCPU, benanza plain C", "type", "f32"), "sequential") - 12) < 1e-6);
    json_decref(j);
    db_file = "t.db";
}

void test_agg_group(struct test_totals *tot)
{
    struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bounds_by_hand),
        cmocka_unit_test(test_advice_fusion_precision),
        cmocka_unit_test(test_ingest_idempotent),
        cmocka_unit_test(test_broken_rows),
        cmocka_unit_test(test_formats_and_errors),
        cmocka_unit_test(test_summary_tables),
        cmocka_unit_test(test_gpu_rows),
        cmocka_unit_test(test_hostile_inputs),
        cmocka_unit_test(test_layout_plans),
        cmocka_unit_test(test_layout_changes),
        cmocka_unit_test(test_group_kept_sum),
        cmocka_unit_test(test_group_part),
        cmocka_unit_test(test_engines_report),
        cmocka_unit_test(test_f8_bound),
        cmocka_unit_test(test_plans_of_a_models_types),
        cmocka_unit_test(test_tf32_takes_the_faster),
        cmocka_unit_test(test_roofline_and_prediction),
        cmocka_unit_test(test_cpu_thread_prediction),
        cmocka_unit_test(test_h100_from_h200),
        cmocka_unit_test(test_cpu_plain_threads),
    };
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        tot->failed++;
        return;
    }
    put_file("manifest.tsv", manifest);
    write_results();
    test_group_run(tot, "agg", tests, sizeof(tests) / sizeof(tests[0]));
    char cmd[600];
    snprintf(cmd, sizeof(cmd), getenv("BENANZA_KEEP") ? "true %s" : "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        print_message("could not remove %s\n", dir);
}
