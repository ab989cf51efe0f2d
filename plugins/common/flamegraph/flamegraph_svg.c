/* Layout follows flamegraph.pl (1200 px wide, 16 px frames, 12 px Verdana, a title above and a
 * details line below), so the graphs look like the ones people know. Every frame carries its
 * exact offset and value (data-o, data-v) in the graph's unit: the script zooms and searches
 * with those, never with the rounded pixels, and tests compare them with the folded writer.
 * Frames narrower than minwidth are left out, which bounds the size by the picture rather than
 * by the number of distinct stacks; their value still counts in their parents'. */
#include "flamegraph_svg.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "flamegraph_colour.h"
#include "flamegraph_diff.h"
#include "flamegraph_xml.h"

enum {
    FLAMEGRAPH_FRAME_H = 16, /* a frame's row; the rect is one pixel less */
    FLAMEGRAPH_FONT = 12,
    FLAMEGRAPH_XPAD = 10,
    FLAMEGRAPH_YPAD_TOP = FLAMEGRAPH_FONT * 3,         /* title and buttons */
    FLAMEGRAPH_YPAD_BOTTOM = FLAMEGRAPH_FONT * 2 + 10, /* details and matched share */
    FLAMEGRAPH_SUBTITLE_H = 16,                        /* a differential graph's summary */
    FLAMEGRAPH_LEGEND_ROW = 16,                        /* a row of the colour legend */
    FLAMEGRAPH_SEARCH_W = 180,                         /* the search box, at most */
    FLAMEGRAPH_FLUSH = 1 << 20
};
#define FLAMEGRAPH_CHARW (FLAMEGRAPH_FONT * 0.59) /* average glyph width, as flamegraph.pl */

static const char flamegraph_style[] =
    "text { font-family: Verdana, sans-serif; font-size: 12px; fill: rgb(0,0,0); }\n"
    "#title { text-anchor: middle; font-size: 17px; }\n"
    "#ignorecase, #unzoom { cursor: pointer; opacity: 0.6; }\n"
    "#ignorecase:hover, #unzoom:hover, #ignorecase.on { opacity: 1; }\n"
    "#term { box-sizing: border-box; width: 100%; height: 20px; font: 12px Verdana, sans-serif; "
    "padding: 1px 4px; border: 1px solid rgb(170,170,170); border-radius: 3px; }\n"
    "#legend text { font-size: 11px; }\n"
    "#frames > g { cursor: pointer; }\n"
    "#frames > g:hover > rect { stroke: rgb(0,0,0); stroke-width: 0.5; }\n"
    "#frames text { pointer-events: none; }\n"
    ".hide { display: none; }\n"
    ".parent { opacity: 0.5; }\n";

typedef struct flamegraph_svg {
    tconv_ctx *ctx;
    flamegraph_svg_sink sink;
    void *user;
    flamegraph_buf b;
    const flamegraph_svg_options *o;
    int height;
    int ypad_top;
    int64_t total;
    double scale;         /* pixels per unit */
    flamegraph_diff diff; /* when o->diff */
    /* the colour legend: the classes of the frames drawn, laid out in rows */
    unsigned hues; /* bit per FLAMEGRAPH_HUE_* present */
    int legend_rows;
} flamegraph_svg;

static tconv_status flamegraph_svg_flush(flamegraph_svg *s)
{
    int rc = s->sink(s->user, s->b.p, s->b.len);
    s->b.len = 0;
    return rc < 0 ? TCONV_FATAL : TCONV_OK;
}

/* The legend: for a graph of spans, what each colour class drawn stands for (frames nothing is
 * known of keep the warm colours of CPU work, and say nothing); for a differential graph, what
 * red and blue mean. Entries are laid out left to right, wrapping at the graph's width. */
typedef struct flamegraph_legend_item {
    const char *label;
    char fill[24];
} flamegraph_legend_item;

#define FLAMEGRAPH_LEGEND_CHARW (11 * 0.59)

static size_t flamegraph_svg_legend_items(const flamegraph_svg *s, flamegraph_legend_item *it)
{
    size_t n = 0;
    if (s->o->diff) {
        it[n++] = (flamegraph_legend_item){"own time grew", "rgb(255,105,105)"};
        it[n++] = (flamegraph_legend_item){"own time shrank", "rgb(105,105,255)"};
        it[n++] = (flamegraph_legend_item){"unchanged", "rgb(255,255,255)"};
        return n;
    }
    if (!(s->hues & ~1u)) return 0;
    for (unsigned h = 1; h < FLAMEGRAPH_NHUES; h++) {
        if (!(s->hues & 1u << h)) continue;
        it[n].label = flamegraph_colour_name(h);
        flamegraph_colour(h, it[n].label, strlen(it[n].label), it[n].fill);
        n++;
    }
    return n;
}

