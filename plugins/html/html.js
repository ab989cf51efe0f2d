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

    // "12.345 ms": three decimals above 1 us, rounded half up from the integer as the summary
    // writes durations (summary_dur), so that the page and -w summary say the same.
    function dur(ns) {
        if (ns === null || ns === undefined) return "";
        var a = Math.abs(ns), milli, unit;
        if (a < 1000) return ns + " ns";
        if (a >= 1e9) {
            milli = Math.floor(a / 1e6) + (a % 1e6 >= 5e5 ? 1 : 0);
            unit = " s";
        } else {
            var scale = a >= 1e6 ? 1e6 : 1e3;
            milli = Math.floor((a * 1000 + scale / 2) / scale);
            unit = scale === 1e6 ? " ms" : " us";
        }
        var frac = String(milli % 1000);
        return (ns < 0 ? "-" : "") + Math.floor(milli / 1000) + "." +
            "000".slice(frac.length) + frac + unit;
    }

    // A measured number (a mean, a percentage): at most two decimals, no float noise.
    function num(v) {
        if (typeof v !== "number" || Number.isInteger(v)) return String(v);
        return String(Number(v.toFixed(2)));
    }

    // What each input says of itself (Kineto's distributedInfo and deviceProperties), parsed
    // here: the writer keeps the text as the trace wrote it.
    function parsed(text) {
        if (typeof text !== "string") return null;
        try {
            return JSON.parse(text);
        } catch (e) {
            return null;
        }
    }

    function rankOf(r) {
        var d = parsed(r.distributed) || {};
        var s = r.rank === null ? "" : "rank " + r.rank;
        if (s && typeof d.world_size === "number") s += " of " + d.world_size;
        if (s && typeof d.backend === "string") s += " (" + d.backend + ")";
        return s;
    }

    // The device of number n in input i's deviceProperties: "NVIDIA A100 (40.0 GiB, 108 SMs,
    // compute 8.0)".
    function deviceName(i, n) {
        var r = data.ranks[i], list = r ? parsed(r.devices) : null, d = null;
        if (!Array.isArray(list)) return "";
        list.forEach(function (x) {
            if (x && x.id === n) d = x;
        });
        if (!d || typeof d.name !== "string") return "";
        var facts = [];
        if (typeof d.totalGlobalMem === "number") facts.push(bytes(d.totalGlobalMem));
        if (typeof d.numSms === "number") facts.push(d.numSms + " SMs");
        if (typeof d.computeMajor === "number")
            facts.push("compute " + d.computeMajor + "." + (d.computeMinor || 0));
        return d.name + (facts.length ? " (" + facts.join(", ") + ")" : "");
    }

    // As the summary's percentages (summary_fmt.c): a share that is not 0 but would show as
    // 0.0% keeps its first digit.
    function pct(part, whole) {
        if (!(whole > 0)) return "-";
        var p = 100 * part / whole;
        if (p > 0 && p < 0.001) return "<0.001%";
        return (p > 0 && p < 0.05 ? p.toPrecision(1) : p.toFixed(1)) + "%";
    }

    function show(id, on) {
        var e = document.getElementById(id);
        if (e) e.classList.toggle("hidden", !on);
    }

    // A bar of the step roles' shares of whole, one part per role.
    function roleBar(values, whole, cls) {
        var bar = el("div", null, cls || "bar");
        values.forEach(function (v, i) {
            var part = el("div", null, "r" + i);
            part.style.width = (whole > 0 ? 100 * v / whole : 0) + "%";
            part.title = data.steps.roles[i][0] + ": " + dur(v) + " (" + pct(v, whole) + ")";
            bar.appendChild(part);
        });
        return bar;
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
        // the job and its devices, as the inputs say them
        var ranks = data.ranks.map(rankOf).filter(function (x) {
            return x;
        });
        if (ranks.length) row(ranks.length > 1 ? "Ranks" : "Rank", ranks.join("; "));
        var names = {};
        data.gpus.forEach(function (g) {
            if (g.number === undefined) return;
            var n = deviceName(g.input, g.number);
            if (n) names[n] = (names[n] || 0) + 1;
        });
        var devs = Object.keys(names).map(function (n) {
            return (names[n] > 1 ? names[n] + " x " : "") + n;
        });
        if (devs.length) row(devs.length > 1 ? "Devices" : "Device", devs.join("; "));
        var st = data.steps;
        var what = st.what === "steps" ? "steps" : "ProfilerStep#";
        var steps = "none: no ProfilerStep# in the trace (name your steps with --step-name NAME)";
        if (st.found) {
            steps = st.used + (st.used !== st.found ? " of " + st.found : "") + " " + what;
            if (data.ranks.length > 1) {
                steps += " in " + st.inputs + " input" + (st.inputs === 1 ? "" : "s") +
                    "; mean over them of each one's mean step " + dur(st.mean);
                if (st.slowest !== null) {
                    var slow = data.ranks[st.slowest];
                    steps += "; slowest " + (slow.rank !== null ? "rank " + slow.rank +
                        " (input " + slow.input + ")" : "input " + slow.input) + ", " +
                        dur(slow.mean);
                }
            } else {
                steps += ", mean " + dur(st.mean);
            }
        }
        row("Steps", steps);
        row("Operators", data.ops.rows.length + (data.ops.pytorch ? " PyTorch operators" :
            " span names"));
        if (data.kernels.length) row("Kernels", data.kernels.length + " distinct");
        if (data.functions)
            row("Stack samples", data.functions.rows.length + " functions, " +
                amount(data.functions.total, data.functions.unit) + " " + data.functions.type);

        show("steps-part", st.used > 0);
        if (st.used) {
            var box = document.getElementById("steps");
            var bar = roleBar(st.roles.map(function (r) {
                return r[1];
            }), st.mean);
            bar.setAttribute("role", "img");
            bar.setAttribute("aria-label", "mean step time by kind");
            var t = el("table", null, "legend");
            t.id = "steps-legend";
            st.roles.forEach(function (r, i) {
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
            eachStep();
        }

        show("gpus-part", data.gpus.length > 0);
        if (data.gpus.length) {
            var named = data.gpus.map(function (d) {
                return d.number === undefined ? "" : deviceName(d.input, d.number);
            });
            var any = named.some(function (n) {
                return n;
            });
            var cols = [["device", "text"]].concat(any ? [["name", "text"]] : [],
                [["kernel busy", "ns"], ["utilisation", "text"], ["kernels", "int"],
                 ["kernel time", "ns"], ["memcpy", "int"], ["memcpy time", "ns"],
                 ["memset", "int"], ["memset time", "ns"]]);
            table(document.getElementById("gpus"), cols, data.gpus.map(function (d, i) {
                return [d.label].concat(any ? [named[i]] : [],
                    [d.busy, pct(d.busy, span), d.kernels, d.kernel_time, d.memcpy,
                     d.memcpy_time, d.memset, d.memset_time]);
            }), "gpus-table", null);
        }

        var ul = document.getElementById("advice");
        if (!data.advice.length) ul.appendChild(el("li", "Nothing stands out.", "empty"));
        data.advice.forEach(function (a) {
            ul.appendChild(el("li", a));
        });
    }

    // Every step of every input: its time, as a bar of its roles scaled to the longest step.
    function eachStep() {
        var several = data.ranks.length > 1, longest = 0, rows = [];
        data.ranks.forEach(function (r) {
            r.steps.forEach(function (s) {
                if (s[2] > longest) longest = s[2];
                rows.push([r, s]);
            });
        });
        var t = el("table", null, "steps");
        t.id = "steps-table";
        var head = el("tr");
        (several ? ["rank", "input"] : []).concat(["step", "start", "time", "breakdown"])
            .forEach(function (h) {
                head.appendChild(el("th", h, h === "step" || h === "breakdown" ? "text" : null));
            });
        var thead = el("thead"), tbody = el("tbody");
        thead.appendChild(head);
        t.appendChild(thead);
        rows.forEach(function (x) {
            var r = x[0], s = x[1], tr = el("tr");
            if (several) {
                tr.appendChild(el("td", r.rank === null ? "-" : r.rank));
                tr.appendChild(el("td", r.input));
            }
            tr.appendChild(el("td", s[0], "text"));
            var start = el("td", "+" + dur(s[1]));
            start.setAttribute("data-v", String(s[1]));
            tr.appendChild(start);
            var d = el("td", dur(s[2]));
            d.setAttribute("data-v", String(s[2]));
            tr.appendChild(d);
            var c = el("td", null, "text");
            var bar = roleBar(s.slice(3), s[2], "bar thin");
            bar.style.width = (longest > 0 ? 100 * s[2] / longest : 0) + "%";
            c.appendChild(bar);
            tr.appendChild(c);
            tbody.appendChild(tr);
        });
        t.appendChild(tbody);
        var box = el("div", null, "scroll short");
        box.appendChild(t);
        document.getElementById("steps-each").appendChild(box);
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
        } else if (type === "num") {
            td = el("td", num(v));
            td.setAttribute("data-v", String(v));
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
            if (c[3]) th.setAttribute("data-col", c[3]);
            if (c[4]) th.classList.add(c[4]);
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
                if (c[4]) td.classList.add(c[4]);
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
        if (!box) return; // no CPU flame graph, which it sits under
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
              [["name", "text", null, "name"], ["category", "text", null, "category"],
               ["calls", "int", null, "calls"], ["host total", "ns", null, "host_total_ns"],
               ["host self", "ns", null, "host_self_ns"], ["host min", "ns", null, "host_min_ns"],
               ["host max", "ns", null, "host_max_ns"],
               ["device total", "ns", null, "device_total_ns"],
               ["device self", "ns", null, "device_self_ns"]],
              data.ops.rows, null, ["ops-filter", "ops-count"]);
        // columns no row fills: the device times of spans that are no PyTorch operators, and
        // categories where the trace names none
        if (!dev) document.getElementById("ops").classList.add("no-device");
        if (!data.ops.rows.some(function (r) {
            return r[1] !== "";
        })) document.getElementById("ops").classList.add("no-category");
        var kt = document.getElementById("kernels-table");
        if (!kt) return;
        // name and who launched it first, then the numbers; the launch details are a click
        // away, so that the table fits its column. The launcher cell names the operator with
        // the most of the kernel's time, the others in its title. Each column says which csv
        // column it is (data-col).
        function launchers(r) {
            return r.launchers.map(function (o) {
                return (o[0] === null ? "(no operator)" : o[0]) + ": " + dur(o[2]) + " (" + o[1] +
                    " calls)";
            }).join("\n");
        }
        table(kt,
              [["name", "text", null, "name"], ["launched by", "text", launchers, "launched_by"],
               ["calls", "int", null, "calls"], ["total", "ns", null, "total_ns"],
               ["min", "ns", null, "min_ns"], ["max", "ns", null, "max_ns"],
               ["grid", "text", null, "grid"], ["block", "text", null, "block"],
               ["occupancy %", "num", null, "est_occupancy_pct"],
               ["registers", "int", null, "registers_per_thread", "detail"],
               ["shared memory", "int", null, "shared_memory", "detail"],
               ["blocks per SM", "num", null, "blocks_per_sm", "detail"],
               ["tensor core", "text", null, "tensor_core", "detail"],
               ["configs", "int", null, "launch_configs", "detail"]],
              data.kernels.map(function (k) {
                  var ops = k[13];
                  var by = !ops.length ? "" : (ops[0][0] === null ? "(no operator)" : ops[0][0]) +
                      (ops.length > 1 ? " (+" + (ops.length - 1) + ")" : "");
                  var r = [k[0], by, k[1], k[2], k[3], k[4], k[5], k[6], k[10], k[7], k[8], k[9],
                           k[11] ? "yes" : "no", k[12]];
                  r.launchers = ops;
                  return r;
              }), null, ["kernels-filter", "kernels-count"]);
        var more = document.getElementById("kernels-more");
        more.addEventListener("change", function () {
            kt.classList.toggle("brief", !more.checked);
        });
    }

    function bytes(v) {
        var a = Math.abs(v);
        if (a >= 1073741824) return (v / 1073741824).toFixed(2) + " GiB";
        if (a >= 1048576) return (v / 1048576).toFixed(1) + " MiB";
        if (a >= 1024) return (v / 1024).toFixed(1) + " KiB";
        return v + " B";
    }

    // Axis ticks at round values: steps of 1, 2 or 5 times a power of ten of the unit (bytes:
    // of B, KiB, MiB or GiB; time: of ns), at most about five, the top rounded up to one.
    function niceStep(top, unit) {
        var raw = top / 5, pow = 1;
        while (pow * 10 <= raw / unit) pow *= 10;
        while (pow > raw / unit && pow > 1e-9) pow /= 10;
        var step = pow;
        [1, 2, 5, 10].some(function (m) {
            step = m * pow;
            return m * pow * unit >= raw;
        });
        return step * unit;
    }

    function byteUnit(v) {
        var u = 1;
        while (u < 1073741824 && v >= u * 1024) u *= 1024;
        return u;
    }

    function timeUnit(v) {
        return v >= 1e9 ? 1e9 : v >= 1e6 ? 1e6 : v >= 1e3 ? 1e3 : 1;
    }

    // A tick's label: as few decimals as its step needs.
    function tickText(v, unit, step, names) {
        var d = 0;
        while (d < 3 && Math.abs(Math.round(step / unit * Math.pow(10, d)) -
                                 step / unit * Math.pow(10, d)) > 1e-9) d++;
        return (v / unit).toFixed(d) + " " + names[unit];
    }

    var BYTE_NAMES = {1: "B", 1024: "KiB", 1048576: "MiB", 1073741824: "GiB"};
    var TIME_NAMES = {1: "ns", 1000: "us", 1000000: "ms", 1000000000: "s"};

    // Allocated and reserved bytes over time: one step line per device and measure, each its
    // own colour. A series whose peak is under a thousandth of the chart's top (a CPU series of
    // 8 bytes beside GiB of GPU memory) would be a line on the axis: it is listed, not drawn.
    function memory() {
        var box = document.getElementById("memory-chart");
        if (!box) return;
        var series = data.memory.series;
        var NS = "http://www.w3.org/2000/svg";
        var W = 1200, H = 320, L = 80, R = 40, T = 12, B = 28;
        var span = data.span && data.span[2] > 0 ? data.span[2] : 1, top = 0;
        series.forEach(function (s) {
            s.peak = 0;
            s.points.forEach(function (p) {
                if (p[1] > s.peak) s.peak = p[1];
            });
            if (s.peak > top) top = s.peak;
        });
        var drawn = series.filter(function (s) {
            return s.peak > 0 && s.peak * 1000 >= top;
        });
        var bu = byteUnit(top > 0 ? top : 1), ystep = niceStep(top > 0 ? top : 1, bu);
        top = Math.ceil((top > 0 ? top : 1) / ystep) * ystep;
        var tu = timeUnit(span), xstep = niceStep(span, tu);
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
        for (var v = 0; v <= top + ystep / 2; v += ystep) {
            svg.appendChild(svgEl("text", {x: L - 6, y: y(v) + 4, "text-anchor": "end",
                                           "font-size": 11, "class": "ytick"},
                                  tickText(v, bu, ystep, BYTE_NAMES)));
            svg.appendChild(svgEl("line", {x1: L, x2: W - R, y1: y(v), y2: y(v), stroke: "#eee"}));
        }
        for (var t = 0; t <= span; t += xstep) {
            svg.appendChild(svgEl("text", {x: x(t), y: H - 8, "text-anchor": "middle",
                                           "font-size": 11, "class": "xtick"},
                                  tickText(t, tu, xstep, TIME_NAMES)));
        }
        var colours = ["#4c78a8", "#f58518", "#54a24b", "#e45756", "#b279a2", "#72b7b2",
                       "#eeca3b", "#9d755d", "#ff9da6", "#bab0ac"];
        var legend = document.getElementById("memory-legend"), k = 0;
        series.forEach(function (s) {
            var li = el("li");
            var on = drawn.indexOf(s) >= 0;
            var text = s.label + " " + s.measure + ": peak " + bytes(s.peak) + " (" + s.count +
                " points" + (s.points.length < s.count ? ", " + s.points.length + " drawn" : "") +
                ")";
            if (!on) {
                li.className = "empty";
                li.appendChild(document.createTextNode(text + "; not drawn: under 0.1% of the " +
                                                       "chart's top"));
                legend.appendChild(li);
                return;
            }
            var colour = colours[k++ % colours.length], pts = [], prev = null;
            s.points.forEach(function (p) {
                if (prev !== null) pts.push(x(p[0]).toFixed(1) + "," + y(prev).toFixed(1));
                pts.push(x(p[0]).toFixed(1) + "," + y(p[1]).toFixed(1));
                prev = p[1];
            });
            var line = svgEl("polyline", {points: pts.join(" "), fill: "none", stroke: colour,
                                          "stroke-width": 1.5});
            if (s.measure === "reserved") line.setAttribute("stroke-dasharray", "5,3");
            line.setAttribute("data-label", s.label);
            line.setAttribute("data-measure", s.measure);
            line.setAttribute("data-n", String(s.points.length));
            line.setAttribute("data-max", String(s.peak));
            svg.appendChild(line);
            var sw = el("span", null, "swatch" + (s.measure === "reserved" ? " dashed" : ""));
            sw.style.borderColor = colour;
            sw.style.background = s.measure === "reserved" ? "transparent" : colour;
            li.appendChild(sw);
            li.appendChild(document.createTextNode(text));
            legend.appendChild(li);
        });
        box.appendChild(svg);
    }

    // Each input alone, as its own report breaks its steps down: the mean step and each role's
    // share of it, with a bar scaled to the longest mean step.
    function ranks() {
        var box = document.getElementById("ranks-view");
        if (!box) return;
        var longest = 0;
        data.ranks.forEach(function (r) {
            if (r.mean > longest) longest = r.mean;
        });
        var t = el("table", null, "ranks fit");
        t.id = "ranks-table";
        var head = el("tr");
        var short = ["kernel", "memcpy", "memset", "comm.", "runtime", "loader", "CPU", "other"];
        [["rank", "num"], ["input", "text input"], ["steps", "num"], ["mean step", "mean"]]
            .concat(data.steps.roles.map(function (r, i) {
                return [short[i], "role", r[0] + ": its share of the mean step"];
            }), [["breakdown", "text"]]).forEach(function (h) {
                var th = el("th", h[0], h[1]);
                if (h[2]) th.title = h[2];
                head.appendChild(th);
            });
        var thead = el("thead"), tbody = el("tbody");
        thead.appendChild(head);
        t.appendChild(thead);
        data.ranks.forEach(function (r) {
            var tr = el("tr", null, r.slowest ? "slowest" : null);
            var rk = el("td", r.rank === null ? "-" : r.rank);
            rk.title = rankOf(r);
            tr.appendChild(rk);
            var base = r.name.substring(r.name.lastIndexOf("/") + 1) || r.name;
            var name = el("td", base + (r.slowest ? "  (slowest)" : ""), "text");
            name.title = r.name;
            tr.appendChild(name);
            tr.appendChild(el("td", r.found ? r.used + (r.used !== r.found ? " of " + r.found : "")
                                            : "-"));
            var m = el("td", r.used ? dur(r.mean) : "-");
            m.setAttribute("data-v", String(r.mean));
            tr.appendChild(m);
            r.roles.forEach(function (v) {
                var c = el("td", r.used ? pct(v, r.mean) : "-");
                c.setAttribute("data-v", String(v));
                tr.appendChild(c);
            });
            var cellBar = el("td", null, "text");
            var bar = roleBar(r.roles, r.mean, "bar thin");
            bar.style.width = (longest > 0 ? 100 * r.mean / longest : 0) + "%";
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
