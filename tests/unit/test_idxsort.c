/* The index sort of the ordering stage against qsort, on the inputs that break naive
 * quicksorts: sorted, reversed, all keys equal (ties broken by index), organ pipe, random. */
#include "testutil.h"

static const int64_t *sort_keys;

static int by_key(const void *ctx, uint32_t a, uint32_t b)
{
    const int64_t *k = ctx;
    if (k[a] != k[b]) return k[a] < k[b] ? -1 : 1;
    return a < b ? -1 : a > b;
}

static int by_key_q(const void *x, const void *y)
{
    return by_key(sort_keys, *(const uint32_t *)x, *(const uint32_t *)y);
}

static uint64_t lcg(uint64_t *s)
{
    *s = *s * 6364136223846793005u + 1442695040888963407u;
    return *s >> 33;
}

static void check(const int64_t *keys, size_t n)
{
    uint32_t *a = malloc((n + 1) * sizeof(*a)), *b = malloc((n + 1) * sizeof(*b));
    for (size_t i = 0; i < n; i++)
        a[i] = b[i] = (uint32_t)(n - 1 - i); /* start reversed by index */
    tconv_idx_sort(a, n, by_key, keys);
    sort_keys = keys;
    qsort(b, n, sizeof(*b), by_key_q);
    assert_memory_equal(a, b, n * sizeof(*a));
    free(a);
    free(b);
}

static void patterns(void **state)
{
    (void)state;
    static const size_t sizes[] = {0, 1, 2, 3, 15, 16, 17, 100, 1000, 20000};
    uint64_t seed = 42;
    for (size_t s = 0; s < sizeof(sizes) / sizeof(*sizes); s++) {
        size_t n = sizes[s];
        int64_t *k = malloc((n + 1) * sizeof(*k));
        for (int pattern = 0; pattern < 6; pattern++) {
            for (size_t i = 0; i < n; i++) {
                switch (pattern) {
                case 0:
                    k[i] = (int64_t)i;
                    break; /* sorted */
                case 1:
                    k[i] = (int64_t)(n - i);
                    break; /* reversed */
                case 2:
                    k[i] = 7;
                    break; /* all equal */
                case 3:
                    k[i] = (int64_t)(i < n / 2 ? i : n - i);
                    break; /* organ pipe */
                case 4:
                    k[i] = (int64_t)(lcg(&seed) % 16);
                    break; /* few values */
                default:
                    k[i] = (int64_t)lcg(&seed) - (INT64_C(1) << 30); /* random */
                }
            }
            check(k, n);
        }
        free(k);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(patterns),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
