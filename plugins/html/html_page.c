/* The page: a strict Content-Security-Policy (nothing may be fetched; only inline script and
 * style run), the style, the data as JSON in a <script type="application/json"> element, the
 * flame graph as the flamegraph writer's SVG in a sandboxed frame (a data: URL, so that its
 * own script runs in its own document), and the script that builds the views from the data
 * with textContent only. */
#include <string.h>

#include "flamegraph_tree.h"
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
    "<meta name=\"generator\" content=\"tconv\">\n";

static const char html_overview[] =
    "<section id=\"overview\"><h2>Overview</h2>\n"
    "<dl id=\"trace\"></dl>\n"
    "<div id=\"steps-part\"><h3>Step time breakdown</h3><div id=\"steps\"></div>\n"
    "<h3>Steps</h3><p class=\"note\">Each step as the breakdown counts it: from its start to the "
    "end of the device work it launched.</p><div id=\"steps-each\"></div></div>\n"
    "<div id=\"gpus-part\"><h3>GPU utilisation</h3><div id=\"gpus\"></div></div>\n"
    "<h3>Recommendations</h3><ul id=\"advice\"></ul></section>\n"
    "<section id=\"operators\"><h2>Operators</h2>\n"
    "<p><input id=\"ops-filter\" type=\"search\" placeholder=\"Filter by name\" "
    "aria-label=\"Filter operators by name\"> <span id=\"ops-count\"></span></p>\n"
    "<div class=\"scroll\"><table id=\"ops\"></table></div></section>\n";

static const char html_kernels_section[] =
    "<section id=\"kernels\"><h2>Kernels</h2>\n"
    "<p><input id=\"kernels-filter\" type=\"search\" placeholder=\"Filter by name\" "
    "aria-label=\"Filter kernels by name\"> <span id=\"kernels-count\"></span> "
    "<label><input id=\"kernels-more\" type=\"checkbox\"> launch details (registers, shared "
    "memory, blocks per SM, tensor cores, configurations)</label></p>\n"
    "<div class=\"scroll\"><table id=\"kernels-table\" class=\"fit brief\"></table></div>"
    "</section>\n";

static const char html_cpu_section[] =
    "<section id=\"flame\"><h2>Flame graph: CPU self time</h2>\n"
    "<p class=\"note\">The CPU threads' time (a GPU stream's work is in the GPU graph). Click a "
    "frame to zoom; type in the graph's search box (Ctrl+F) to highlight. The graph is the one "
    "<code>tconv -w flamegraph</code> draws, without its GPU streams.</p>\n";

/* Under the CPU flame graph: its functions, for an input of stack samples. */
static const char html_functions_part[] =
    "<div id=\"functions\"><h3>Top functions</h3>\n"
    "<p class=\"note\" id=\"functions-note\"></p>\n"
    "<p><input id=\"functions-filter\" type=\"search\" placeholder=\"Filter by name\" "
    "aria-label=\"Filter functions by name\"> <span id=\"functions-count\"></span></p>\n"
    "<div class=\"scroll\"><table id=\"functions-table\"></table></div></div>\n";

static const char html_gpu_section[] =
    "<section id=\"flame-gpu-section\"><h2>Flame graph: GPU time by launching operator</h2>\n"
    "<p class=\"note\">Each kernel, memcpy and memset whose launch is known, on the operators "
    "around its launch (the operators table's call paths, outermost first), as the device "
    "time columns count it.</p>\n";

static const char html_memory_section[] =
    "<section id=\"memory\"><h2>Memory</h2>\n"
    "<p class=\"note\">Allocated and reserved bytes per device, from the trace's memory "
    "events (the rows of <code>tconv -w csv -W table=memory</code>); long series keep the lowest "
    "and highest point of each of 500 slices of the trace.</p>\n"
    "<div id=\"memory-chart\"></div><ul id=\"memory-legend\"></ul></section>\n";

static const char html_ranks_section[] =
    "<section id=\"ranks\"><h2>Ranks</h2>\n"
    "<p class=\"note\">Each input alone: its steps, broken down as its own report breaks them "
    "down (<code>tconv -w summary</code> on that input), as shares of its mean step. The rank "
    "with the longest mean step is marked.</p>\n"
    "<div id=\"ranks-view\"></div></section>\n";

