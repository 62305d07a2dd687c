/* Unit tests of the base module: arena, buffer, quoting, file reading and atomic writes; and
 * re2posix (RegexFullMatch's RE2 patterns as POSIX EREs and sample strings). */
#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../generator/re2posix.h"
#include "test.h"

static void arena_alignment_and_zeroing(void **state)
{
    (void)state;
    struct bz_arena a;
    bz_arena_init(&a);
    for (int i = 1; i < 2000; i++) {
        unsigned char *p = bz_arena_alloc(&a, (size_t)(i % 97) + 1);
        assert_int_equal((uintptr_t)p % 16, 0);
        for (int k = 0; k < (i % 97) + 1; k++)
            assert_int_equal(p[k], 0);
        memset(p, 0xab, (size_t)(i % 97) + 1);
    }
    /* a request larger than a block gets its own block and stays usable */
    char *big = bz_arena_alloc(&a, 1 << 20);
    memset(big, 1, 1 << 20);
    char *after = bz_arena_alloc(&a, 8);
    assert_int_equal((uintptr_t)after % 16, 0);
    assert_true(a.total_bytes >= a.used_bytes);
    bz_arena_free(&a);
    assert_null(a.head);
}

static void arena_strings(void **state)
{
    (void)state;
    struct bz_arena a;
    bz_arena_init(&a);
    char *s = bz_arena_strndup(&a, "hello world", 5);
    assert_string_equal(s, "hello");
    assert_string_equal(bz_arena_strdup(&a, NULL), "");
    int64_t v[3] = {1, -2, 3};
    int64_t *c = bz_arena_memdup(&a, v, sizeof(v));
    assert_memory_equal(c, v, sizeof(v));
    bz_arena_free(&a);
}

/* the name gen gives a model: the file name, or the folder of DIR/model.onnx */
static void model_names(void **state)
{
    (void)state;
    static const char *const cases[][2] = {
        {"a/b/resnet50.onnx", "resnet50"}, {"resnet50.onnx", "resnet50"},
        {"x.pb", "x.pb"},                  {"data/test_relu/model.onnx", "test_relu"},
        {"test_relu/model.onnx", "test_relu"}, {"model.onnx", "model"},
        {"./model.onnx", "model"},         {"../model.onnx", "model"},
        {"/model.onnx", "model"},          {"a/model2.onnx", "model2"},
    };
    for (size_t i = 0; i < BZ_ARRAY_LEN(cases); i++) {
        char *n = bz_model_name(cases[i][0]);
        assert_string_equal(n, cases[i][1]);
        free(n);
    }
}

static void buf_grows_and_formats(void **state)
{
    (void)state;
    struct bz_buf b;
    bz_buf_init(&b);
    for (int i = 0; i < 1000; i++)
        bz_buf_printf(&b, "%d,", i);
    assert_int_equal(b.len, strlen(b.data));
    assert_memory_equal(b.data, "0,1,2,", 6);
    assert_memory_equal(b.data + b.len - 4, "999,", 4);
    bz_buf_clear(&b);
    assert_int_equal(b.len, 0);
    assert_string_equal(b.data, "");
    bz_buf_append(&b, "a\0b", 3);
    assert_int_equal(b.len, 3);
    char *s = bz_buf_steal(&b);
    assert_memory_equal(s, "a\0b", 4);
    assert_null(b.data);
    free(s);
}

static void quote_escapes_untrusted_text(void **state)
{
    (void)state;
    struct bz_buf b;
    bz_buf_init(&b);
    const char in[] = "a\n*/\"'\\$\x01\xc3\xa9";
    bz_buf_quote(&b, in, sizeof(in) - 1);
    assert_string_equal(b.data, "a\\n*/\\\"\\'\\\\$\\x01\\xc3\\xa9");
    assert_null(strchr(b.data, '\n'));
    bz_buf_free(&b);
}

static char tmpdir[] = "/tmp/bz-test-base-XXXXXX";

