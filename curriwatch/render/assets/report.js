/* curriwatch HTML report: builds the uPlot charts from the JSON block #cw-data.
 * Strings from the logs (env ids, run names, incident types) are only ever set as text
 * (uPlot's legend uses textContent too). Charts are built when they come near the viewport; the
 * first one at once. window.curriwatch is the page's API (and the tests' hook). */
(function () {
  "use strict";
  var body = document.body;
  window.addEventListener("error", function (e) {
    body.dataset.errors = (body.dataset.errors ? body.dataset.errors + "; " : "") + String(e.message);
  });
  var DATA = JSON.parse(document.getElementById("cw-data").textContent);
  var C = DATA.colours;
  var FONT = "12px system-ui, -apple-system, 'Segoe UI', Roboto, 'DejaVu Sans', sans-serif";
  var BOLD = "600 " + FONT;
  var GLYPH = {critical: "\u2716", warning: "\u25B2", info: "\u25CF"};
  var smoothing = 0;
  var built = [];          // chart index -> {u, smooth()} once built
  var firstDrawn = null, scriptDone = false, resolveReady;
  var ready = new Promise(function (resolve) { resolveReady = resolve; });

  // --- numbers -----------------------------------------------------------------------------------
  var sig4 = new Intl.NumberFormat("en-US", {maximumSignificantDigits: 4});
  var whole = new Intl.NumberFormat("en-US", {maximumFractionDigits: 0});
  function decimals(x) {
    for (var d = 0; d < 10; d++) {
      var m = Math.abs(x) * Math.pow(10, d);
      if (Math.abs(m - Math.round(m)) < 1e-6 * Math.max(1, m)) return d;
    }
    return 10;
  }
  function trim(s) { return s.indexOf(".") < 0 ? s : s.replace(/0+$/, "").replace(/\.$/, ""); }
  /** A tick label: 1k, 2.5k, 1.2M, -150, 0.05 (html.py's compact() is the same function). */
  function tick(v, incr) {
    if (v == null) return "";
    if (Math.abs(v) < Math.abs(incr) * 1e-6) return "0";
    var units = [[1e9, "B"], [1e6, "M"], [1e3, "k"]];
    for (var i = 0; i < units.length; i++) {
      if (Math.abs(v) >= units[i][0]) return trim((v / units[i][0]).toFixed(Math.min(decimals(incr / units[i][0]), 6))) + units[i][1];
    }
    var d = decimals(incr);
    return d > 6 ? v.toPrecision(2) : trim(v.toFixed(d));
  }
  function value(v) { return v == null ? "--" : isFinite(v) ? sig4.format(v) : String(v); }
  function stepText(s) { return s == null ? "--" : whole.format(s); }

  // --- data --------------------------------------------------------------------------------------
  function union(lists) {
    var all = [];
    lists.forEach(function (l) { for (var i = 0; i < l.length; i++) all.push(l[i]); });
    all.sort(function (a, b) { return a - b; });
    var out = [];
    for (var i = 0; i < all.length; i++) if (i === 0 || all[i] !== all[i - 1]) out.push(all[i]);
    return out;
  }
  function align(xs, steps, values) {
    var out = new Array(xs.length).fill(null), j = 0;
    for (var i = 0; i < steps.length; i++) {
      while (xs[j] < steps[i]) j++;
      out[j] = values[i];
    }
    return out;
  }
  /** TensorBoard's smoothing: a debiased exponential moving average over the drawn points. */
  function ema(values, w) {
    var out = new Array(values.length), last = 0, n = 0;
    for (var i = 0; i < values.length; i++) {
      var v = values[i];
      if (v == null || !isFinite(v)) { out[i] = null; continue; }
      last = last * w + (1 - w) * v;
      n++;
      out[i] = last / (1 - Math.pow(w, n));
    }
    return out;
  }
  function rgba(hex, a) {
    var n = parseInt(hex.slice(1), 16);
    return "rgba(" + (n >> 16) + "," + ((n >> 8) & 255) + "," + (n & 255) + "," + a + ")";
  }

  // --- shared chart parts ------------------------------------------------------------------------
  var measure = document.createElement("canvas").getContext("2d");
  measure.font = FONT;
  function textWidth(s) { return measure.measureText(s).width; }

  function axisSize(u, values, axisIdx, cycle) {
    var axis = u.axes[axisIdx];
    if (cycle > 1) return axis._size;
    var longest = (values || []).reduce(function (a, v) { return v.length > a.length ? v : a; }, "");
    return Math.ceil(axis.ticks.size + axis.gap + textWidth(longest) + 4);
  }
  function axes(metric) {
    var common = {font: FONT, labelFont: BOLD, stroke: "#374151", labelSize: 18,
                  grid: {stroke: "#eef0f3", width: 1}, ticks: {stroke: "#d1d5db", width: 1, size: 4},
                  values: function (u, splits, ai, space, incr) { return splits.map(function (v) { return tick(v, incr); }); }};
    return [Object.assign({}, common, {label: "step", space: 70, size: 24}),
            Object.assign({}, common, {label: metric, size: axisSize, space: 36})];
  }
  function seriesValue(u, v, si, idx) {
    if (v == null || idx == null) return "--";
    var at = u.data[0][idx], cursorStep = u.cursor.idx == null ? null : u.data[0][u.cursor.idx];
    return value(v) + (at !== cursorStep ? " @ " + stepText(at) : "");
  }
  /** The hover reach of each series: a series shows its nearest point when it lies within 24 px or
   * within 0.6 of the series' own median spacing (sparse evals stay readable), never across a gap
   * larger than that (a locked stretch, an eval gap): no stale points. */
  function hoverProx(gaps) {
    return function (u, si) {
      var s = u.scales.x, perStep = (u.over.clientWidth || 1) / Math.max(s.max - s.min, 1e-9);
      return Math.max(24, 0.6 * (gaps[si] || 0) * perStep);
    };
  }
  function medianGap(steps) {
    if (steps.length < 2) return 0;
    var d = [];
    for (var i = 1; i < steps.length; i++) d.push(steps[i] - steps[i - 1]);
    d.sort(function (a, b) { return a - b; });
    return d[d.length >> 1];
  }
  function line(label, stroke, width, extra) {
    return Object.assign({label: label, stroke: stroke, width: width, spanGaps: true, value: seriesValue,
                          points: {show: false}}, extra || {});
  }

  /** Zoom and pan besides uPlot's drag-to-zoom and double-click reset: Ctrl/Alt + wheel zooms
   * around the pointer, Shift + wheel or a sideways wheel pans, Shift + drag pans, keys on the
   * focused chart (arrows pan, + and - zoom, 0 / Escape / Home reset). Never beyond the data. */
  function interactions(u, el, full) {
    function setX(min, max) {
      var span = full[1] - full[0], w = Math.max(max - min, Math.min(span, Math.max(span * 1e-4, 2)));
      if (w >= span) { min = full[0]; max = full[1]; } else {
        min = Math.min(Math.max(min, full[0]), full[1] - w);
        max = min + w;
      }
      u.setScale("x", {min: min, max: max});
    }
    function zoomAt(at, f) {
      var s = u.scales.x;
      setX(at - (at - s.min) * f, at + (s.max - at) * f);
    }
    function pan(px) {
      var s = u.scales.x, d = px * (s.max - s.min) / (u.over.clientWidth || 1);
      setX(s.min + d, s.max + d);
    }
    u.over.addEventListener("wheel", function (e) {
      if (e.ctrlKey || e.altKey || e.metaKey) {
        e.preventDefault();
        var at = u.posToVal(e.clientX - u.over.getBoundingClientRect().left, "x");
        zoomAt(at, Math.pow(1.0015, Math.max(-300, Math.min(300, e.deltaY))));
      } else if (e.shiftKey || Math.abs(e.deltaX) > Math.abs(e.deltaY)) {
        e.preventDefault();
        pan(e.deltaX || e.deltaY);
      }
    }, {passive: false});
    u.over.parentNode.addEventListener("mousedown", function (e) {
      el.focus({preventScroll: true});
      if (!e.shiftKey || e.button !== 0) return;
      e.stopPropagation();  // capture phase: uPlot's own drag-to-zoom never starts
      e.preventDefault();
      var x0 = e.clientX, s0 = {min: u.scales.x.min, max: u.scales.x.max};
      function move(ev) {
        var d = (ev.clientX - x0) * (s0.max - s0.min) / (u.over.clientWidth || 1);
        setX(s0.min - d, s0.max - d);
      }
      function up() { document.removeEventListener("mousemove", move); document.removeEventListener("mouseup", up); }
      document.addEventListener("mousemove", move);
      document.addEventListener("mouseup", up);
    }, true);
    el.addEventListener("keydown", function (e) {
      var s = u.scales.x, mid = (s.min + s.max) / 2, w = u.over.clientWidth || 1;
      if (e.key === "ArrowLeft") pan(-0.2 * w);
      else if (e.key === "ArrowRight") pan(0.2 * w);
      else if (e.key === "+" || e.key === "=") zoomAt(mid, 0.7);
      else if (e.key === "-" || e.key === "_") zoomAt(mid, 1 / 0.7);
      else if (e.key === "0" || e.key === "Escape" || e.key === "Home") setX(full[0], full[1]);
      else return;
      e.preventDefault();
    });
    return setX;
  }

  function chartSize(el) {
    var width = Math.max(200, Math.floor(el.clientWidth));
    return {width: width, height: window.innerWidth < 640 ? 240 : 300};
  }

  // --- incidents drawn on an env chart -------------------------------------------------------------
  var LANE = 18, MARK_ROW = 16;
  function incidentLayout(spec, plotWidth) {
    // lanes so that no two incidents (with their labels) of one lane overlap at the full x range;
    // zooming in only spreads them further apart, so the lanes hold at every zoom
    var range = spec.range, scale = plotWidth / Math.max(range[1] - range[0], 1);
    var items = spec.incidents.map(function (inc, i) {
      var w = (textWidth(inc.label) + 18) / scale;
      var a = Math.min(inc.first, range[1] - w);
      return {i: i, a: Math.min(a, inc.first), b: Math.max(inc.last, a + w)};
    }).sort(function (p, q) { return p.a - q.a; });
    var ends = [], lanes = new Array(spec.incidents.length);
    items.forEach(function (it) {
      var l = ends.findIndex(function (e) { return e < it.a; });
      if (l < 0) { l = ends.length; ends.push(0); }
      ends[l] = it.b;
      lanes[it.i] = l;
    });
    return {lanes: lanes, count: ends.length};
  }
  function stripHeight(spec, layout) {
    return 6 + (spec.graduation != null ? MARK_ROW : 0) + layout.count * LANE;
  }
  function glyph(ctx, severity, x, y, r) {
    ctx.beginPath();
    if (severity === "critical") {
      ctx.moveTo(x - r, y - r); ctx.lineTo(x + r, y + r); ctx.moveTo(x + r, y - r); ctx.lineTo(x - r, y + r);
      ctx.stroke();
    } else if (severity === "warning") {
      ctx.moveTo(x, y - r); ctx.lineTo(x + r, y + r); ctx.lineTo(x - r, y + r); ctx.closePath(); ctx.fill();
    } else {
      ctx.arc(x, y, r * 0.8, 0, 2 * Math.PI); ctx.fill();
    }
  }
  function shadeIncidents(u, spec) {
    var ctx = u.ctx, b = u.bbox, p = uPlot.pxRatio;
    ctx.save();
    ctx.beginPath(); ctx.rect(b.left, b.top, b.width, b.height); ctx.clip();
    // each stretch shaded in the colour of the worst incident over it (never a blend of two);
    // every incident keeps its own onset line here and its own lane and label above the plot
    var RANK = {info: 0, warning: 1, critical: 2}, edges = [];
    spec.incidents.forEach(function (inc) {
      var x0 = u.valToPos(inc.first, "x", true), x1 = Math.max(u.valToPos(inc.last, "x", true), x0 + 3 * p);
      edges.push(x0, x1);
    });
    edges = union([edges]);
    for (var k = 0; k + 1 < edges.length; k++) {
      var a = edges[k], z = edges[k + 1], worst = null;
      spec.incidents.forEach(function (inc) {
        var x0 = u.valToPos(inc.first, "x", true), x1 = Math.max(u.valToPos(inc.last, "x", true), x0 + 3 * p);
        if (x0 <= a && x1 >= z && (worst == null || RANK[inc.severity] > RANK[worst])) worst = inc.severity;
      });
      if (worst) { ctx.fillStyle = rgba(C[worst], 0.12); ctx.fillRect(a, b.top, z - a, b.height); }
    }
    spec.incidents.forEach(function (inc) {
      ctx.fillStyle = C[inc.severity];
      ctx.fillRect(u.valToPos(inc.first, "x", true), b.top, p, b.height);  // the onset, sharp
    });
    if (spec.graduation != null) {
      var x = Math.round(u.valToPos(spec.graduation, "x", true));
      ctx.strokeStyle = C.graduation; ctx.lineWidth = 1.5 * p; ctx.setLineDash([5 * p, 4 * p]);
      ctx.beginPath(); ctx.moveTo(x, b.top); ctx.lineTo(x, b.top + b.height); ctx.stroke();
    }
    ctx.restore();
  }
  function labelIncidents(u, spec, layout) {
    // above the plot: the graduation mark, then one lane per overlapping group of incidents
    var ctx = u.ctx, b = u.bbox, p = uPlot.pxRatio, top = b.top - stripHeight(spec, layout) * p;
    ctx.save();
    ctx.font = FONT.replace("12px", 12 * p + "px");
    ctx.textBaseline = "middle";
    ctx.textAlign = "left";
    ctx.beginPath(); ctx.rect(b.left, 0, b.width, b.top); ctx.clip();
    var y = top + 3 * p;
    if (spec.graduation != null) {
      var gx = u.valToPos(spec.graduation, "x", true), text = "graduated " + stepText(spec.graduation);
      var tw = ctx.measureText(text).width;
      ctx.fillStyle = C.graduation; ctx.strokeStyle = C.graduation; ctx.lineWidth = 1.5 * p;
      if (gx >= b.left && gx <= b.left + b.width) {
        ctx.beginPath(); ctx.moveTo(gx, y + 2 * p); ctx.lineTo(gx, b.top); ctx.stroke();
        var tx = gx + 5 * p + tw > b.left + b.width ? gx - 5 * p - tw : gx + 5 * p;
        ctx.fillText(text, tx, y + MARK_ROW * p / 2);
      }
      y += MARK_ROW * p;
    }
    var s = u.scales.x;
    spec.incidents.forEach(function (inc, i) {
      if (inc.last < s.min || inc.first > s.max) return;
      var ly = y + layout.lanes[i] * LANE * p, colour = C[inc.severity];
      var x0 = u.valToPos(inc.first, "x", true), x1 = Math.max(u.valToPos(inc.last, "x", true), x0 + 3 * p);
      ctx.fillStyle = colour;
      ctx.fillRect(Math.max(x0, b.left), ly + (LANE - 4) * p, Math.min(x1, b.left + b.width) - Math.max(x0, b.left), 3 * p);
      var text = inc.label, tw = ctx.measureText(text).width + 14 * p;
      var lx = Math.min(Math.max(x0, b.left), b.left + b.width - tw);
      ctx.strokeStyle = colour; ctx.lineWidth = 2.5 * p; ctx.lineCap = "round";
      glyph(ctx, inc.severity, lx + 5 * p, ly + 7.5 * p, 3.5 * p);
      ctx.fillStyle = "#111827";
      ctx.fillText(text, lx + 12 * p, ly + 7.5 * p);
    });
    ctx.restore();
  }

  // --- the two kinds of chart ----------------------------------------------------------------------
  function envChart(spec, el) {
    var xs = union([spec.train[0], spec.eval[0], spec.range]);
    var series = [{label: "step", value: function (u, v) { return stepText(v); }}], data = [xs];
    var raws = [], smooths = [], used = [], gaps = [0];
    [["train", spec.train, 1], ["eval", spec.eval, 1.5]].forEach(function (s) {
      if (!s[1][0].length) return;
      raws.push(series.length);
      series.push(line(s[0], C[s[0]], s[2], {class: "raw"}));
      data.push(align(xs, s[1][0], s[1][1]));
      gaps.push(medianGap(s[1][0]));
      used.push({colour: C[s[0]], role: "line-" + s[0]});
    });
    raws.forEach(function (ri) {
      var name = series[ri].label, src = name === "train" ? spec.train : spec.eval;
      smooths.push({index: series.length, src: src, raw: ri});
      series.push(line(name + " smoothed", C[name], series[ri].width + 0.5, {class: "smooth", show: false}));
      data.push(xs.map(function () { return null; }));
      gaps.push(gaps[ri]);
    });
    var lv = spec.levels || {};
    [["baseline", "held level (baseline)", C.graduation, null, "line-graduation"],
     ["warning", "warning threshold" + (lv.warning_share != null ? " (" + lv.warning_share + " of gain)" : ""), C.warning, [6, 4], "line-warning"],
     ["critical", "critical threshold" + (lv.critical_share != null ? " (" + lv.critical_share + " of gain)" : ""), C.critical, [3, 3], "line-critical"]
    ].forEach(function (r) {
      if (lv[r[0]] == null) return;
      series.push(line(r[1], r[2], 1, {dash: r[3] || undefined, class: "ref"}));
      data.push(xs.map(function () { return lv[r[0]]; }));
      gaps.push(0);
      used.push({colour: r[2], role: r[4]});
    });
    spec.incidents.forEach(function (inc) { used.push({colour: C[inc.severity], role: "severity-" + inc.severity}); });
    if (spec.graduation != null) used.push({colour: C.graduation, role: "line-graduation"});

    var size = chartSize(el), layout = incidentLayout(spec, size.width - 90);
    var opts = {
      width: size.width, height: size.height, series: series, axes: axes(spec.metric),
      scales: {x: {time: false, range: function (u, min, max) { return [min, max]; }}},
      padding: [function () { return stripHeight(spec, layout); }, 14, 0, 0],
      cursor: {drag: {x: true, y: false, dist: 6}, hover: {prox: hoverProx(gaps), skip: [null, undefined]},
               points: {size: 7}},
      legend: {live: true},
      hooks: {drawClear: [function (u) { shadeIncidents(u, spec); }],
              draw: [function (u) { labelIncidents(u, spec, layout); drawn(u); }]}
    };
    var u = new uPlot(opts, data, el);
    var setX = interactions(u, el, spec.range);
    function smooth() {
      smooths.forEach(function (s) {
        u.data[s.index] = smoothing > 0 ? align(xs, s.src[0], ema(s.src[1], smoothing)) : xs.map(function () { return null; });
        u.series[s.raw].alpha = smoothing > 0 ? 0.3 : 1;
      });
      u.setData(u.data, false);
      smooths.forEach(function (s) { if (u.series[s.index].show !== smoothing > 0) u.setSeries(s.index, {show: smoothing > 0}); });
    }
    function resize() {
      var sz = chartSize(el);
      layout = incidentLayout(spec, sz.width - 90);
      u.setSize(sz);
    }
    return {u: u, smooth: smooth, resize: resize, used: used, setX: setX, spec: spec};
  }

  function acrossChart(spec, el) {
    var members = spec.members.map(function (m) {
      var s = DATA.charts[m.chart], src = s.eval[0].length ? s.eval : s.train;
      return {run: m.run, src: src, range: s.range, split: s.eval[0].length ? "eval" : "train"};
    });
    var xs = union(members.map(function (m) { return m.src[0]; }));
    var series = [{label: "step", value: function (u, v) { return stepText(v); }}], data = [xs], used = [], gaps = [0];
    members.forEach(function (m, i) {
      gaps.push(medianGap(m.src[0]));
      var colour = DATA.palette[i % DATA.palette.length];
      series.push(line(m.run + " (" + m.split + ")", colour, 1.5, {dash: i >= DATA.palette.length ? [6, 3] : undefined}));
      data.push(align(xs, m.src[0], m.src[1]));
      used.push({colour: colour, role: "run", name: m.run});
    });
    var full = [Math.min.apply(null, members.map(function (m) { return m.range[0]; })),
                Math.max.apply(null, members.map(function (m) { return m.range[1]; }))];
    if (xs.length && (xs[0] > full[0] || xs[xs.length - 1] < full[1])) {
      xs = union([xs, full]);
      data = [xs].concat(members.map(function (m) { return align(xs, m.src[0], m.src[1]); }));
    }
    var size = chartSize(el);
    var u = new uPlot({
      width: size.width, height: size.height, series: series, axes: axes(spec.metric),
      scales: {x: {time: false, range: function (u, min, max) { return [min, max]; }}},
      padding: [10, 14, 0, 0],
      cursor: {drag: {x: true, y: false, dist: 6}, hover: {prox: hoverProx(gaps), skip: [null, undefined]}, points: {size: 7}},
      legend: {live: true},
      hooks: {draw: [drawn]}
    }, data, el);
    var setX = interactions(u, el, full);
    function smooth() {
      members.forEach(function (m, i) {
        u.data[i + 1] = align(xs, m.src[0], smoothing > 0 ? ema(m.src[1], smoothing) : m.src[1]);
      });
      u.setData(u.data, false);
    }
    return {u: u, smooth: smooth, resize: function () { u.setSize(chartSize(el)); }, used: used, setX: setX, spec: spec};
  }

  // --- building, lazily ------------------------------------------------------------------------------
  var plots = Array.prototype.slice.call(document.querySelectorAll("div.plot[data-chart]"));
  function build(el) {
    var i = +el.dataset.chart;
    if (built[i]) return built[i];
    var spec = DATA.charts[i];
    var chart = (spec.kind === "across" ? acrossChart : envChart)(spec, el);
    built[i] = chart;
    el.classList.add("drawn");
    if (smoothing > 0) chart.smooth();
    return chart;
  }
  function drawn() {
    if (firstDrawn == null) {
      firstDrawn = performance.now();
      settle();
    }
  }
  function settle() {
    if (scriptDone && (firstDrawn != null || !plots.length)) {
      body.dataset.readyMs = String(Math.round(firstDrawn != null ? firstDrawn : performance.now()));
      resolveReady();
    }
  }
  var observer = "IntersectionObserver" in window ? new IntersectionObserver(function (entries) {
    entries.forEach(function (e) {
      if (e.isIntersecting) { observer.unobserve(e.target); build(e.target); }
    });
  }, {rootMargin: "800px 0px"}) : null;
  if (plots.length) build(plots[0]);
  plots.slice(1).forEach(function (el) { if (observer) observer.observe(el); else build(el); });

  var resizeTimer = null;
  window.addEventListener("resize", function () {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(function () { built.forEach(function (c) { if (c) c.resize(); }); }, 100);
  });

  var slider = document.getElementById("smoothing"), shown = document.getElementById("smoothing-value");
  function setSmoothing(w) {
    smoothing = Math.max(0, Math.min(0.99, +w || 0));
    if (slider) slider.value = String(smoothing);
    if (shown) shown.textContent = smoothing.toFixed(2);
    body.classList.toggle("smoothed", smoothing > 0);
    built.forEach(function (c) { if (c) c.smooth(); });
  }
  if (slider) slider.addEventListener("input", function () { setSmoothing(slider.value); });

  window.curriwatch = {
    data: DATA, ready: ready, charts: built, plots: plots, tick: tick, value: value, ema: ema,
    build: function (i) { return build(plots.filter(function (el) { return +el.dataset.chart === i; })[0]); },
    /** Build every chart now (normally they are built as they scroll into view). */
    renderAll: function () { plots.forEach(build); return built.filter(Boolean).length; },
    resizeAll: function () { built.forEach(function (c) { if (c) c.resize(); }); },
    setSmoothing: setSmoothing
  };
  body.dataset.charts = String(plots.length);
  scriptDone = true;
  settle();
})();
