#include "testutil.h"

static const tconv_option_desc opts_desc[] = {
    {"unit", TCONV_OPT_ENUM, "us", "us|ns", "time unit"},
    {"labels", TCONV_OPT_BOOL, "true", NULL, "labels"},
    {"start", TCONV_OPT_INT, NULL, NULL, "window start"},
    {"scale", TCONV_OPT_DOUBLE, "1.5", NULL, "scale"},
    {"title", TCONV_OPT_STRING, NULL, NULL, "title"},
    {0},
};

static int parse(tconv_options *o, char **kv, size_t n, char *err)
{
    return tconv_options_parse(o, opts_desc, kv, n, err, 256);
}

static void defaults_and_values(void **state)
{
    (void)state;
    tconv_options o;
    char err[256];
    char *kv[] = {"unit=ns", "labels=off", "start=0x10", "title=a=b", "unit=us"};
    assert_int_equal(parse(&o, kv, 5, err), 0);
    assert_string_equal(tconv_option_get_string(&o, "unit"), "us"); /* later wins */
    assert_false(tconv_option_get_bool(&o, "labels"));
    assert_int_equal(tconv_option_get_int(&o, "start"), 16);
    assert_string_equal(tconv_option_get_string(&o, "title"), "a=b");
    assert_true(tconv_option_get_double(&o, "scale") == 1.5); /* default */
    assert_true(tconv_option_is_set(&o, "unit"));
    assert_false(tconv_option_is_set(&o, "scale"));
    tconv_options_free(&o);

    char *flag[] = {"labels"};
    assert_int_equal(parse(&o, flag, 1, err), 0);
    assert_true(tconv_option_get_bool(&o, "labels"));
    tconv_options_free(&o);
}

static void errors_say_what_is_valid(void **state)
{
    (void)state;
    tconv_options o;
    char err[256];
    char *unknown[] = {"uint=ns"};
    assert_int_equal(parse(&o, unknown, 1, err), -1);
    assert_string_equal(err, "unknown option 'uint'; valid options: unit labels start scale title");
    tconv_options_free(&o);
    char *badenum[] = {"unit=ms"};
    assert_int_equal(parse(&o, badenum, 1, err), -1);
    assert_string_equal(err, "option 'unit': 'ms' is not us|ns");
    tconv_options_free(&o);
    char *badint[] = {"start=12x"};
    assert_int_equal(parse(&o, badint, 1, err), -1);
    assert_string_equal(err, "option 'start': '12x' is not an integer");
    tconv_options_free(&o);
    char *novalue[] = {"start"};
    assert_int_equal(parse(&o, novalue, 1, err), -1);
    assert_string_equal(err, "option 'start' needs a value: start=VALUE (an integer)");
    tconv_options_free(&o);
    char *badbool[] = {"labels=maybe"};
    assert_int_equal(parse(&o, badbool, 1, err), -1);
    tconv_options_free(&o);
    /* A plugin without options rejects any. */
    assert_int_equal(tconv_options_parse(&o, NULL, unknown, 1, err, sizeof(err)), -1);
    assert_string_equal(err, "unknown option 'uint'; valid options: none");
    tconv_options_free(&o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(defaults_and_values),
        cmocka_unit_test(errors_say_what_is_valid),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