static void read_file_statuses(void **state)
{
    (void)state;
    char path[512];
    char *data;
    size_t n;
    snprintf(path, sizeof(path), "%s/none", tmpdir);
    assert_int_equal(bz_read_file(path, 100, &data, &n), BZ_READ_ENOENT);
    assert_int_equal(bz_read_file(tmpdir, 100, &data, &n), BZ_READ_EISDIR);
    snprintf(path, sizeof(path), "%s/f", tmpdir);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs("0123456789", f);
    fclose(f);
    assert_int_equal(bz_read_file(path, 9, &data, &n), BZ_READ_TOOBIG);
    assert_null(data);
    assert_int_equal(bz_read_file(path, 10, &data, &n), BZ_READ_OK);
    assert_int_equal(n, 10);
    assert_string_equal(data, "0123456789");
    free(data);
    assert_int_equal(bz_read_file("/dev/null", 10, &data, &n), BZ_READ_ENOTREG);
    for (int s = 0; s < BZ_READ_STATUS_COUNT; s++)
        assert_non_null(bz_read_strerror((enum bz_read_status)s));
}

static void write_atomic_leaves_no_temp(void **state)
{
    (void)state;
    char path[512];
    snprintf(path, sizeof(path), "%s/out.txt", tmpdir);
    assert_int_equal(bz_write_file_atomic(path, "abc", 3), 0);
    char *data;
    size_t n;
    assert_int_equal(bz_read_file(path, 100, &data, &n), BZ_READ_OK);
    assert_string_equal(data, "abc");
    free(data);
    char tmp[600];
    snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid());
    assert_int_equal(access(tmp, F_OK), -1);
    /* a folder that does not exist: an error, and nothing written */
    snprintf(path, sizeof(path), "%s/no/such/dir/x", tmpdir);
    assert_int_equal(bz_write_file_atomic(path, "abc", 3), ENOENT);
    /* a FIFO at the path (like /dev/null, not a regular file): refused, left as it was, and
     * no temporary file stays; a symbolic link is replaced by the file (its target untouched) */
    snprintf(path, sizeof(path), "%s/fifo", tmpdir);
    assert_int_equal(mkfifo(path, 0600), 0);
    assert_int_equal(bz_write_file_atomic(path, "abc", 3), EEXIST);
    struct stat st;
    assert_int_equal(lstat(path, &st), 0);
    assert_true(S_ISFIFO(st.st_mode));
    snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid());
    assert_int_equal(access(tmp, F_OK), -1);
    char link[600];
    snprintf(link, sizeof(link), "%s/link", tmpdir);
    assert_int_equal(symlink(path, link), 0);
    assert_int_equal(bz_write_file_atomic(link, "abc", 3), 0);
    assert_int_equal(lstat(link, &st), 0);
    assert_true(S_ISREG(st.st_mode));
    assert_int_equal(lstat(path, &st), 0);
    assert_true(S_ISFIFO(st.st_mode));
}

/* whether RE2 pattern fully matches text, through the translation */
static int rx_full(const char *pattern, const char *text)
{
    struct rx_result rx;
    char why[160];
    if (rx_translate(pattern, strlen(pattern), &rx, why, sizeof(why)) != 0)
        fail_msg("%s: %s", pattern, why);
    regex_t re;
    assert_int_equal(regcomp(&re, rx.ere.data, REG_EXTENDED | REG_NOSUB), 0);
    int hit = regexec(&re, text, 0, NULL, 0) == 0;
    regfree(&re);
    rx_free(&rx);
    return hit;
}

/* RE2's own syntax that Python's re (onnx.reference, the e2e oracle) reads otherwise or not
 * at all: POSIX class names, scoped and negated flags, named groups */