/* Rows the legend takes at this width; with out, the entries drawn at their places. */
static int flamegraph_svg_legend(const flamegraph_svg *s, flamegraph_buf *out, int y0)
{
    flamegraph_legend_item it[FLAMEGRAPH_NHUES + 3];
    size_t n = flamegraph_svg_legend_items(s, it);
    if (!n) return 0;
    int rows = 1;
    double x = FLAMEGRAPH_XPAD, right = s->o->width - FLAMEGRAPH_XPAD;
    if (out) flamegraph_buf_puts(out, "<g id=\"legend\">\n");
    for (size_t i = 0; i < n; i++) {
        double w = 14 + strlen(it[i].label) * FLAMEGRAPH_LEGEND_CHARW + 16;
        if (x > FLAMEGRAPH_XPAD && x + w > right) {
            rows++;
            x = FLAMEGRAPH_XPAD;
        }
        int y = y0 + (rows - 1) * FLAMEGRAPH_LEGEND_ROW;
        if (out)
            flamegraph_buf_printf(out,
                                  "<rect x=\"%.1f\" y=\"%d\" width=\"10\" height=\"10\" "
                                  "fill=\"%s\" stroke=\"rgb(120,120,120)\" stroke-width=\"0.5\"/>"
                                  "<text x=\"%.1f\" y=\"%d\">%s</text>\n",
                                  x, y - 9, it[i].fill, x + 14, y, it[i].label);
        x += w;
    }
    if (out) flamegraph_buf_puts(out, "</g>\n");
    return rows;
}

static void flamegraph_svg_head(flamegraph_svg *s)
{
    const flamegraph_svg_options *o = s->o;
    flamegraph_buf *b = &s->b;
    flamegraph_buf_printf(b,
                          "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
                          "<svg version=\"1.1\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
                          "xmlns=\"http://www.w3.org/2000/svg\" data-total=\"%" PRId64 "\" "
                          "data-xpad=\"%d\" data-inner=\"%d\" data-charw=\"%.2f\" "
                          "data-icicle=\"%d\"",
                          o->width, s->height, o->width, s->height, s->total, FLAMEGRAPH_XPAD,
                          o->width - 2 * FLAMEGRAPH_XPAD, FLAMEGRAPH_CHARW, o->icicle);
    if (o->diff) flamegraph_buf_printf(b, " data-diff=\"%s\"", o->size_before ? "before" : "after");
    flamegraph_buf_puts(b, ">\n");
    flamegraph_buf_puts(b, "<defs><linearGradient id=\"background\" y1=\"0\" y2=\"1\" x1=\"0\" "
                           "x2=\"0\"><stop stop-color=\"#eeeeee\" offset=\"5%\"/><stop "
                           "stop-color=\"#eeeeb0\" offset=\"95%\"/></linearGradient></defs>\n");
    flamegraph_buf_puts(b, "<style type=\"text/css\"><![CDATA[\n");
    flamegraph_buf_puts(b, flamegraph_style);
    flamegraph_buf_puts(b, "]]></style>\n<script type=\"text/ecmascript\"><![CDATA[\n");
    flamegraph_buf_puts(b, flamegraph_script);
    flamegraph_buf_puts(b, "]]></script>\n");
    int legend_h = s->legend_rows * FLAMEGRAPH_LEGEND_ROW;
    int bottom = s->height - FLAMEGRAPH_YPAD_BOTTOM / 2 - legend_h;
    flamegraph_buf_puts(b, "<rect x=\"0\" y=\"0\" width=\"100%\" height=\"100%\" "
                           "fill=\"url(#background)\"/>\n");
    flamegraph_buf_printf(b, "<text id=\"title\" x=\"%d\" y=\"24\">", o->width / 2);
    flamegraph_xml_escape(b, o->title, strlen(o->title), SIZE_MAX);
    flamegraph_buf_puts(b, "</text>\n");
    if (o->diff) {
        char line[512];
        size_t n = flamegraph_diff_summary(&s->diff, o->size_before, &o->unit, line);
        flamegraph_buf_printf(b, "<text id=\"subtitle\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">",
                              o->width / 2, 24 + FLAMEGRAPH_SUBTITLE_H);
        flamegraph_xml_escape(b, line, n, SIZE_MAX);
        flamegraph_buf_puts(b, "</text>\n");
    }
    flamegraph_buf_printf(b, "<text id=\"details\" x=\"%d\" y=\"%d\">%s</text>\n", FLAMEGRAPH_XPAD,
                          bottom, s->total ? " " : "No samples");
    flamegraph_buf_printf(
        b, "<text id=\"unzoom\" class=\"hide\" x=\"%d\" y=\"24\">Reset Zoom</text>\n",
        FLAMEGRAPH_XPAD);
    /* Search in a text box of the graph's own: a graph in a sandboxed frame (the HTML report's)
     * may open no dialog, and typing shows the matches as they come. */
    int boxw = o->width / 4 < FLAMEGRAPH_SEARCH_W ? o->width / 4 : FLAMEGRAPH_SEARCH_W;
    flamegraph_buf_printf(b,
                          "<foreignObject id=\"searchbox\" x=\"%d\" y=\"9\" width=\"%d\" "
                          "height=\"22\"><input xmlns=\"http://www.w3.org/1999/xhtml\" "
                          "id=\"term\" type=\"search\" placeholder=\"Search\" "
                          "title=\"Search: a regular expression, or text (Ctrl+F; Esc clears)\" "
                          "aria-label=\"Search frames\" spellcheck=\"false\"/></foreignObject>\n",
                          o->width - FLAMEGRAPH_XPAD - 24 - boxw, boxw);
    flamegraph_buf_printf(b, "<text id=\"ignorecase\" x=\"%d\" y=\"24\">ic</text>\n",
                          o->width - FLAMEGRAPH_XPAD - 16);
    flamegraph_buf_printf(b, "<text id=\"matched\" x=\"%d\" y=\"%d\"> </text>\n",
                          o->width - FLAMEGRAPH_XPAD - 100, bottom);
    if (s->legend_rows) flamegraph_svg_legend(s, b, s->height - legend_h + 8);
    flamegraph_buf_puts(b, "<g id=\"frames\">\n");
}

