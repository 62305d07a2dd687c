/* agg.h: the aggregator's shared declarations: results database, model data and reports. */
#ifndef BENANZA_AGG_H
#define BENANZA_AGG_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define AGG_VERSION "0.1.0"
#define AGG_DB_SCHEMA 4
/* the parts of a fusion group agg takes (the manifest's part lines; gen writes at most 2) */
#define AGG_MAX_PARTS 4

/* exit statuses (docs/formats.md) */
enum agg_exit {
    AGG_EXIT_OK = 0,
    AGG_EXIT_USAGE = 2,
    AGG_EXIT_BADROWS = 3, /* some rows or files were bad and skipped; the rest was kept */
    AGG_EXIT_NODATA = 4,  /* nothing to report for the selection */
    AGG_EXIT_DB = 5,      /* the database or an output file could not be opened or written */
    AGG_EXIT_INTERNAL = 70,
};

/* ---- memory and text (agg_util.c) ---- */
void *agg_xmalloc(size_t n);
void *agg_xcalloc(size_t n, size_t size);
void *agg_xrealloc(void *p, size_t n);
char *agg_xstrdup(const char *s);
char *agg_xprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

struct agg_buf {
    char *p;
    size_t n, cap;
};
void agg_buf_put(struct agg_buf *b, const char *s, size_t n);
void agg_buf_puts(struct agg_buf *b, const char *s);
void agg_buf_printf(struct agg_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void agg_buf_free(struct agg_buf *b);

/* string-keyed hash map; keys are copied, values belong to the caller */
struct agg_map_slot {
    char *key;
    uint64_t hash;
    void *val;
};
struct agg_map {
    struct agg_map_slot *slots;
    size_t n, cap;
};
void *agg_map_get(const struct agg_map *m, const char *key);
/* returns the slot's value pointer so that callers can update in place */
void **agg_map_put(struct agg_map *m, const char *key, void *val);
void agg_map_free(struct agg_map *m, void (*free_val)(void *));

/* maps keyed by a database id */
void *agg_map_get_id(const struct agg_map *m, long long id);
void agg_map_put_id(struct agg_map *m, long long id, void *val);
/* the length of the valid multi-byte UTF-8 sequence at p, 0 for ASCII or a stray byte */
size_t agg_utf8_seq(const unsigned char *p);

/* text from input files in a message: control bytes escaped as \xNN */
void agg_fput_safe(FILE *f, const char *s);

/* strict number parsing: the whole field, finite, decimal (no spaces, hex, inf, nan) */
int agg_parse_double(const char *s, double *out);
int agg_parse_long(const char *s, long *out);
int *agg_parse_list(const char *s, int *n);

/* ---- CSV/TSV reading (agg_csv.c) ---- */
struct agg_reader {
    FILE *f;
    const char *path;
    char sep;       /* ',' (RFC 4180 quoting) or '\t' (no quoting) */
    long line;      /* line number where the current record starts (1-based) */
    long next_line; /* line number of the next record */
    struct agg_buf rec;
    char **fields;
    int nfields, cap_fields;
    int truncated; /* the record ended at end of file without a line end, or inside quotes */
    int unclosed;  /* it ended inside quotes */
    int has_nul;   /* it holds a NUL byte */
    int multiline; /* a quoted field held a line break */
    long long restart; /* file offset of the record's second physical line (multiline) */
};
/* Drops the current record after its first physical line and goes on from the next line
 * (a quote that was never closed swallowed the lines after it); -1 on a read error */
int agg_reader_resync(struct agg_reader *r);
int agg_reader_open(struct agg_reader *r, const char *path, char sep);
/* 1: a record in r->fields, 0: end of file, -1: read error (errno) */
int agg_reader_next(struct agg_reader *r);
void agg_reader_close(struct agg_reader *r);

/* ---- database and ingest (agg_db.c) ---- */
struct agg_db {
    sqlite3 *db;
    const char *path;
};
int agg_db_open(struct agg_db *d, const char *path, int create);
void agg_db_close(struct agg_db *d);

struct agg_ingest_stats {
    long rows_added, rows_same, rows_bad, files_bad;
};
/* ingest one file (results CSV, manifest or measured CSV, recognised by its header) or a
 * benchmark folder (its manifest.tsv, results.csv and measured.csv); diagnostics go to err */
int agg_ingest_path(struct agg_db *d, const char *path, const char *run_label,
                    struct agg_ingest_stats *st, FILE *err);

/* ---- model data loaded for reports (agg_model.c) ---- */
struct agg_node {
    int idx;
    char *op, *cls, *layer, *name; /* layer NULL unless computing */
    int group;                     /* -1: none */
    int *preds, npreds;
};
struct agg_group {
    int id;
    char *pattern, *layer;
    int *members, nmembers;
    /* its parts fused on their own (a convolution's SiLU as a silu group, the convolution with
     * its batch norm but not its activation): the manifest's part lines */
    struct agg_part {
        char *pattern, *layer;
        int *nodes, nnodes;
    } *parts;
    int nparts;
};
/* a 4-D activation a channels-last plan may transpose (the manifest's relayout line): made
 * by node PRODUCER (-1: a graph input), read by READERS, the elementwise ones among them
 * (which run in either layout) in ELEM; OUTPUT: a graph output; its Transposes' layers */
struct agg_relayout {
    int producer;
    int *readers, nreaders;
    int *elem, nelem;
    int output;
    char *to_nhwc, *to_nchw;
};
struct agg_run {
    long id;
    char *model;
    long batch;
    int nnodes, ngroups, nrelayouts;
    struct agg_node *nodes;
    struct agg_group *groups;
    struct agg_relayout *relayouts; /* in a topological order of their producers */
    int *pos, npos; /* node index (manifest) -> position in nodes, -1 where none */
};
/* the position in r->nodes of the node with this manifest index, or -1 */
int agg_node_pos(const struct agg_run *r, int idx);
/* ---- ceilings (agg_roof.c) ---- */
/* the peaks a roofline distinguishes: a row's precision maps to one (agg_peak_of) */
enum agg_peak { AGG_P_F32, AGG_P_F16, AGG_P_BF16, AGG_P_TF32, AGG_P_F16TC, AGG_P_BF16TC, AGG_P_FP8, AGG_NPEAK };
/* a target's ceilings: peak FLOP/s per precision, memory bytes/s (read + written), the launch
 * floor in us (GPUs: an empty kernel's time when launches run back to back); NaN unknown */
struct agg_ceil {
    double peak[AGG_NPEAK], bw, launch_us;
    double cache_bytes; /* the last-level cache (GPU L2, CPU LLC): data that fit may stay in it */
    char source[160]; /* where they come from: "datasheet H100-SXM", "calibration", ... */
};
/* one row of the GPU spec table (runtime/agg/gpu_specs.tsv); peaks in FLOP/s, bw in bytes/s */
struct agg_gpu_spec {
    char *name, *match, *source;
    double sms, boost_mhz, l2_mb, bw;
    double peak[AGG_NPEAK];
};
struct agg_specs {
    struct agg_gpu_spec *v;
    int n;
};
/* the table from TSV text (WHERE names it in errors); -1 after a located error */
int agg_specs_parse(const char *text, const char *where, struct agg_specs *out, FILE *err);
/* the built-in table, or PATH's (--specs); -1 after an error */
int agg_specs_load(const char *path, struct agg_specs *out, FILE *err);
void agg_specs_free(struct agg_specs *s);
/* the row whose match names DEVICE (the longest match), or whose name is NAME; NULL */
const struct agg_gpu_spec *agg_specs_match(const struct agg_specs *s, const char *device);
const struct agg_gpu_spec *agg_specs_find(const struct agg_specs *s, const char *name);
/* the peak a precision ("f32", "tf32+tensor_op", "f16", "bf16+tensor_op", "*") runs at */
enum agg_peak agg_peak_of(const char *prec);

struct agg_target {
    long id;
    char *backend, *device, *lib, *cc, *label;
    long sms, threads;
    char **precs;
    int nprecs;
    struct agg_ceil sheet;   /* the datasheet's (GPU spec table; a CPU's arithmetic) */
    struct agg_ceil meas;    /* gen --calibrate's measured ones */
    long predicted_from;     /* agg predict: the id of the target this one was predicted from; 0 */
};
struct agg_measured {
    char *model, *dtype, *device, *framework, *note, *node;
    long batch, threads, runs;
    double latency_us;
};
struct agg_layer_info {
    char *op, *name, *kind;
    char *prec; /* the precision of the layer's own output type (f32, f16, bf16, f64), or NULL */
};
struct agg_algo_time {
    char *algo;
    double us;
    double kus;    /* that row's kernel_us: the GPU's own kernel time per launch (CUPTI), without
                      the gaps between kernels the median holds, at most the median (overlapping
                      kernels); NaN where unknown */
    char *kernels; /* the kernels its fastest row ran (CUPTI's kernel_names), or NULL */
    char *config;  /* that row's engine or cuBLASLt configuration (the note's "engine N, ..." or
                      "cuBLASLt heuristic rank ..." part), or NULL */
    int busy;      /* that row was timed on a busy machine: 1; 0; -1 unknown */
    int one_thread; /* our plain C on a CPU: one thread, whatever the target's count */
};
/* per target x layer x precision: every algorithm's best median, and the library's picks */
struct agg_cell {
    struct agg_algo_time *algos;
    int nalgos, cap;
    int best; /* index into algos, -1 none */
    char *heuristic, *find;
};

struct agg_filter {
    const char *model, *device, *type, *run;
    long batch; /* -1: all */
    const char *specs; /* --specs FILE, or NULL: the built-in GPU spec table */
};

/* a layer's work in a precision on a target */
struct agg_work {
    double flops, bytes;
};

struct agg_data {
    struct agg_run *runs;
    int nruns;
    struct agg_target *targets;
    int ntargets;
    struct agg_measured *measured;
    int nmeasured;
    struct agg_map layers; /* layer id -> struct agg_layer_info */
    struct agg_map cells;  /* "target\x1flayer\x1fprec" -> struct agg_cell ("*": any precision) */
    struct agg_map work;   /* "target\x1flayer\x1fprec" -> struct agg_work */
    struct agg_specs specs;
};
int agg_data_load(struct agg_db *d, const struct agg_filter *flt, struct agg_data *out, FILE *err);
void agg_data_free(struct agg_data *x);
/* fastest ok time of a layer on a target at a precision (counting precision-free rows);
 * returns 0 and sets *us (and *algo) when known */
int agg_best(const struct agg_data *x, long target, const char *layer, const char *prec,
             double *us, const char **algo);
double agg_algo_us(const struct agg_data *x, long target, const char *layer, const char *prec,
                   const char *algo); /* <0: not measured */
/* the same, with the row's kernels and busy flag (NULL: none) */
const struct agg_algo_time *agg_best_at(const struct agg_data *x, long target, const char *layer, const char *prec);
/* the cell agg_best_at takes its time from (precision fallbacks, the layer's own type, "*") */
const struct agg_cell *agg_best_cell(const struct agg_data *x, long target, const char *layer, const char *prec,
                                     const char **cell_prec);
/* the fastest time of LAYER at PREC on targets TA (*UA) and TB (*UB), each over the algorithms
 * that have a time on both (the same cells agg_best_at chooses from: the precision and its
 * fallbacks, paired by precision and algorithm name), on the median (KERNEL 0) or the kernel
 * clock (1: the algorithms whose kernel time both know); 0, or -1 where no algorithm has both */
int agg_best_pair(const struct agg_data *x, long ta, long tb, const char *layer, const char *prec, int kernel,
                  double *ua, double *ub);
/* the layer's work behind agg_best_at's time (NULL: unknown) */
const struct agg_work *agg_work_at(const struct agg_data *x, long target, const char *layer, const char *prec);
const struct agg_algo_time *agg_algo_at(const struct agg_data *x, long target, const char *layer, const char *prec,
                                        const char *algo);
const struct agg_cell *agg_cell_get(const struct agg_data *x, long target, const char *layer,
                                    const char *prec);
int agg_glob(const char *pattern, const char *s);

/* ---- report tables (agg_report.c) ---- */
enum agg_col_kind {
    AGG_COL_TEXT,
    AGG_COL_INT,
    AGG_COL_US,    /* microseconds; text formats pick a unit */
    AGG_COL_RATIO, /* x.xx */
    AGG_COL_PCT,
    AGG_COL_NUM,   /* a plain number (GFLOP, MB, flop/byte), four significant digits */
};
struct agg_cellv {
    char *s;  /* text, or NULL for a number */
    double v; /* NaN: empty */
};
struct agg_table {
    char *name, *title, *desc;
    int ncols;
    char **cols;
    enum agg_col_kind *kinds;
    struct agg_cellv *cells; /* nrows x ncols */
    int nrows, cap;
};
struct agg_table *agg_table_new(const char *name, const char *title, const char *desc);
void agg_table_add_col(struct agg_table *t, const char *col, enum agg_col_kind kind);
int agg_table_row(struct agg_table *t); /* a new empty row; returns its index */
void agg_table_set_text(struct agg_table *t, int row, int col, const char *s);
void agg_table_set_num(struct agg_table *t, int row, int col, double v);
void agg_table_free(struct agg_table *t);

struct agg_bound {
    int covered, computing;
    double seq, par, fused_seq, fused_par, unfused_groups, fused_groups;
    double heur_seq, find_seq;
    int heur_known, find_known;
    int *path, npath; /* node indices, in data-flow order */
    double *node_us;  /* per node: its layer's fastest time; NaN when free or without result */
    char *node_busy;  /* per node: that time was taken on a busy machine (unreliable) */
    int busy;         /* nodes whose time was taken on a busy machine (fused groups' too) */
    /* layout plans: every layer in the layout frameworks keep activations in on GPUs, NCHW
     * (no channels-last algorithm) or NHWC (a layer's channels-last algorithms where it has
     * them, its others where it has none); the bound is the plan with the faster fused
     * sequential time. layout: "nchw" or "nhwc", or "" when no layer has a channels-last
     * result (one plan); other_fused_seq: the other plan's fused sequential time (NaN if none) */
    const char *layout;
    double other_fused_seq;
    /* the NHWC plan's layout changes (the transposes at graph inputs and outputs and between
     * channels-last layers and the others; counted in that plan's times, whichever plan is
     * chosen): their number, summed time (their Transposes' fastest benchmarks) and how many
     * have no result (counted as 0) */
    int relayouts, relayouts_unknown;
    double relayout_us;
    /* the same plan on the GPU's kernel clock: every time above taken as its row's kernel_us
     * (CUPTI's kernel durations, without the gaps between kernels that a median of back-to-back
     * launches holds), the same layers, algorithms, fusions and layout changes. What a
     * profiler's kernel-time sum of a framework compares with. NaN where some time has none
     * (a CPU, a row without CUPTI); node_kus per node as node_us */
    double kernel_seq, kernel_fused_seq;
    double *node_kus;
    /* per fusion group (the run's groups, in order): its cost in the fused bound, min(its fused
     * benchmark, its members), on both clocks */
    double *group_us, *group_kus;
    /* the algorithm behind each node's time and each group's cost (the row's; a group costed
     * at its members' sum "members"), NULL where none: what the framework-layers report names;
     * the precision each node's row is in (a fallback's, "" where none), and whether each
     * group's fused benchmark has an ok row in this plan's layout (1), only in the other (2)
     * or none (0): their reasons, the report's why */
    const char **node_algo, **group_algo;
    char (*node_prec)[24];
    signed char *group_fused;
};
int agg_bound_compute(const struct agg_data *x, const struct agg_run *r, const struct agg_target *t,
                      const char *prec, struct agg_bound *b);
void agg_bound_free(struct agg_bound *b);

/* ---- what the report builders share (agg_report.c) ---- */
/* a model run on a target at a precision, with its bound */
struct agg_combo {
    const struct agg_run *run;
    const struct agg_target *target;
    const char *prec;
    struct agg_bound b;
};
struct agg_ctx {
    const struct agg_data *x;
    struct agg_combo *c;
    int nc;
};
/* a table from '|'-separated column names and one kind letter per column (t i u r p n) */
struct agg_table *agg_new(const char *name, const char *title, const char *desc, const char *cols, const char *kinds);
/* the busy column at the end (returns its index) */
int agg_busy_col(struct agg_table *t);
/* the head columns of most tables: model, batch, type, device */
#define HEAD "model|batch|type|device|"
#define HK "titt"
/* a new row with the combination's model, batch, type and device in columns 0-3 */
int agg_row_head(struct agg_table *t, const struct agg_combo *c);
void agg_table_sort_desc(struct agg_table *t, int col);
/* rows from FIRST on sorted by TOTAL_COL, largest first; SHARE_COL their share of SEQ, RANK_COL
 * (>= 0) their rank */
void agg_rank_rows(struct agg_table *t, int first, int total_col, int share_col, int rank_col, double seq);
const struct agg_combo *agg_find_combo(struct agg_ctx *k, const struct agg_run *r, const struct agg_target *t,
                                       const char *prec);
/* the roofline and prediction reports (agg_roof.c); NULL when there is nothing to say */
struct agg_table *agg_rep_roofline(struct agg_ctx *k);
struct agg_table *agg_rep_roofline_models(struct agg_ctx *k);
struct agg_table *agg_rep_predict(struct agg_ctx *k);
struct agg_table *agg_rep_prediction(struct agg_ctx *k);

/* ---- ceilings and prediction (agg_roof.c) ---- */
/* the targets' ceilings: the datasheet's (GPU spec table) and the calibration rows' */
void agg_ceil_reset(struct agg_ceil *c, const char *source);
void agg_ceil_calib_row(struct agg_target *t, const char *layer, const char *prec, double us, double flops,
                        double bytes, const char *note);
void agg_ceil_sheets(struct agg_data *x);
/* max(flops / peak, bytes / bandwidth[, the launch floor]) in us; NaN when unknown */
double agg_roof_us(const struct agg_ceil *c, enum agg_peak p, const struct agg_work *w, int with_launch,
                   const char **bound);
/* agg --to: each source target (--from: a device pattern) predicted on TO (a spec table row,
 * or threads=N for a CPU), added to x as a target of its own; -1 after an error in TO, -2 when
 * no target can be predicted from */
int agg_predict(struct agg_data *x, const char *to, const char *from, FILE *err);

/* every report for the data, in the order the text output prints them; returns the count */
enum { AGG_MAX_REPORTS = 24 };
int agg_reports_build(const struct agg_data *x, const char *only, struct agg_table **out);
const char *agg_report_names(void);

/* ---- output (agg_out.c, agg_html.c) ---- */
enum agg_format { AGG_FMT_TABLE, AGG_FMT_CSV, AGG_FMT_JSON, AGG_FMT_MD, AGG_FMT_HTML };
struct agg_out_opts {
    enum agg_format format;
    int top;    /* text and md: rows shown per table, 0 all */
    int colour; /* terminal colour */
};
void agg_out_tables(FILE *f, struct agg_table **t, int n, const struct agg_out_opts *o);
void agg_out_html(FILE *f, const struct agg_data *x, struct agg_table **t, int n);
void agg_fmt_us(char *buf, size_t n, double us);

#endif
