/* Tests of the Mustache engine beyond the spec: located errors, strict modes, escaping hooks,
 * limits, and the directory partial loader. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mustache.h"
#include "test.h"

struct rendered {
    int status;
    char *out;
    char *err;
};

static int partials_json(void *ud, const char *name, char **src, size_t *len)
{
    const json_t *p = json_object_get(ud, name);
    if (!p)
        return 0;
    *src = bz_strdup(json_string_value(p));
    *len = strlen(*src);
    return 1;
}

static struct rendered render(const char *tpl, const char *data_json, const char *partials_json_text,
                              unsigned flags, mustache_escape_fn esc)
{
    json_error_t je;
    json_t *data = data_json ? json_loads(data_json, JSON_DECODE_ANY, &je) : NULL;
    json_t *parts = partials_json_text ? json_loads(partials_json_text, 0, &je) : NULL;
    struct mustache_opts o = {.partial = partials_json, .partial_ud = parts, .flags = flags,
                              .escape = esc};
    struct bz_buf out, err;
    bz_buf_init(&out);
    bz_buf_init(&err);
    struct rendered r;
    r.status = mustache_render("t.mustache", tpl, strlen(tpl), data, &o, &out, &err);
    r.out = bz_buf_steal(&out);
    r.err = bz_buf_steal(&err);
    json_decref(data);
    json_decref(parts);
    return r;
}

static void rendered_free(struct rendered *r)
{
    free(r->out);
    free(r->err);
}

static void unclosed_section_names_line_and_column(void **state)
{
    (void)state;
    struct rendered r = render("line one\n  {{#items}}\n{{name}}\n", "{}", NULL, 0, NULL);
    assert_int_equal(r.status, MUSTACHE_ESYNTAX);
    assert_non_null(strstr(r.err, "t.mustache:2:3: unclosed section 'items'"));
    rendered_free(&r);
}

static void mismatched_and_stray_close(void **state)
{
    (void)state;
    struct rendered r = render("{{#a}}\n{{#b}}x{{/a}}{{/b}}", "{}", NULL, 0, NULL);
    assert_int_equal(r.status, MUSTACHE_ESYNTAX);
    assert_non_null(strstr(r.err, "t.mustache:2:8: closing tag 'a' does not match section 'b' opened at 2:1"));
    rendered_free(&r);
    r = render("x {{/z}}", "{}", NULL, 0, NULL);
    assert_int_equal(r.status, MUSTACHE_ESYNTAX);
    assert_non_null(strstr(r.err, "t.mustache:1:3: closing tag 'z' without an open section"));
    rendered_free(&r);
}

static void unclosed_tag_and_empty_tag(void **state)
{
    (void)state;
    struct rendered r = render("ab\ncd {{name", "{}", NULL, 0, NULL);
    assert_int_equal(r.status, MUSTACHE_ESYNTAX);
    assert_non_null(strstr(r.err, "t.mustache:2:4: unclosed tag"));
    rendered_free(&r);
    r = render("{{ }}", "{}", NULL, 0, NULL);
    assert_int_equal(r.status, MUSTACHE_ESYNTAX);
    assert_non_null(strstr(r.err, "t.mustache:1:1: empty tag"));
    rendered_free(&r);
}

static void bad_delimiters(void **state)
{
    (void)state;
    const char *bad[] = {"{{=<% =}}", "{{= =}}", "{{=a= b=}}", "{{=<% %> x=}}",
                         "{{=0123456789012345678901234567890123 b=}}"};
    for (size_t i = 0; i < BZ_ARRAY_LEN(bad); i++) {
        struct rendered r = render(bad[i], "{}", NULL, 0, NULL);
        assert_int_equal(r.status, MUSTACHE_EDELIM);
        assert_non_null(strstr(r.err, "t.mustache:1:1: bad set-delimiter tag"));
        rendered_free(&r);
    }
    struct rendered r = render("{{=<% %>=}}<% x %>{{x}}", "{\"x\":1}", NULL, 0, NULL);
    assert_int_equal(r.status, MUSTACHE_OK);
    assert_string_equal(r.out, "1{{x}}");
    rendered_free(&r);
}

static void missing_partial_strict_and_lenient(void **state)
{
    (void)state;
    struct rendered r = render("a\n b{{>nope}}", "{}", "{}", 0, NULL);
    assert_int_equal(r.status, MUSTACHE_OK);
    assert_string_equal(r.out, "a\n b");
    rendered_free(&r);
    r = render("a\n b{{>nope}}", "{}", "{}", MUSTACHE_STRICT_PARTIALS, NULL);
    assert_int_equal(r.status, MUSTACHE_EPARTIAL);
    assert_non_null(strstr(r.err, "t.mustache:2:3: partial 'nope' not found"));
    rendered_free(&r);
}

static void error_inside_partial_names_the_partial(void **state)
{
    (void)state;
    struct rendered r = render("{{>p}}", "{}", "{\"p\": \"ok\\n{{#open}}\"}", 0, NULL);
    assert_int_equal(r.status, MUSTACHE_ESYNTAX);
    assert_non_null(strstr(r.err, "p:2:1: unclosed section 'open'"));
    rendered_free(&r);
}

static void strict_vars(void **state)
{
    (void)state;
    struct rendered r = render("{{a}} {{b.c}}", "{\"a\":1,\"b\":{}}", NULL, MUSTACHE_STRICT_VARS, NULL);
    assert_int_equal(r.status, MUSTACHE_EVAR);
    assert_non_null(strstr(r.err, "t.mustache:1:7: 'b.c' is not defined"));
    rendered_free(&r);
}

static void escape_upper(struct bz_buf *out, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        bz_buf_putc(out, s[i] >= 'a' && s[i] <= 'z' ? (char)(s[i] - 32) : s[i]);
}

static void custom_escape_applies_to_double_mustache_only(void **state)
{
    (void)state;
    struct rendered r = render("{{s}} {{{s}}} {{&s}}", "{\"s\":\"a<b\"}", NULL, 0, escape_upper);
    assert_int_equal(r.status, MUSTACHE_OK);
    assert_string_equal(r.out, "A<B a<b a<b");
    rendered_free(&r);
    r = render("{{s}}", "{\"s\":\"&\\\"<>'\"}", NULL, 0, NULL);
    assert_string_equal(r.out, "&amp;&quot;&lt;&gt;'");
    rendered_free(&r);
}

static void endless_recursion_is_an_error(void **state)
{
    (void)state;
    struct rendered r = render("{{>loop}}", "{}", "{\"loop\": \"x{{>loop}}\"}", 0, NULL);
    assert_int_equal(r.status, MUSTACHE_EDEPTH);
    assert_non_null(strstr(r.err, "nested more than"));
    rendered_free(&r);
}

static void numbers_and_falsy_values(void **state)
{
    (void)state;
    struct rendered r = render("{{a}} {{b}} {{c}} {{d}} {{e}}",
                               "{\"a\":1.21,\"b\":-0.5,\"c\":9007199254740993,\"d\":1e300,\"e\":0.1}",
                               NULL, 0, NULL);
    assert_string_equal(r.out, "1.21 -0.5 9007199254740993 1e+300 0.1");
    rendered_free(&r);
    /* the empty string is falsy (as in mustache.js): handy for optional notes */
    r = render("[{{#s}}x{{/s}}{{^s}}y{{/s}}][{{#z}}n{{/z}}]", "{\"s\":\"\",\"z\":0}", NULL, 0, NULL);
    assert_string_equal(r.out, "[y][n]");
    rendered_free(&r);
}