static void flamegraph_svg_frame(flamegraph_svg *s, uint32_t id, const flamegraph_node *nd,
                                 int64_t offset, uint32_t depth)
{
    flamegraph_buf *b = &s->b;
    const char *name = tconv_string_get(s->ctx, nd->name);
    size_t len = tconv_string_length(s->ctx, nd->name);
    double x = FLAMEGRAPH_XPAD + (double)offset * s->scale, w = (double)nd->value * s->scale;
    int y = s->o->icicle
                ? s->ypad_top + (int)depth * FLAMEGRAPH_FRAME_H
                : s->height - FLAMEGRAPH_YPAD_BOTTOM - s->legend_rows * FLAMEGRAPH_LEGEND_ROW -
                      ((int)depth + 1) * FLAMEGRAPH_FRAME_H;
    char value[256], pct[16], fill[24];
    flamegraph_buf_printf(b, "<g data-o=\"%" PRId64 "\" data-v=\"%" PRId64 "\"", offset, nd->value);
    /* a GPU stream's root: tests and the report tell the device's stacks apart by it */
    if (nd->role == FLAMEGRAPH_HUE_STREAM && !s->o->diff)
        flamegraph_buf_puts(b, " data-stream=\"1\"");
    if (s->o->diff) {
        /* the title carries the same numbers, formatted: these are for scripts and tests */
        flamegraph_buf_printf(
            b, " data-b=\"%" PRId64 "\" data-a=\"%" PRId64 "\" data-s=\"%" PRId64 "\"",
            s->diff.before[id], s->diff.after[id], s->diff.self[id]);
        flamegraph_diff_colour(&s->diff, id, fill);
        flamegraph_buf_puts(b, "><title>");
        flamegraph_xml_escape(b, name, len, SIZE_MAX);
        flamegraph_buf_puts(b, " (");
        size_t n = flamegraph_diff_title(&s->diff, id, &s->o->unit, value);
        flamegraph_xml_escape(b, value, n, SIZE_MAX);
    } else {
        flamegraph_value_format(value, nd->value, &s->o->unit);
        flamegraph_value_percent(pct, nd->value, s->total);
        flamegraph_colour(nd->role, name, len, fill);
        flamegraph_buf_puts(b, "><title>");
        flamegraph_xml_escape(b, name, len, SIZE_MAX);
        flamegraph_buf_puts(b, " (");
        flamegraph_xml_escape(b, value, strlen(value), SIZE_MAX);
        flamegraph_buf_printf(b, ", %s", pct);
    }
    flamegraph_buf_printf(b,
                          ")</title><rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" "
                          "fill=\"%s\" rx=\"2\" ry=\"2\"/><text x=\"%.1f\" y=\"%.1f\">",
                          x, y, w, FLAMEGRAPH_FRAME_H - 1, fill, x + 3, y + 10.5);
    /* the label: what fits, cut with "..", as the script cuts it when zooming */
    double fit = floor((w - 3) / FLAMEGRAPH_CHARW);
    size_t chars = flamegraph_xml_chars(name, len);
    if (fit >= 3 && (double)chars <= fit) {
        flamegraph_xml_escape(b, name, len, SIZE_MAX);
    } else if (fit >= 3) {
        flamegraph_xml_escape(b, name, len, (size_t)fit - 2);
        flamegraph_buf_puts(b, "..");
    }
    flamegraph_buf_puts(b, "</text></g>\n");
}

