// benchlab report: draws the charts of index.html with plotly.js (loaded before this file).
// The specs are JSON in <script id="benchlab-charts" type="application/json">, read with
// JSON.parse: data, never code. Charts on the first screen are drawn at once, the others
// one per task afterwards (those scrolled into view first), so that a report of a hundred
// benchmarks is readable as soon as it opens instead of after every chart is drawn.
(function () {
  "use strict";
  var specs = JSON.parse(document.getElementById("benchlab-charts").textContent);
  var config = {responsive: true, displaylogo: false};
  var elements = Array.prototype.slice.call(document.querySelectorAll(".chart"));
  // Read by the tests and bench/report_load.py: how many charts, how many drawn, and when.
  var state = window.benchlab = {charts: elements.length, drawn: 0, failed: 0, startMs: performance.now(),
                                 firstScreenMs: null, allDrawnMs: null};

  function finished() {
    if (state.drawn + state.failed === state.charts && state.allDrawnMs === null) {
      state.allDrawnMs = performance.now();
    }
  }

  function draw(element) {
    element.setAttribute("data-state", "drawing");
    var spec = specs[element.id];
    return Plotly.newPlot(element, spec.data, spec.layout, config).then(function () {
      element.setAttribute("data-state", "drawn");
      state.drawn += 1;
      finished();
    }, function (error) {
      element.setAttribute("data-state", "failed");
      state.failed += 1;
      console.error("benchlab report: chart " + element.id + " failed: " + error);
      finished();
    });
  }

  function onScreen(element) {
    var box = element.getBoundingClientRect();
    return box.bottom > 0 && box.top < window.innerHeight;
  }

  function waiting(element) {
    return !element.hasAttribute("data-state");
  }

  function drawNext() {
    var next = elements.filter(waiting);
    if (next.length === 0) return;
    draw(next.filter(onScreen)[0] || next[0]).then(function () { setTimeout(drawNext, 0); });
  }

  Promise.all(elements.filter(onScreen).map(draw)).then(function () {
    state.firstScreenMs = performance.now();
    finished();
    setTimeout(drawNext, 0);
  });
})();