static void directory_partials(void **state)
{
    (void)state;
    char dir[] = "/tmp/bz-test-mustache-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[256];
    snprintf(path, sizeof(path), "%s/row.mustache", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("<{{.}}>\n", f);
    fclose(f);
    char *src;
    size_t len;
    assert_int_equal(mustache_partial_from_dir(dir, "row", &src, &len), 1);
    assert_string_equal(src, "<{{.}}>\n");
    free(src);
    assert_int_equal(mustache_partial_from_dir(dir, "none", &src, &len), 0);
    assert_int_equal(mustache_partial_from_dir(dir, "../etc/passwd", &src, &len), 0);
    assert_int_equal(mustache_partial_from_dir(dir, ".hidden", &src, &len), 0);

    struct mustache_opts o = {.partial = mustache_partial_from_dir, .partial_ud = dir};
    json_t *data = json_pack("{s:[i,i]}", "xs", 1, 2);
    struct bz_buf out;
    bz_buf_init(&out);
    const char *tpl = "{{#xs}}\n  {{>row}}\n{{/xs}}\n";
    assert_int_equal(mustache_render("t", tpl, strlen(tpl), data, &o, &out, NULL), MUSTACHE_OK);
    assert_string_equal(out.data, "  <1>\n  <2>\n");
    bz_buf_free(&out);
    json_decref(data);
    unlink(path);
    rmdir(dir);
}

void test_mustache_group(struct test_totals *tot)
{
    struct CMUnitTest tests[] = {
        cmocka_unit_test(unclosed_section_names_line_and_column),
        cmocka_unit_test(mismatched_and_stray_close),
        cmocka_unit_test(unclosed_tag_and_empty_tag),
        cmocka_unit_test(bad_delimiters),
        cmocka_unit_test(missing_partial_strict_and_lenient),
        cmocka_unit_test(error_inside_partial_names_the_partial),
        cmocka_unit_test(strict_vars),
        cmocka_unit_test(custom_escape_applies_to_double_mustache_only),
        cmocka_unit_test(endless_recursion_is_an_error),
        cmocka_unit_test(numbers_and_falsy_values),
        cmocka_unit_test(directory_partials),
    };
    test_group_run(tot, "mustache", tests, BZ_ARRAY_LEN(tests));
}