/* Text of the page's own markup (the title): the input's name is the user's, still escaped. */
static void html_text(csv_buf *b, const char *s)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '&')
            csv_buf_cstr(b, "&amp;");
        else if (c == '<')
            csv_buf_cstr(b, "&lt;");
        else if (c == '>')
            csv_buf_cstr(b, "&gt;");
        else if (c == '"')
            csv_buf_cstr(b, "&quot;");
        else if (c < 0x20 || c == 0x7f)
            csv_buf_putc(b, ' ');
        else
            csv_buf_putc(b, (char)c);
    }
}

static const char *html_base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash && slash[1] ? slash + 1 : path;
}

/* -W title, else what was converted: the input's file name, two names, or the first and how
 * many more; a tab of the report says which trace it is. */
void html_page_title(html_writer *w, csv_buf *b)
{
    if (w->title) {
        csv_buf_cstr(b, w->title);
        return;
    }
    uint32_t n = tconv_ctx_input_count(w->ctx);
    for (uint32_t i = 0; i < n && i < 2; i++) {
        const char *name = tconv_ctx_input_name(w->ctx, i);
        if (i) csv_buf_cstr(b, n == 2 ? ", " : "");
        if (i && n > 2) {
            csv_buf_printf(b, " and %u more", n - 1);
            break;
        }
        csv_buf_cstr(b, html_base_name(name && *name ? name : "-"));
    }
    if (!n) csv_buf_cstr(b, "tconv report");
}

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

static int64_t html_tree_total(const struct flamegraph_tree *t)
{
    return t ? flamegraph_tree_nodes(t)[0].value : 0;
}

/* Sections without data are left out, with their links: a CPU-only trace has no kernels, no
 * GPU graph, often no memory events, and one input no ranks to compare. */
tconv_status html_page(html_writer *w)
{
    csv_buf *b = &w->page;
    size_t nkernels = 0;
    csv_kernels_rows(w->kernels, &nkernels);
    int kernels = nkernels > 0, cpu = html_tree_total(w->cpu_tree) > 0,
        gpu = html_tree_total(w->gpu_tree) > 0, memory = html_memory_any(w),
        ranks = tconv_ctx_input_count(w->ctx) > 1;

    csv_buf_printf(b, html_head, html_script_hash, html_flame_script_hash);
    w->tmp.len = 0;
    html_page_title(w, &w->tmp);
    csv_buf_putc(&w->tmp, '\0');
    csv_buf_cstr(b, "<title>");
    html_text(b, w->tmp.p);
    csv_buf_cstr(b, " - tconv report</title>\n<style>\n");
    csv_buf_cstr(b, html_style);
    csv_buf_cstr(b, "</style>\n</head>\n<body>\n"
                    "<header><h1 id=\"title\"></h1><p id=\"inputs\"></p>\n"
                    "<nav><a href=\"#overview\">Overview</a> <a href=\"#operators\">Operators</a>");
    if (kernels) csv_buf_cstr(b, " <a href=\"#kernels\">Kernels</a>");
    if (cpu) csv_buf_cstr(b, " <a href=\"#flame\">CPU flame graph</a>");
    if (gpu) csv_buf_cstr(b, " <a href=\"#flame-gpu-section\">GPU flame graph</a>");
    if (memory) csv_buf_cstr(b, " <a href=\"#memory\">Memory</a>");
    if (ranks) csv_buf_cstr(b, " <a href=\"#ranks\">Ranks</a>");
    csv_buf_cstr(b, "</nav></header>\n");
    csv_buf_cstr(b, html_overview);
    if (kernels) csv_buf_cstr(b, html_kernels_section);
    if (cpu) {
        csv_buf_cstr(b, html_cpu_section);
        if (html_frame(w, "flame-cpu", "CPU self time flame graph", html_flame) != TCONV_OK)
            return TCONV_FATAL;
        csv_buf_cstr(b, html_functions_part);
        csv_buf_cstr(b, "</section>\n");
    }
    if (gpu) {
        csv_buf_cstr(b, html_gpu_section);
        if (html_frame(w, "flame-gpu", "GPU time flame graph", html_flame_gpu) != TCONV_OK)
            return TCONV_FATAL;
        csv_buf_cstr(b, "</section>\n");
    }
    if (memory) csv_buf_cstr(b, html_memory_section);
    if (ranks) csv_buf_cstr(b, html_ranks_section);
    csv_buf_cstr(b, "<script type=\"application/json\" id=\"data\">");
    html_data(w, b);
    csv_buf_cstr(b, "</script>\n<script>\n");
    csv_buf_cstr(b, html_script);
    csv_buf_cstr(b, "</script>\n</body>\n</html>\n");
    return csv_buf_flush(b, w->out);
}
