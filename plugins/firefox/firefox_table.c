/* The two layouts of a table. The processed format keeps columns (an array per field, and a
 * length, which older versions leave out: the first column's size then); Gecko keeps rows (an
 * array per row, a schema giving each field's position). Absent columns read as null, as the
 * Firefox Profiler's upgraders treat fields a version did not have. */
#include <math.h>

#include "firefox_reader.h"

int firefox_table_open(json_t *obj, firefox_table *t)
{
    t->obj = obj;
    t->data = NULL;
    t->schema = NULL;
    t->length = 0;
    if (!json_is_object(obj)) return -1;
    json_t *schema = json_object_get(obj, "schema");
    json_t *data = json_object_get(obj, "data");
    if (json_is_object(schema) && json_is_array(data)) {
        t->schema = schema;
        t->data = data;
        t->length = json_array_size(data);
        return 0;
    }
    json_t *len = json_object_get(obj, "length");
    if (json_is_integer(len) && json_integer_value(len) >= 0) {
        t->length = (size_t)json_integer_value(len);
    } else {
        const char *key;
        json_t *v;
        json_object_foreach(obj, key, v)
        {
            if (json_is_array(v)) {
                t->length = json_array_size(v);
                break;
            }
        }
    }
    return 0;
}

firefox_col firefox_table_col(const firefox_table *t, const char *name)
{
    firefox_col c = {0};
    if (t->data) {
        json_t *ix = json_object_get(t->schema, name);
        if (json_is_integer(ix) && json_integer_value(ix) >= 0) {
            c.data = t->data;
            c.index = (size_t)json_integer_value(ix);
            c.present = 1;
        }
    } else if (t->obj) {
        json_t *a = json_object_get(t->obj, name);
        if (json_is_array(a)) {
            c.array = a;
            c.present = 1;
        }
    }
    return c;
}

json_t *firefox_cell(const firefox_col *c, size_t row)
{
    if (!c->present) return NULL;
    json_t *v = c->data ? json_array_get(json_array_get(c->data, row), c->index)
                        : json_array_get(c->array, row);
    return json_is_null(v) ? NULL : v;
}

int64_t firefox_cell_index(const firefox_col *c, size_t row)
{
    json_t *v = firefox_cell(c, row);
    if (!v) return -1;
    if (json_is_integer(v)) return json_integer_value(v) >= 0 ? json_integer_value(v) : -1;
    if (json_is_real(v)) {
        double d = json_real_value(v);
        if (d >= 0 && d < 9e15 && d == floor(d)) return (int64_t)d;
    }
    return -2;
}

int firefox_cell_number(const firefox_col *c, size_t row, double *out)
{
    json_t *v = firefox_cell(c, row);
    if (!json_is_number(v)) return 0;
    double d = json_number_value(v);
    if (!isfinite(d)) return 0;
    *out = d;
    return 1;
}
