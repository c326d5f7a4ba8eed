"""The release report's look and behaviour: its inline style sheet and its one inline script.

The script sorts a ``table.sortable`` when one of its header buttons is
pressed (mouse, Enter or Space): numerically for a ``th[data-type=number]``
column (by each cell's ``data-sort``), as text otherwise; rows without a
value go last either way, ties keep their order. It sets ``aria-sort`` on the
sorted header and announces the order in the ``#sort-status`` live region.
The page's Content-Security-Policy allows this script by its sha256 hash
only, so any other script (an unescaped string, say) would not run.
"""
from __future__ import annotations

CSS = """
:root{--fg:#1f2328;--muted:#57606a;--line:#d0d7de;--bg2:#f6f8fa;--ok:#1a7f37;--bad:#b42318;--warn:#9a6700;
--accent:#0b4f9c}
*{box-sizing:border-box}
body{margin:0;color:var(--fg);background:#fff;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,
"Liberation Sans","DejaVu Sans",sans-serif}
.page{max-width:1320px;margin:0 auto;padding:0 20px 40px}
header{display:flex;flex-wrap:wrap;gap:12px 32px;align-items:center;justify-content:space-between;
padding:16px 0 10px;border-bottom:1px solid var(--line)}
h1{font-size:26px;margin:0}h2{font-size:19px;margin:28px 0 8px}h3{font-size:15px;margin:16px 0 6px}
.meta{margin:4px 0 0;color:var(--muted)}
.verdict{font-size:30px;font-weight:700;padding:6px 20px;border-radius:8px;border:3px solid}
.verdict.ok{color:var(--ok);border-color:var(--ok);background:#dafbe1}
.verdict.bad{color:var(--bad);border-color:var(--bad);background:#ffebe9}
.verdict.other{color:var(--muted);border-color:var(--muted);background:var(--bg2)}
.verdict small{display:block;font-size:13px;font-weight:400;color:var(--fg)}
.banner{margin:12px 0 0;padding:10px 14px;border-radius:6px;background:#fff8c5;border:2px solid var(--warn);
font-weight:600}
nav ul{display:flex;flex-wrap:wrap;gap:4px 18px;list-style:none;padding:0;margin:10px 0 0}
a{color:var(--accent)}
a:focus-visible,button:focus-visible,summary:focus-visible,.scroll:focus-visible{outline:3px solid #fb8500;
outline-offset:2px}
.scroll{overflow-x:auto;max-width:100%}
table{border-collapse:collapse;margin:4px 0 8px}
caption{text-align:left;color:var(--muted);padding:0 0 4px;caption-side:top}
th,td{border:1px solid var(--line);padding:3px 8px;vertical-align:top;text-align:left}
thead th{background:var(--bg2);vertical-align:bottom}
tbody th{font-weight:600}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
th button{font:inherit;font-weight:600;color:inherit;background:none;border:0;padding:2px 0;cursor:pointer;
text-align:inherit}
thead th[data-type=number]{text-align:right}
th button .arrow::after{content:"\\a0\\2195";color:var(--muted)}
th[aria-sort=ascending] button .arrow::after{content:"\\a0\\25B2";color:var(--fg)}
th[aria-sort=descending] button .arrow::after{content:"\\a0\\25BC";color:var(--fg)}
.tag{font-weight:600}.ok{color:var(--ok)}.bad{color:var(--bad)}.warn{color:var(--warn)}
.ci,.small{color:var(--muted);font-size:12px}.ci{display:block;white-space:nowrap}
ul.checks{margin:0;padding-left:16px}
.charts{display:flex;flex-wrap:wrap;gap:8px 28px}
figure{margin:0}figcaption{font-weight:600;margin:4px 0}
svg.chart{font-size:12px;max-width:100%;height:auto}
svg text{fill:var(--fg)}svg .group{font-weight:700}svg .tick,svg .value{fill:var(--muted)}
svg .bar{fill:#4a78c2}svg .ci{stroke:var(--fg);stroke-width:1.5;fill:none}
svg .grid{stroke:var(--line)}svg .chance{stroke:var(--bad);stroke-dasharray:4 3}
table.heat td{text-align:right;min-width:46px;font-variant-numeric:tabular-nums}
table.heat td.diag{outline:2px solid var(--fg);outline-offset:-2px}
dl{display:grid;grid-template-columns:max-content auto;gap:2px 14px;margin:6px 0}dt{color:var(--muted)}dd{margin:0}
pre{background:var(--bg2);padding:8px;white-space:pre-wrap;overflow-wrap:anywhere}
.missing{color:var(--muted)}.lic{white-space:nowrap}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
.skip{position:absolute;left:-999px}.skip:focus{left:8px;top:8px;background:#fff;padding:4px 8px;z-index:1}
"""

SCRIPT = """
(function () {
  "use strict";
  var status = document.getElementById("sort-status");
  function key(cell, numeric) {
    var raw = cell.hasAttribute("data-sort") ? cell.getAttribute("data-sort") : cell.textContent.trim();
    if (raw === "") { return null; }
    if (!numeric) { return raw; }
    var n = parseFloat(raw);
    return isNaN(n) ? null : n;
  }
  function sort(table, th) {
    var numeric = th.getAttribute("data-type") === "number";
    var ascending = th.getAttribute("aria-sort") !== "ascending";
    var body = table.tBodies[0];
    var rows = Array.prototype.map.call(body.rows, function (row, i) {
      return {row: row, i: i, k: key(row.cells[th.cellIndex], numeric)};
    });
    rows.sort(function (a, b) {
      if (a.k === null || b.k === null) {  /* rows without a value go last either way */
        return a.k === b.k ? a.i - b.i : (a.k === null ? 1 : -1);
      }
      var c = numeric ? a.k - b.k : a.k.localeCompare(b.k, "en", {numeric: true});
      return (ascending ? c : -c) || a.i - b.i;
    });
    rows.forEach(function (r) { body.appendChild(r.row); });
    Array.prototype.forEach.call(table.querySelectorAll("thead th[aria-sort]"), function (h) {
      h.removeAttribute("aria-sort");
    });
    th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
    status.textContent = "Sorted by " + th.textContent.trim() + (ascending ? ", ascending" : ", descending");
  }
  Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), function (table) {
    Array.prototype.forEach.call(table.querySelectorAll("thead th button"), function (button) {
      button.addEventListener("click", function () { sort(table, button.parentNode); });
    });
  });
}());
"""
