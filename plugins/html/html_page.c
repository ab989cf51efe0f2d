/* The page: a strict Content-Security-Policy (nothing may be fetched; only inline script and
 * style run), the style, the data as JSON in a <script type="application/json"> element, the
 * flame graph as the flamegraph writer's SVG in a sandboxed frame (a data: URL, so that its
 * own script runs in its own document), and the script that builds the views from the data
 * with textContent only. */
#include <string.h>

#include "html_writer.h"

static const char html_b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static void html_base64(csv_buf *b, const unsigned char *p, size_t n)
{
    csv_buf_reserve(b, (n + 2) / 3 * 4);
    for (size_t i = 0; i < n; i += 3) {
        unsigned v = (unsigned)p[i] << 16;
        if (i + 1 < n) v |= (unsigned)p[i + 1] << 8;
        if (i + 2 < n) v |= p[i + 2];
        char q[4] = {html_b64[v >> 18 & 63], html_b64[v >> 12 & 63],
                     i + 1 < n ? html_b64[v >> 6 & 63] : '=', i + 2 < n ? html_b64[v & 63] : '='};
        csv_buf_put(b, q, 4);
    }
}

/* Only the two scripts tconv wrote may run, named by their hashes: were markup of a trace ever
 * to get into the page, a browser would run none of its scripts or handlers. Nothing may be
 * fetched; the flame graph's frame is a data: URL. */
static const char html_head[] =
    "<!DOCTYPE html>\n"
    "<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
    "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
    "script-src %s %s; style-src 'unsafe-inline'; img-src data:; frame-src data:\">\n"
    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
    "<meta name=\"generator\" content=\"tconv\">\n"
    "<title>tconv report</title>\n<style>\n";

static const char html_body[] =
    "</style>\n</head>\n<body>\n"
    "<header><h1 id=\"title\"></h1><p id=\"inputs\"></p>\n"
    "<nav><a href=\"#overview\">Overview</a> <a href=\"#operators\">Operators</a> "
    "<a href=\"#kernels\">Kernels</a> <a href=\"#flame\">CPU flame graph</a> "
    "<a href=\"#flame-gpu-section\">GPU flame graph</a> "
    "<a href=\"#memory\">Memory</a> <a href=\"#ranks\">Ranks</a></nav></header>\n"
    "<section id=\"overview\"><h2>Overview</h2>\n"
    "<dl id=\"trace\"></dl>\n"
    "<h3>Step time breakdown</h3><div id=\"steps\"></div>\n"
    "<h3>GPU utilisation</h3><div id=\"gpus\"></div>\n"
    "<h3>Recommendations</h3><ul id=\"advice\"></ul></section>\n"
    "<section id=\"operators\"><h2>Operators</h2>\n"
    "<p><input id=\"ops-filter\" type=\"search\" placeholder=\"Filter by name\" "
    "aria-label=\"Filter operators by name\"> <span id=\"ops-count\"></span></p>\n"
    "<div class=\"scroll\"><table id=\"ops\"></table></div></section>\n"
    "<section id=\"kernels\"><h2>Kernels</h2>\n"
    "<p><input id=\"kernels-filter\" type=\"search\" placeholder=\"Filter by name\" "
    "aria-label=\"Filter kernels by name\"> <span id=\"kernels-count\"></span></p>\n"
    "<div class=\"scroll\"><table id=\"kernels-table\"></table></div></section>\n"
    "<section id=\"flame\"><h2>Flame graph: CPU self time</h2>\n"
    "<p class=\"note\">Click a frame to zoom, Search to highlight; the graph is the one "
    "<code>tconv -w flamegraph</code> draws.</p>\n";

/* Under the CPU flame graph: its functions, for an input of stack samples. */
static const char html_functions_part[] =
    "<div id=\"functions\"><h3>Top functions</h3>\n"
    "<p class=\"note\" id=\"functions-note\"></p>\n"
    "<p><input id=\"functions-filter\" type=\"search\" placeholder=\"Filter by name\" "
    "aria-label=\"Filter functions by name\"> <span id=\"functions-count\"></span></p>\n"
    "<div class=\"scroll\"><table id=\"functions-table\"></table></div></div>\n";

static const char html_gpu_section[] =
    "</section>\n<section id=\"flame-gpu-section\"><h2>Flame graph: GPU time by launching "
    "operator</h2>\n"
    "<p class=\"note\">Each kernel, memcpy and memset whose launch is known, on the operators "
    "around its launch (the operators table's call paths, outermost first), as the device "
    "time columns count it.</p>\n";

static const char html_memory_section[] =
    "<section id=\"memory\"><h2>Memory</h2>\n"
    "<p class=\"note\">Allocated and reserved bytes per device, from the trace's memory "
    "events (the rows of <code>tconv -w csv -W table=memory</code>); long series keep the lowest "
    "and highest point of each of 500 slices of the trace.</p>\n"
    "<div id=\"memory-chart\"></div><ul id=\"memory-legend\"></ul></section>\n"
    "<section id=\"ranks\"><h2>Ranks</h2>\n"
    "<p class=\"note\">With several inputs, each one's step-time breakdown alone; the rank "
    "with the longest mean step is marked.</p>\n"
    "<div id=\"ranks-view\"></div></section>\n";

/* A flame graph's SVG as a sandboxed frame of its own. */
static tconv_status html_frame(html_writer *w, const char *id, const char *title,
                               tconv_status (*draw)(html_writer *, csv_buf *, int *))
{
    csv_buf svg = {0};
    int height = 0;
    tconv_status st = draw(w, &svg, &height);
    if (st == TCONV_OK) {
        csv_buf_printf(&w->page,
                       "<iframe id=\"%s\" title=\"%s\" sandbox=\"allow-scripts\" width=\"%d\" "
                       "height=\"%d\" src=\"data:image/svg+xml;base64,",
                       id, title, w->flame_width, height);
        html_base64(&w->page, (const unsigned char *)svg.p, svg.len);
        csv_buf_cstr(&w->page, "\"></iframe>\n");
    }
    csv_buf_free(&svg);
    return st;
}

tconv_status html_page(html_writer *w)
{
    csv_buf *b = &w->page;
    csv_buf_printf(b, html_head, html_script_hash, html_flame_script_hash);
    csv_buf_cstr(b, html_style);
    csv_buf_cstr(b, html_body);
    if (html_frame(w, "flame-cpu", "CPU self time flame graph", html_flame) != TCONV_OK)
        return TCONV_FATAL;
    csv_buf_cstr(b, html_functions_part);
    csv_buf_cstr(b, html_gpu_section);
    if (html_frame(w, "flame-gpu", "GPU time flame graph", html_flame_gpu) != TCONV_OK)
        return TCONV_FATAL;
    csv_buf_cstr(b, "</section>\n");
    csv_buf_cstr(b, html_memory_section);
    csv_buf_cstr(b, "<script type=\"application/json\" id=\"data\">");
    html_data(w, b);
    csv_buf_cstr(b, "</script>\n<script>\n");
    csv_buf_cstr(b, html_script);
    csv_buf_cstr(b, "</script>\n</body>\n</html>\n");
    return csv_buf_flush(b, w->out);
}