static void re2_syntax_translates(void **state)
{
    (void)state;
    assert_true(rx_full("[[:alpha:]]+", "abcXYZ"));
    assert_false(rx_full("[[:alpha:]]+", "ab1"));
    assert_true(rx_full("[^[:space:][:digit:]]*", "a-b_c"));
    assert_false(rx_full("[^[:space:][:digit:]]*", "a b"));
    assert_true(rx_full("(?i)a(?-i:b)c", "AbC"));
    assert_false(rx_full("(?i)a(?-i:b)c", "ABC"));
    assert_true(rx_full("(?i:x)y", "Xy"));
    assert_false(rx_full("(?i:x)y", "XY"));
    assert_true(rx_full("(?s)a.b", "a\nb"));
    assert_false(rx_full("a.b", "a\nb"));
    assert_true(rx_full("(?P<y>\\d{4})-(?<m>\\d\\d)", "2026-11"));
    assert_true(rx_full("x{2,}", "xxxx"));
    assert_false(rx_full("x{2,}", "x"));
    assert_true(rx_full("a{,2}", "a{,2}")); /* not a repetition in RE2: literal braces */
    assert_true(rx_full("[]^[-]+", "^]-["));
    assert_true(rx_full("[\\d-]+", "1-2"));
    assert_true(rx_full("\\W\\S\\D", "!a_"));
    assert_false(rx_full("\\s", "\v")); /* RE2's \s has no vertical tab */
    assert_true(rx_full("", ""));
    assert_true(rx_full("a|", ""));
}

static void re2_refusals_say_why(void **state)
{
    (void)state;
    static const char *const bad[] = {"(a)\\1", "\\bword", "(?m)^a$", "caf\xc3\xa9", "(a", "a)", "*a", "a**",
                                      "x{3,2}", "\\pL", "[[:nosuch:]]", "[z-a]", "\\Qa\\E", "^*"};
    for (size_t i = 0; i < BZ_ARRAY_LEN(bad); i++) {
        struct rx_result rx;
        char why[160] = "";
        assert_int_equal(rx_translate(bad[i], strlen(bad[i]), &rx, why, sizeof(why)), -1);
        assert_true(why[0] != '\0');
        rx_free(&rx);
    }
}

/* every sample is printable ASCII and matches; a pattern no printable string matches is refused */
static void re2_samples_match(void **state)
{
    (void)state;
    static const char *const patterns[] = {"[a-z]+@[a-z]+\\.(com|org)", "(ab|cd){2,5}e?", "\\d+(\\.\\d*)?", "(?i)yes|no"};
    for (size_t i = 0; i < BZ_ARRAY_LEN(patterns); i++) {
        struct rx_result rx;
        char why[160];
        assert_int_equal(rx_translate(patterns[i], strlen(patterns[i]), &rx, why, sizeof(why)), 0);
        assert_int_equal(rx.nsamples, RX_SAMPLES);
        for (int k = 0; k < rx.nsamples; k++) {
            for (const char *c = rx.samples[k]; *c; c++)
                assert_true(*c >= 0x20 && *c < 0x7f);
            assert_true(rx_full(patterns[i], rx.samples[k]));
        }
        rx_free(&rx);
    }
    struct rx_result rx;
    char why[160] = "";
    assert_int_equal(rx_translate("\\n+", 3, &rx, why, sizeof(why)), -1);
    assert_non_null(strstr(why, "printable"));
    rx_free(&rx);
}

void test_base_group(struct test_totals *tot)
{
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        exit(1);
    }
    struct CMUnitTest tests[] = {
        cmocka_unit_test(arena_alignment_and_zeroing),
        cmocka_unit_test(arena_strings),
        cmocka_unit_test(buf_grows_and_formats),
        cmocka_unit_test(model_names),
        cmocka_unit_test(quote_escapes_untrusted_text),
        cmocka_unit_test(read_file_statuses),
        cmocka_unit_test(write_atomic_leaves_no_temp),
        cmocka_unit_test(re2_syntax_translates),
        cmocka_unit_test(re2_refusals_say_why),
        cmocka_unit_test(re2_samples_match),
    };
    test_group_run(tot, "base", tests, BZ_ARRAY_LEN(tests));
    char cmd[600];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0)
        fprintf(stderr, "warning: could not remove %s\n", tmpdir);
}
