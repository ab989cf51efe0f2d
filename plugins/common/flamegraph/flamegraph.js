// The flame graph's interaction, embedded in every SVG the flamegraph writer produces (inside a
// CDATA section, so this file must never contain the three characters that end one). Frame
// names come from the trace, which is untrusted: they are read from the DOM with textContent
// and written back with textContent only, never parsed as markup nor evaluated.
//
// Each frame is <g data-o="offset" data-v="value"><title>name (value, pct)</title><rect/><text/>
// </g> inside <g id="frames">; offsets and values are exact integers in the graph's unit, which
// is all zooming and searching need. The address keeps the view: ?x=<offset>&y=<rect y> zooms to
// a frame, ?s=<term> searches, ?i=1 ignores case. Search is a text box of the graph's own
// (<input id="term"> in a foreignObject), never a dialog: a graph in a sandboxed frame, as the
// HTML report shows it, may open none, and the matches show as the term is typed.
"use strict";
(function () {
    var svg = document.documentElement;
    var total = +svg.getAttribute("data-total");
    var xpad = +svg.getAttribute("data-xpad");
    var inner = +svg.getAttribute("data-inner");
    var charw = +svg.getAttribute("data-charw");
    var icicle = svg.getAttribute("data-icicle") === "1";
    var frames = [], details, matched, unzoomBtn, box, icBtn; // box: the search box
    var zoomed = null, term = null, ignorecase = false;

    function byId(id) {
        return document.getElementById(id);
    }

    // A frame's label: as many characters of its name as fit, cut with "..".
    function label(f, w) {
        var fit = Math.floor((w - 3) / charw);
        var t = "";
        if (fit >= 3) t = f.chars.length <= fit ? f.name : f.chars.slice(0, fit - 2).join("") + "..";
        f.text.textContent = t;
    }

    function place(f, x, w) {
        f.rect.setAttribute("x", x.toFixed(1));
        f.rect.setAttribute("width", w.toFixed(1));
        f.text.setAttribute("x", (x + 3).toFixed(1));
        label(f, w);
    }

    function setClass(f, hide, parent) {
        f.g.classList.toggle("hide", hide);
        f.g.classList.toggle("parent", parent);
    }

    function updateUrl() {
        var p = new URLSearchParams();
        if (zoomed) {
            p.set("x", String(zoomed.o));
            p.set("y", zoomed.rect.getAttribute("y"));
        }
        if (term !== null) p.set("s", term);
        if (ignorecase) p.set("i", "1");
        var q = p.toString();
        try {
            history.replaceState(null, "", q ? "?" + q : location.pathname);
        } catch (e) {
            // a file:// document may refuse; the view itself is unaffected
        }
    }

    function zoom(z) {
        zoomed = z;
        var scale = inner / z.v;
        for (var i = 0; i < frames.length; i++) {
            var f = frames[i];
            var outside = icicle ? f.y < z.y : f.y > z.y;
            var covers = f.o <= z.o && f.o + f.v >= z.o + z.v;
            if (outside && covers) {
                place(f, xpad, inner);
                setClass(f, false, true);
            } else if (!outside && f.o >= z.o && f.o + f.v <= z.o + z.v) {
                place(f, xpad + (f.o - z.o) * scale, f.v * scale);
                setClass(f, false, false);
            } else {
                setClass(f, true, false);
            }
        }
        unzoomBtn.classList.remove("hide");
        updateUrl();
    }

    function unzoom() {
        zoomed = null;
        var scale = inner / total;
        for (var i = 0; i < frames.length; i++) {
            place(frames[i], xpad + frames[i].o * scale, frames[i].v * scale);
            setClass(frames[i], false, false);
        }
        unzoomBtn.classList.add("hide");
        updateUrl();
    }

    function clearSearch() {
        for (var i = 0; i < frames.length; i++) {
            frames[i].rect.setAttribute("fill", frames[i].fill);
            frames[i].g.classList.remove("match");
        }
        matched.textContent = " ";
        matched.removeAttribute("data-v");
    }

    // Highlight the frames whose name matches t (a regular expression, or plain text when t is
    // not a valid one) and show the share of the total they cover, each time counted once.
    function search(t) {
        clearSearch();
        term = t === null || t === "" ? null : t;
        if (term !== null) {
            var re = null;
            try {
                re = new RegExp(term, ignorecase ? "i" : "");
            } catch (e) {
                re = null;
            }
            var lit = ignorecase ? term.toLowerCase() : term;
            var hits = [];
            for (var i = 0; i < frames.length; i++) {
                var f = frames[i];
                var hit = re ? re.test(f.name)
                             : (ignorecase ? f.name.toLowerCase() : f.name).indexOf(lit) >= 0;
                if (!hit) continue;
                f.rect.setAttribute("fill", "rgb(230,0,230)");
                f.g.classList.add("match");
                hits.push(f);
            }
            hits.sort(function (a, b) {
                return a.o !== b.o ? a.o - b.o : b.v - a.v;
            });
            var sum = 0, end = -1;
            for (var j = 0; j < hits.length; j++) {
                if (hits[j].o < end) continue; // inside a frame already counted
                sum += hits[j].v;
                end = hits[j].o + hits[j].v;
            }
            matched.textContent = "Matched: " + (total > 0 ? (100 * sum / total).toFixed(1) : "0") + "%";
            matched.setAttribute("data-v", String(sum));
        }
        updateUrl();
    }

    function focusSearch() {
        box.focus();
        box.select();
    }

    function resetSearch() {
        box.value = "";
        search(null);
    }

    function frameOf(node) {
        while (node && node !== svg) {
            if (node.__frame) return node.__frame;
            node = node.parentNode;
        }
        return null;
    }

    function init() {
        details = byId("details");
        matched = byId("matched");
        unzoomBtn = byId("unzoom");
        box = byId("term");
        icBtn = byId("ignorecase");
        var gs = byId("frames").children;
        for (var i = 0; i < gs.length; i++) {
            var g = gs[i];
            var title = g.getElementsByTagName("title")[0].textContent;
            var cut = title.lastIndexOf(" (");
            var f = {
                g: g,
                rect: g.getElementsByTagName("rect")[0],
                text: g.getElementsByTagName("text")[0],
                o: +g.getAttribute("data-o"),
                v: +g.getAttribute("data-v"),
                title: title,
                name: cut >= 0 ? title.substring(0, cut) : title,
            };
            f.chars = Array.from(f.name);
            f.y = +f.rect.getAttribute("y");
            f.fill = f.rect.getAttribute("fill");
            g.__frame = f;
            frames.push(f);
        }
        var shown = byId("frames");
        shown.addEventListener("click", function (e) {
            var f = frameOf(e.target);
            if (!f) return;
            if (f.o === 0 && f.v === total && f.y === frames[0].y) unzoom();
            else zoom(f);
        });
        shown.addEventListener("mouseover", function (e) {
            var f = frameOf(e.target);
            if (f) details.textContent = f.title;
        });
        shown.addEventListener("mouseout", function () {
            details.textContent = " ";
        });
        unzoomBtn.addEventListener("click", unzoom);
        box.addEventListener("input", function () {
            search(box.value);
        });
        icBtn.addEventListener("click", function () {
            ignorecase = !ignorecase;
            icBtn.classList.toggle("on", ignorecase);
            if (term !== null) search(term);
            else updateUrl();
        });
        window.addEventListener("keydown", function (e) {
            if (e.keyCode === 114 || ((e.ctrlKey || e.metaKey) && e.keyCode === 70)) {
                e.preventDefault();
                focusSearch();
            } else if (e.keyCode === 27) {
                resetSearch();
            }
        });
        var p = new URLSearchParams(location.search);
        if (p.get("i") === "1") {
            ignorecase = true;
            icBtn.classList.add("on");
        }
        if (p.has("x") && p.has("y")) {
            for (var k = 0; k < frames.length; k++) {
                if (String(frames[k].o) === p.get("x") && frames[k].rect.getAttribute("y") === p.get("y")) {
                    zoom(frames[k]);
                    break;
                }
            }
        }
        if (p.has("s")) {
            box.value = p.get("s");
            search(box.value);
        }
        svg.setAttribute("data-ready", "1");
    }

    window.addEventListener("load", init);
})();