static int flamegraph_svg_kept(const flamegraph_svg *s, const flamegraph_node *nd)
{
    return nd->value > 0 && (double)nd->value * s->scale >= s->o->minwidth;
}

static int flamegraph_svg_to_output(void *user, const void *p, size_t n)
{
    return tconv_output_write(user, p, n);
}

tconv_status flamegraph_svg_write(tconv_ctx *ctx, tconv_output *out, const flamegraph_tree *t,
                                  const flamegraph_svg_options *o)
{
    return flamegraph_svg_render(ctx, flamegraph_svg_to_output, out, t, o);
}

tconv_status flamegraph_svg_render(tconv_ctx *ctx, flamegraph_svg_sink sink, void *user,
                                   const flamegraph_tree *t, const flamegraph_svg_options *o)
{
    const flamegraph_node *nodes = flamegraph_tree_nodes(t);
    flamegraph_svg s = {.ctx = ctx, .sink = sink, .user = user, .o = o, .total = nodes[0].value};
    s.ypad_top = FLAMEGRAPH_YPAD_TOP + (o->diff ? FLAMEGRAPH_SUBTITLE_H : 0);
    if (o->diff) flamegraph_diff_init(&s.diff, t, o->size_before);
    s.scale = s.total > 0 ? (double)(o->width - 2 * FLAMEGRAPH_XPAD) / (double)s.total : 0;
    flamegraph_layout l = {0};
    flamegraph_tree_layout(t, ctx, &l);
    size_t n = flamegraph_tree_count(t);
    uint32_t maxdepth = 0;
    for (size_t i = 0; i < n; i++) {
        if (!flamegraph_svg_kept(&s, &nodes[i])) continue;
        if (l.depth[i] > maxdepth) maxdepth = l.depth[i];
        if (i && nodes[i].role < FLAMEGRAPH_NHUES) s.hues |= 1u << nodes[i].role;
    }
    s.legend_rows = flamegraph_svg_legend(&s, NULL, 0);
    s.height = ((int)maxdepth + 1) * FLAMEGRAPH_FRAME_H + s.ypad_top + FLAMEGRAPH_YPAD_BOTTOM +
               s.legend_rows * FLAMEGRAPH_LEGEND_ROW;
    flamegraph_svg_head(&s);
    tconv_status st = TCONV_OK;
    for (size_t i = 0; i < n && st == TCONV_OK; i++) {
        uint32_t id = l.order[i];
        if (!flamegraph_svg_kept(&s, &nodes[id])) continue;
        flamegraph_svg_frame(&s, id, &nodes[id], l.offset[id], l.depth[id]);
        if (s.b.len >= FLAMEGRAPH_FLUSH) st = flamegraph_svg_flush(&s);
    }
    if (st == TCONV_OK) {
        flamegraph_buf_puts(&s.b, "</g>\n</svg>\n");
        st = flamegraph_svg_flush(&s);
    }
    flamegraph_layout_free(&l);
    if (o->diff) flamegraph_diff_free(&s.diff);
    flamegraph_buf_free(&s.b);
    return st;
}
