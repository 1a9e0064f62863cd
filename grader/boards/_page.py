"""The static page: one self-contained index.html (inline CSS and JS, the snapshot embedded as JSON).

The browser does no statistics: the script only lays out the snapshot's precomputed numbers (tables, and SVG
bars for CIs and rank ranges).  Data enter the DOM as text nodes, never as HTML.
"""

from __future__ import annotations

import html
from typing import Any

from ._snapshot import canonical_json
from ._text import header_lines, render_text

CSS = """
body{font-family:system-ui,sans-serif;margin:2rem;color:#222;max-width:72rem}
h1{font-size:1.5rem}h2{font-size:1.2rem;margin-top:2rem}h3{font-size:1rem}
table{border-collapse:collapse;margin:.5rem 0}th,td{border:1px solid #ccc;padding:.25rem .5rem;text-align:left}
th{background:#f3f3f3}td.num{text-align:right;font-variant-numeric:tabular-nums}
.range{display:block;font-size:.75rem;color:#666}.pass{background:#d9f2d9}.fail{background:#f6d5d5}
.part{background:#fbeec5}.muted{color:#666;font-size:.85rem}svg{display:block;margin:.5rem 0}
"""

SCRIPT = r"""
(function () {
  "use strict";
  var S = JSON.parse(document.getElementById("snapshot").textContent);
  var root = document.getElementById("app");
  function el(tag, text, cls) {
    var e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = String(text);
    if (cls) e.className = cls;
    return e;
  }
  function pct(x) { return (100 * x).toFixed(1) + "%"; }
  function svgEl(tag, attrs) {
    var e = document.createElementNS("http://www.w3.org/2000/svg", tag);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    return e;
  }
  function boardTable(board, withTime, scoresOnly) {
    var t = el("table"), head = el("tr");
    var cols = ["rank", "model", "score", "95% CI", "CI method"];
    if (!scoresOnly) cols.push("attempts");
    if (withTime && !scoresOnly) cols = cols.concat(["time per task", "cost per task"]);
    cols.forEach(function (c) { head.appendChild(el("th", c)); });
    t.appendChild(head);
    board.models.forEach(function (m) {
      var tr = el("tr"), rank = el("td", m.rank, "num");
      rank.appendChild(el("span", m.rank_range[0] + "\u2013" + m.rank_range[1], "range"));
      tr.appendChild(rank);
      tr.appendChild(el("td", m.model));
      var sc = el("td", pct(m.score), "num");
      sc.appendChild(ciBar(m.ci, m.score));
      tr.appendChild(sc);
      tr.appendChild(el("td", pct(m.ci[0]) + " \u2013 " + pct(m.ci[1]), "num"));
      tr.appendChild(el("td", m.ci_method));
      if (!scoresOnly) tr.appendChild(el("td", m.passes + "/" + m.attempts, "num"));
      if (withTime && !scoresOnly) {
        var tm = m.time_per_task_seconds;
        tr.appendChild(el("td", tm === null || tm === undefined ? "\u2013" : tm.toFixed(2) + " s", "num"));
        var c = m.cost_per_task_usd;
        tr.appendChild(el("td", typeof c === "number" ? "$" + c.toFixed(4) : "N/A", "num"));
      }
      t.appendChild(tr);
    });
    (board.refused || []).forEach(function (r) {
      var tr = el("tr");
      tr.appendChild(el("td", "\u2013"));
      tr.appendChild(el("td", r.model));
      var td = el("td", "not ranked: " + r.reason, "muted");
      td.colSpan = cols.length - 2;
      tr.appendChild(td);
      t.appendChild(tr);
    });
    return t;
  }
  function ciBar(ci, score) {
    var w = 120, s = svgEl("svg", {width: w, height: 10, role: "img"});
    s.appendChild(svgEl("rect", {x: 0, y: 4, width: w, height: 2, fill: "#eee"}));
    s.appendChild(svgEl("rect", {x: ci[0] * w, y: 2, width: Math.max(1, (ci[1] - ci[0]) * w), height: 6,
                                 fill: "#7aa6d8"}));
    s.appendChild(svgEl("rect", {x: score * w - 1, y: 0, width: 2, height: 10, fill: "#123"}));
    return s;
  }
  function plot(board, title, value, lo, hi, max, label) {
    var rows = board.models, h = 24 * rows.length + 40, w = 640, left = 220, width = w - left - 20;
    var s = svgEl("svg", {width: w, height: h, role: "img", "aria-label": title});
    var ttl = svgEl("title", {}); ttl.textContent = title; s.appendChild(ttl);
    var ticks = max === 1 ? 4 : Math.max(1, max - 1);  // scores: quarters; ranks: whole ranks only
    for (var g = 0; g <= ticks; g++) {
      var x = left + width * g / ticks, v = max === 1 ? pct(g / 4) : String(1 + g);
      s.appendChild(svgEl("line", {x1: x, y1: 10, x2: x, y2: h - 20, stroke: "#ddd"}));
      var tx = svgEl("text", {x: x, y: h - 5, "font-size": 10, "text-anchor": "middle"});
      tx.textContent = v;
      s.appendChild(tx);
    }
    rows.forEach(function (m, i) {
      var y = 20 + 24 * i;
      var scale = function (v) { return left + width * (max === 1 ? v : (v - 1) / Math.max(1, max - 1)); };
      var name = svgEl("text", {x: left - 8, y: y + 4, "font-size": 11, "text-anchor": "end"});
      name.textContent = m.model;
      s.appendChild(name);
      s.appendChild(svgEl("line", {x1: scale(lo(m)), y1: y, x2: scale(hi(m)), y2: y, stroke: "#3b6ea8",
                                   "stroke-width": 6}));
      s.appendChild(svgEl("circle", {cx: scale(value(m)), cy: y, r: 4, fill: "#111"}));
    });
    var box = el("div"); box.appendChild(el("h3", title)); box.appendChild(s);
    if (label) box.appendChild(el("p", label, "muted"));
    return box;
  }
  function section(title) { var s = el("section"); s.appendChild(el("h2", title)); root.appendChild(s); return s; }

  var st = S.statistics, title = S.edition ? "Edition " + S.edition.name : "All recorded results";
  root.appendChild(el("h1", "grader board \u2014 " + title));
  root.appendChild(el("p", S.summary.counted_attempts + " counted attempts, " + S.summary.public_tasks +
    " public tasks" + (S.summary.heldout ? " and a held-out board" : "") + "; " + st.replicates +
    " bootstrap replicates, seed " +
    st.root_seed + ", " + st.algorithm + ", numpy " + st.numpy + ".", "muted"));

  var overall = S.boards.overall;
  var main = section("Main board");
  if (overall) {
    main.appendChild(boardTable(overall, true));
    main.appendChild(el("p", "Rank range under each rank; time per task over the " + overall.time_tasks +
      " tasks every ranked model completed.", "muted"));
    var priced = Object.keys(S.prices || {});
    main.appendChild(el("p", priced.length ? "Cost from list prices (USD per million tokens, in/out): " +
      priced.map(function (k) { var p = S.prices[k]; return k + " " + p.input_per_mtok + "/" + p.output_per_mtok +
        (p.as_of ? " as of " + p.as_of : ""); }).join("; ") + "." :
      "No list prices were given: cost shows N/A.", "muted"));
    main.appendChild(plot(overall, "Score with 95% CI", function (m) { return m.score; },
      function (m) { return m.ci[0]; }, function (m) { return m.ci[1]; }, 1));
    var maxRank = Math.max(1, overall.models.length);
    main.appendChild(plot(overall, "Rank with 95% rank range", function (m) { return m.rank; },
      function (m) { return m.rank_range[0]; }, function (m) { return m.rank_range[1]; }, maxRank));
  }
  if (overall && overall.pairwise && overall.pairwise.length) {
    var pw = section("Pairwise differences (overall)"), pt = el("table"), ph = el("tr");
    ["model A", "model B", "A \u2212 B", "95% CI", "order"].forEach(function (c) { ph.appendChild(el("th", c)); });
    pt.appendChild(ph);
    overall.pairwise.forEach(function (p) {
      var tr = el("tr");
      tr.appendChild(el("td", p.a)); tr.appendChild(el("td", p.b));
      tr.appendChild(el("td", (100 * p.difference).toFixed(1) + " pts", "num"));
      tr.appendChild(el("td", (100 * p.ci[0]).toFixed(1) + " to " + (100 * p.ci[1]).toFixed(1), "num"));
      tr.appendChild(el("td", p.resolved ? p.ahead + " ahead" : "not resolved", p.resolved ? "pass" : "muted"));
      pt.appendChild(tr);
    });
    pw.appendChild(pt);
    pw.appendChild(el("p", "Difference of scores with its paired-bootstrap 95% CI (same replicates as the board); " +
      "an order is resolved when the interval excludes zero.", "muted"));
  }
  var cat = section("Category and tier boards");
  Object.keys(S.boards).sort().forEach(function (k) {
    if (k === "overall") return;
    cat.appendChild(el("h3", k));
    cat.appendChild(boardTable(S.boards[k], true));
  });
  var ho = section("Held-out board");
  if (S.heldout) ho.appendChild(boardTable(S.heldout, false, true));
  else ho.appendChild(el("p", "No held-out results in this edition.", "muted"));

  var cap = section("Capability resolution");
  Object.keys(S.capability_resolution).sort().forEach(function (k) {
    cap.appendChild(el("h3", k));
    cap.appendChild(boardTable(S.capability_resolution[k], false));
  });

  var pm = section("Pass matrix (public tasks)"), mt = el("table"), hr = el("tr");
  hr.appendChild(el("th", "task"));
  S.pass_matrix.models.forEach(function (m) { hr.appendChild(el("th", m)); });
  mt.appendChild(hr);
  S.pass_matrix.tasks.forEach(function (t, i) {
    var tr = el("tr"); tr.appendChild(el("td", t.task_id));
    S.pass_matrix.models.forEach(function (m) {
      var c = S.pass_matrix.cells[m][i];
      var cls = c[1] === 0 ? "" : (c[0] === c[1] ? "pass" : (c[0] === 0 ? "fail" : "part"));
      tr.appendChild(el("td", c[1] === 0 ? "\u2013" : c[0] + "/" + c[1], "num " + cls));
    });
    mt.appendChild(tr);
  });
  pm.appendChild(mt);

  var fu = section("Failure funnel");
  ["public"].forEach(function (which) {
    var f = S.funnel[which], names = Object.keys(f).sort();
    if (!names.length) return;
    fu.appendChild(el("h3", "Public tasks"));
    var t = el("table"), h = el("tr");
    var stageName = function (s) { return s === "passed" ? "passed" : "first failed " + s; };
    ["model", "attempts"].concat(S.funnel.stages.map(stageName))
      .forEach(function (c) { h.appendChild(el("th", c)); });
    t.appendChild(h);
    names.forEach(function (m) {
      var tr = el("tr"); tr.appendChild(el("td", m === "*all*" ? "all models" : m));
      tr.appendChild(el("td", f[m].attempts, "num"));
      S.funnel.stages.forEach(function (s) { tr.appendChild(el("td", pct(f[m].shares[s]), "num")); });
      t.appendChild(tr);
    });
    fu.appendChild(t);
  });
  document.body.setAttribute("data-rendered", "yes");
})();
"""


def render_page(snapshot: dict[str, Any]) -> str:
    """The page: a header that needs no script (what the boards are of), every board as text for a browser without
    JavaScript, and the script that lays out the snapshot's tables and charts."""
    data = canonical_json(snapshot).strip().replace("<", "\\u003c")  # no "</script>" can close the data block
    header = "".join(f"<p class=\"muted\">{html.escape(line)}</p>" for line in header_lines(snapshot, width=None))
    text = html.escape("\n".join(render_text(snapshot)))
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">"
            f"<title>grader board</title><style>{CSS}</style></head><body>"
            f"<header id=\"about\">{header}</header><noscript><pre>{text}</pre></noscript><div id=\"app\"></div>"
            f"<script type=\"application/json\" id=\"snapshot\">{data}</script>"
            f"<script>{SCRIPT}</script></body></html>\n")
