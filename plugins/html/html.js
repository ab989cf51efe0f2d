// The report's views, built from the JSON data in the page. Every name comes from the trace,
// which is untrusted: it is only ever put in the page with textContent, never parsed as markup.
"use strict";
(function () {
    var data = JSON.parse(document.getElementById("data").textContent);

    function el(tag, text, cls) {
        var e = document.createElement(tag);
        if (text !== undefined && text !== null) e.textContent = String(text);
        if (cls) e.className = cls;
        return e;
    }

    // "12.345 ms": three decimals above 1 us, as the summary writes durations.
    function dur(ns) {
        if (ns === null || ns === undefined) return "";
        var a = Math.abs(ns);
        if (a < 1000) return ns + " ns";
        if (a < 1e6) return (ns / 1e3).toFixed(3) + " us";
        if (a < 1e9) return (ns / 1e6).toFixed(3) + " ms";
        return (ns / 1e9).toFixed(3) + " s";
    }

    function pct(part, whole) {
        return whole > 0 ? (100 * part / whole).toFixed(1) + "%" : "-";
    }

    function overview() {
        document.getElementById("title").textContent = data.title;
        document.getElementById("inputs").textContent = data.inputs.join(", ");
        var dl = document.getElementById("trace");
        function row(k, v) {
            dl.appendChild(el("dt", k));
            dl.appendChild(el("dd", v));
        }
        var span = data.span ? data.span[2] : 0;
        row("Trace span", data.span ? dur(span) + " (" + data.span[0] + " .. " + data.span[1] +
            " ns)" : "- (no timestamps)");
        var st = data.steps;
        row("Steps", st.found ? st.used + (st.used !== st.found ? " of " + st.found : "") +
            " ProfilerStep#, mean " + dur(st.mean) : "none (no ProfilerStep# in the trace)");
        row("Operators", data.ops.rows.length + (data.ops.pytorch ? " PyTorch operators" :
            " span names"));
        row("Kernels", data.kernels.length + " distinct");
        if (data.functions)
            row("Stack samples", data.functions.rows.length + " functions, " +
                amount(data.functions.total, data.functions.unit) + " " + data.functions.type);

        var box = document.getElementById("steps");
        if (!st.used) {
            box.appendChild(el("p", "No step breakdown: the trace has no ProfilerStep#.", "empty"));
        } else {
            var bar = el("div", null, "bar");
            bar.setAttribute("role", "img");
            bar.setAttribute("aria-label", "mean step time by kind");
            var t = el("table", null, "legend");
            st.roles.forEach(function (r, i) {
                var part = el("div", null, "r" + i);
                part.style.width = (st.mean > 0 ? 100 * r[1] / st.mean : 0) + "%";
                part.title = r[0] + ": " + dur(r[1]) + " (" + pct(r[1], st.mean) + ")";
                bar.appendChild(part);
                var tr = el("tr");
                var name = el("td", null, "text");
                name.appendChild(el("span", null, "swatch r" + i));
                name.appendChild(document.createTextNode(r[0]));
                tr.appendChild(name);
                var v = el("td", dur(r[1]));
                v.setAttribute("data-v", String(r[1]));
                tr.appendChild(v);
                tr.appendChild(el("td", pct(r[1], st.mean)));
                t.appendChild(tr);
            });
            box.appendChild(bar);
            box.appendChild(t);
        }

        var g = document.getElementById("gpus");
        if (!data.gpus.length) {
            g.appendChild(el("p", "No GPU work in the trace.", "empty"));
        } else {
            table(g, [["device", "text"], ["kernel busy", "ns"], ["utilisation", "text"],
                      ["kernels", "int"], ["kernel time", "ns"], ["memcpy", "int"],
                      ["memcpy time", "ns"], ["memset", "int"], ["memset time", "ns"]],
                  data.gpus.map(function (d) {
                      return [d.label, d.busy, pct(d.busy, span), d.kernels, d.kernel_time,
                              d.memcpy, d.memcpy_time, d.memset, d.memset_time];
                  }), "gpus-table", null);
        }

        var ul = document.getElementById("advice");
        if (!data.advice.length) ul.appendChild(el("li", "Nothing stands out.", "empty"));
        data.advice.forEach(function (a) {
            ul.appendChild(el("li", a));
        });
    }

    function cell(v, type) {
        var td;
        if (v === null) {
            td = el("td", "");
        } else if (type === "ns") {
            td = el("td", dur(v));
            td.setAttribute("data-v", String(v));
        } else if (type === "bytes") {
            td = el("td", bytes(v));
            td.setAttribute("data-v", String(v));
        } else if (type === "text") {
            td = el("td", v, "text");
            td.title = String(v);
        } else {
            td = el("td", String(v));
            td.setAttribute("data-v", String(v));
        }
        return td;
    }

    // A table whose header sorts by its column (again: the other way); rows keep their data.
    function table(parent, cols, rows, id, filter) {
        var t = parent.tagName === "TABLE" ? parent : el("table");
        if (t !== parent) parent.appendChild(t);
        if (id) t.id = id;
        var head = el("tr"), trs = [], sorted = -1, desc = false;
        cols.forEach(function (c, i) {
            var th = el("th", c[0], c[1] === "text" ? "text" : null);
            th.addEventListener("click", function () {
                desc = sorted === i ? !desc : c[1] !== "text";
                sorted = i;
                sortBy(i, desc);
                Array.prototype.forEach.call(head.children, function (h, j) {
                    h.classList.toggle("sorted-asc", j === i && !desc);
                    h.classList.toggle("sorted-desc", j === i && desc);
                });
            });
            head.appendChild(th);
        });
        var thead = el("thead"), tbody = el("tbody");
        thead.appendChild(head);
        t.appendChild(thead);
        t.appendChild(tbody);
        rows.forEach(function (r, k) {
            var tr = el("tr");
            tr.row = r;
            tr.order = k;
            cols.forEach(function (c, i) {
                var td = cell(r[i], c[1]);
                if (c[2]) td.title = c[2](r);
                tr.appendChild(td);
            });
            trs.push(tr);
            tbody.appendChild(tr);
        });
        function sortBy(i, down) {
            trs.sort(function (a, b) {
                var x = a.row[i], y = b.row[i], c;
                if (x === y) c = 0;
                else if (x === null) c = -1;
                else if (y === null) c = 1;
                else if (typeof x === "string") c = x < y ? -1 : 1;
                else c = x < y ? -1 : 1;
                if (down) c = -c;
                return c || a.order - b.order;
            });
            trs.forEach(function (tr) {
                tbody.appendChild(tr);
            });
        }
        if (filter) {
            var box = document.getElementById(filter[0]), count = document.getElementById(filter[1]);
            var apply = function () {
                var q = box.value.toLowerCase(), shown = 0;
                trs.forEach(function (tr) {
                    var hide = q !== "" && String(tr.row[0]).toLowerCase().indexOf(q) < 0;
                    tr.classList.toggle("hidden", hide);
                    if (!hide) shown++;
                });
                count.textContent = shown + " of " + trs.length + " rows";
            };
            box.addEventListener("input", apply);
            apply();
        }
        return t;
    }

    // A value of a sample type: a time as a duration, bytes as bytes, a count as it is.
    function amount(v, unit) {
        if (unit === "nanoseconds") return dur(v);
        if (unit === "bytes") return bytes(v);
        return String(v);
    }

    // The profile's functions, flat and cumulative, as go tool pprof -top lists them.
    function functions() {
        var f = data.functions, box = document.getElementById("functions");
        if (!f) {
            box.hidden = true;
            return;
        }
        var type = f.unit === "nanoseconds" ? "ns" : f.unit === "bytes" ? "bytes" : "int";
        document.getElementById("functions-note").textContent =
            "Each function's flat " + f.type + " (the samples whose stack ends in it) and " +
            "cumulative " + f.type + " (the samples whose stack holds it), out of " +
            amount(f.total, f.unit) + ", as go tool pprof -top counts them.";
        table(document.getElementById("functions-table"),
              [["function", "text"], ["flat", type], ["flat %", "text"], ["cumulative", type],
               ["cumulative %", "text"]],
              f.rows.map(function (r) {
                  return [r[0], r[1], pct(r[1], f.total), r[2], pct(r[2], f.total)];
              }), null, ["functions-filter", "functions-count"]);
    }

    function tables() {
        var dev = data.ops.pytorch;
        table(document.getElementById("ops"),
              [["name", "text"], ["category", "text"], ["calls", "int"], ["host total", "ns"],
               ["host self", "ns"], ["host min", "ns"], ["host max", "ns"],
               ["device total", "ns"], ["device self", "ns"]],
              data.ops.rows, null, ["ops-filter", "ops-count"]);
        if (!dev) document.getElementById("ops").classList.add("no-device");
        // the last column: the operator with the most of the kernel's time, the others in its title
        table(document.getElementById("kernels-table"),
              [["name", "text"], ["calls", "int"], ["total", "ns"], ["min", "ns"], ["max", "ns"],
               ["grid", "text"], ["block", "text"], ["registers", "int"], ["shared memory", "int"],
               ["blocks per SM", "num"], ["est. occupancy %", "num"], ["tensor core", "text"],
               ["launch configs", "int"], ["launched by", "text", function (r) {
                   return r.launchers.map(function (o) {
                       return (o[0] === null ? "(no operator)" : o[0]) + ": " + dur(o[2]) +
                           " (" + o[1] + " calls)";
                   }).join("\n");
               }]],
              data.kernels.map(function (k) {
                  var r = k.slice(0, 13), ops = k[13];
                  r[11] = k[11] ? "yes" : "no";
                  r.push(!ops.length ? "" : (ops[0][0] === null ? "(no operator)" : ops[0][0]) +
                         (ops.length > 1 ? " (+" + (ops.length - 1) + ")" : ""));
                  r.launchers = ops;
                  return r;
              }), null, ["kernels-filter", "kernels-count"]);
    }

    function bytes(v) {
        var a = Math.abs(v);
        if (a >= 1073741824) return (v / 1073741824).toFixed(2) + " GiB";
        if (a >= 1048576) return (v / 1048576).toFixed(1) + " MiB";
        if (a >= 1024) return (v / 1024).toFixed(1) + " KiB";
        return v + " B";
    }

    // Allocated and reserved bytes over time: one step line per device and measure.
    function memory() {
        var box = document.getElementById("memory-chart");
        var series = data.memory.series;
        if (!series.length) {
            box.appendChild(el("p", "No memory events in the trace (the PyTorch profiler " +
                               "records them with profile_memory=True).", "empty"));
            return;
        }
        var NS = "http://www.w3.org/2000/svg";
        var W = 1200, H = 320, L = 80, R = 40, T = 12, B = 28;
        var span = data.span && data.span[2] > 0 ? data.span[2] : 1, top = 0;
        series.forEach(function (s) {
            s.points.forEach(function (p) {
                if (p[1] > top) top = p[1];
            });
        });
        if (top <= 0) top = 1;
        function svgEl(tag, attrs, text) {
            var e = document.createElementNS(NS, tag);
            Object.keys(attrs).forEach(function (k) {
                e.setAttribute(k, String(attrs[k]));
            });
            if (text !== undefined) e.textContent = text;
            return e;
        }
        function x(t) {
            return L + (W - L - R) * t / span;
        }
        function y(v) {
            return T + (H - T - B) * (1 - v / top);
        }
        var svg = svgEl("svg", {width: W, height: H, viewBox: "0 0 " + W + " " + H,
                                role: "img", "aria-label": "memory over time"});
        svg.appendChild(svgEl("rect", {x: L, y: T, width: W - L - R, height: H - T - B,
                                       fill: "#fafafa", stroke: "#ccc"}));
        for (var i = 0; i <= 4; i++) {
            var v = top * i / 4, t = span * i / 4;
            svg.appendChild(svgEl("text", {x: L - 6, y: y(v) + 4, "text-anchor": "end",
                                           "font-size": 11}, bytes(Math.round(v))));
            svg.appendChild(svgEl("line", {x1: L, x2: W - R, y1: y(v), y2: y(v), stroke: "#eee"}));
            svg.appendChild(svgEl("text", {x: x(t), y: H - 8, "text-anchor": "middle",
                                           "font-size": 11}, dur(Math.round(t))));
        }
        var colours = ["#4c78a8", "#e45756", "#54a24b", "#f58518", "#b279a2", "#72b7b2",
                       "#eeca3b", "#9d755d"];
        var legend = document.getElementById("memory-legend"), devices = {};
        series.forEach(function (s) {
            if (!(s.label in devices)) devices[s.label] = Object.keys(devices).length;
            var colour = colours[devices[s.label] % colours.length], pts = [], prev = null, peak = 0;
            s.points.forEach(function (p) {
                if (prev !== null) pts.push(x(p[0]).toFixed(1) + "," + y(prev).toFixed(1));
                pts.push(x(p[0]).toFixed(1) + "," + y(p[1]).toFixed(1));
                prev = p[1];
                if (p[1] > peak) peak = p[1];
            });
            var line = svgEl("polyline", {points: pts.join(" "), fill: "none", stroke: colour,
                                          "stroke-width": 1.5});
            if (s.measure === "reserved") line.setAttribute("stroke-dasharray", "5,3");
            line.setAttribute("data-label", s.label);
            line.setAttribute("data-measure", s.measure);
            line.setAttribute("data-n", String(s.points.length));
            line.setAttribute("data-max", String(peak));
            svg.appendChild(line);
            var li = el("li");
            var sw = el("span", null, "swatch");
            sw.style.background = colour;
            li.appendChild(sw);
            li.appendChild(document.createTextNode(s.label + " " + s.measure + ": peak " +
                bytes(peak) + " (" + s.count + " points" +
                (s.points.length < s.count ? ", " + s.points.length + " drawn" : "") + ")"));
            legend.appendChild(li);
        });
        box.appendChild(svg);
    }

    // Step time per rank: one bar per input, scaled to the longest mean step.
    function ranks() {
        var box = document.getElementById("ranks-view");
        if (data.ranks.length < 2) {
            box.appendChild(el("p", "One input: give several (the ranks of a job) to compare " +
                               "them.", "empty"));
            return;
        }
        var longest = 0;
        data.ranks.forEach(function (r) {
            if (r.mean > longest) longest = r.mean;
        });
        var t = el("table", null, "ranks");
        t.id = "ranks-table";
        var head = el("tr");
        ["rank", "input", "steps", "mean step", "breakdown"].forEach(function (h, i) {
            head.appendChild(el("th", h, i === 1 || i === 4 ? "text" : null));
        });
        var thead = el("thead"), tbody = el("tbody");
        thead.appendChild(head);
        t.appendChild(thead);
        data.ranks.forEach(function (r) {
            var tr = el("tr", null, r.slowest ? "slowest" : null);
            tr.appendChild(el("td", r.rank === null ? "-" : r.rank));
            tr.appendChild(el("td", r.name + (r.slowest ? "  (slowest)" : ""), "text"));
            tr.appendChild(el("td", r.used + (r.used !== r.found ? " of " + r.found : "")));
            var m = el("td", r.used ? dur(r.mean) : "-");
            m.setAttribute("data-v", String(r.mean));
            tr.appendChild(m);
            var cellBar = el("td", null, "text");
            var bar = el("div", null, "bar");
            bar.style.width = (longest > 0 ? 100 * r.mean / longest : 0) + "%";
            r.roles.forEach(function (v, i) {
                var part = el("div", null, "r" + i);
                part.style.width = (r.mean > 0 ? 100 * v / r.mean : 0) + "%";
                part.title = data.steps.roles[i][0] + ": " + dur(v);
                bar.appendChild(part);
            });
            cellBar.appendChild(bar);
            tr.appendChild(cellBar);
            tbody.appendChild(tr);
        });
        t.appendChild(tbody);
        box.appendChild(t);
    }

    overview();
    tables();
    functions();
    memory();
    ranks();
    document.body.setAttribute("data-ready", "1");
})();
