/* zx view: the replay viewer (game-neutral).
 *
 * Reads the page's data (the JSON element #zx-data, written by zx_web/viewer.py), rebuilds the state of
 * every event for the seat shown, and lets the user step through them. The board and the chart's
 * values come from the game's renderer, registered as window.ZXBoards[data.game] by a script
 * shipped with the game package: { render(el, state, ctx), series(state), status(state) }.
 * Nothing here hides anything: the data holds only what the file's seats may see.
 */
(function () {
  "use strict";

  var data = JSON.parse(document.getElementById("zx-data").textContent);
  var board = (window.ZXBoards || {})[data.game];
  var pool = data.pool;
  var paths = data.paths;
  var nPaths = paths.length;
  var last = data.last;
  var turns = data.turns;  // each turn's TurnStarted event (the turn an event is in)
  // where each turn begins, as zx replay --turn N lands: after every event of its turn record (X610Z: a summon whose
  // Time Counter ran out leaves play after its TurnStarted, 209.2f); a file written before it: at its TurnStarted
  var begins = data.begins || turns;
  var $ = function (id) { return document.getElementById(id); };

  var esc = function (s) {
    return String(s == null ? "" : s).replace(/[&<>"']/g, function (c) {
      return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c];
    });
  };

  // ------------------------------------------------------------------ states
  var decoded = {};  // seat -> array of Int32Array (slot -> pool index, -1 = absent), one per event

  function decodeSeat(seat) {
    if (decoded[seat]) return decoded[seat];
    var changes = data.views[seat].changes;
    var cur = new Int32Array(nPaths).fill(-1);
    var out = new Array(changes.length);
    for (var i = 0; i < changes.length; i++) {
      var d = changes[i];
      for (var j = 0; j < d.length; j += 2) cur[d[j]] = d[j + 1];
      out[i] = cur.slice();
    }
    decoded[seat] = out;
    return out;
  }

  function stateOf(seat, seq) {
    var slots = decodeSeat(seat)[seq - 1];
    var root = {};
    for (var p = 0; p < nPaths; p++) {
      var v = slots[p];
      if (v < 0) continue;
      var path = paths[p];
      var node = root;
      for (var k = 0; k < path.length - 1; k++) {
        var key = path[k];
        if (node[key] == null || typeof node[key] !== "object") node[key] = {};
        node = node[key];
      }
      node[path[path.length - 1]] = pool[v];
    }
    return root;
  }

  // ------------------------------------------------------------------ where we are
  var seats = data.seats;
  var seat = leastSeeing();  // opened without a seat in its address: the one that sees least (it opened the judge's)
  var seq = 1;
  var timer = null;
  var rows = [];  // event list rows by seq
  var violations = {};  // seq -> the violations recorded at that event (the seat's view of them)
  var seatLabel = { judge: "judge", P1: "P1", P2: "P2", spectator: "spectator" };
  var seatNote = (board && board.seatNotes) || {  // a game may say it with its own rule numbers
    judge: "sees everything, every hidden card included",
    P1: "sees what P1 may see: the public zones and P1's own hidden cards",
    P2: "sees what P2 may see: the public zones and P2's own hidden cards",
    spectator: "sees the public zones only"
  };

  function stepOf(s) {  // index of the step (log record) holding event s
    var lo = 0, hi = data.steps.length - 1;
    while (lo < hi) {
      var mid = (lo + hi + 1) >> 1;
      if (data.steps[mid][0] <= s) lo = mid; else hi = mid - 1;
    }
    return lo;
  }

  function turnOf(s) {  // turn number at event s (0 before the first turn)
    var n = 0;
    for (var i = 0; i < turns.length && turns[i] <= s; i++) n = i + 1;
    return n;
  }

  // ------------------------------------------------------------------ event list
  function buildList() {  // one HTML string, parsed once: ~10x faster than a node per row
    var v = data.views[seat];
    var ol = $("events");
    var viol = {};
    v.violations.forEach(function (x) { (viol[x[0]] = viol[x[0]] || []).push(x); });
    violations = viol;
    var html = [];
    data.steps.forEach(function (st, i) {
      var line = st[2] == null ? "" : st[2];
      var tag = '<span class="line">' + (line === "" ? "" : "L" + line) + "</span>";
      var skipped = false;  // a record passed over (RecordSkipped): zx replay ends its line so too
      for (var q = st[0]; q <= st[1]; q++) if (pool[data.kinds[q - 1]] === "RecordSkipped") skipped = true;
      html.push('<li class="rec" data-seq="' + st[0] + '" data-line="' + line + '">' + tag + " " +
        esc(pool[v.records[i]]) + (skipped ? " [record not applied]" : "") + "</li>");
      for (var s = st[0]; s <= st[1]; s++) {
        var kind = pool[data.kinds[s - 1]];
        var vs = viol[s] || [];
        var li = '<li class="ev' + (vs.length ? " violation" : "") + '" data-seq="' + s + '" data-line="' + line +
          '" data-kind="' + esc(kind) + '"' + (vs.length ? ' data-rule="' + esc(vs[0][1]) + '"' : "") + ">" +
          '<span class="seq">' + s + '</span><span class="kind">' + esc(kind) + "</span>" + tag +
          '<span class="text"' + (v.fields ? ' title="' + esc(pool[v.fields[s - 1]]) + '"' : "") + ">" +
          esc(pool[v.events[s - 1]]) + "</span>";  // the game's sentence; the judge's: its fields on hover
        vs.forEach(function (x) { li += '<span class="viol">' + esc(violationText(x)) + "</span>"; });
        html.push(li + "</li>");
      }
    });
    ol.innerHTML = html.join("");
    rows = new Array(last + 1);
    var evs = ol.getElementsByClassName("ev");
    for (var k = 0; k < evs.length; k++) rows[+evs[k].dataset.seq] = evs[k];
    currentRow = null;
    $("ev-count").textContent = "(" + last + ", " + v.violations.length + " violation" +
      (v.violations.length === 1 ? "" : "s") + ")";
    buildMarks();
  }

  // ------------------------------------------------------------------ violations on the timeline
  // The events with a violation in the seat's own data (a seat is never told of one its data does not hold),
  // marked under the slider; V and Shift+V (and the two buttons) go to the next and the previous one.
  var violSeqs = [];  // the events with a violation the seat sees, in order
  var marks = {};  // seq -> its mark

  function buildMarks() {
    violSeqs = Object.keys(violations).map(Number).sort(function (a, b) { return a - b; });
    var box = $("viol-marks");
    box.textContent = "";
    marks = {};
    violSeqs.forEach(function (s) {
      var m = document.createElement("span");
      m.className = "viol-mark";
      m.dataset.seq = s;
      var frac = last <= 1 ? 0 : (s - 1) / (last - 1);
      m.style.left = "calc(8px + (100% - 16px) * " + frac + ")";
      m.title = "event " + s + ": " + violations[s].map(violationText).join("; ");
      box.appendChild(m);
      marks[s] = m;
    });
    $("viol-nav").hidden = box.hidden = violSeqs.length === 0;
  }

  $("viol-marks").addEventListener("click", function (e) {
    var m = e.target.closest(".viol-mark");
    if (m) { pause(); go(+m.dataset.seq); }
  });

  function nextViolation() {
    for (var i = 0; i < violSeqs.length; i++) if (violSeqs[i] > seq) return go(violSeqs[i]);
    tell("No violation after event " + seq + ".");
  }

  function prevViolation() {
    for (var i = violSeqs.length - 1; i >= 0; i--) if (violSeqs[i] < seq) return go(violSeqs[i]);
    tell("No violation before event " + seq + ".");
  }

  function tell(text) {  // V with none that way: said, not silence (the same words again: a space more, read again)
    speak(said === text ? text + "\u00a0" : text);
  }

  function showViolations() {  // the buttons' state, the mark of the event shown, its violations in words
    var held = document.activeElement;
    $("prev-viol").disabled = !(violSeqs.length && violSeqs[0] < seq);
    $("next-viol").disabled = !(violSeqs.length && violSeqs[violSeqs.length - 1] > seq);
    // a focused button that disables itself (!▶ at the last violation) dropped the focus to the page, where V and
    // Shift+V do nothing (QA round 31): it goes to the other violation button, else the slider
    if (held && held.disabled && (held.id === "prev-viol" || held.id === "next-viol")) {
      var other = $(held.id === "prev-viol" ? "next-viol" : "prev-viol");
      (other.disabled ? $("slider") : other).focus();
    }
    var here = $("viol-here"), vs = violations[seq] || [];
    here.hidden = vs.length === 0;
    here.textContent = vs.map(function (x) { return "Violation at event " + seq + ": " + violationText(x); }).join(" · ");
    for (var s in marks) marks[s].classList.toggle("here", +s === seq);
  }

  function violationText(x) {  // [seq, rule, player, message, applied]
    return "rule " + x[1] + (x[2] ? " (" + x[2] + ")" : "") + ": " + x[3] + (x[4] ? "" : " [record not applied]");
  }

  $("events").addEventListener("click", function (e) {
    var li = e.target.closest("li");
    if (li && li.dataset.seq) { pause(); go(+li.dataset.seq); }
  });

  function scrollList(li) {  // keep the current row in the part of the list that is on screen
    var ol = $("events");
    var o = ol.getBoundingClientRect(), r = li.getBoundingClientRect();
    var top = Math.max(o.top, 0), bottom = Math.min(o.bottom, window.innerHeight);
    if (bottom - top < 60) bottom = top + 60;  // the list is mostly off screen: keep the row near its top
    if (r.top < top + 8 || r.bottom > bottom - 8)  // measured now, after any layout change since the step
      ol.scrollTop = Math.max(0, ol.scrollTop + (r.top - top) - (bottom - top) / 3);
  }

  // ------------------------------------------------------------------ chart
  var chart = { seat: null, xs: null };
  var SVGNS = "http://www.w3.org/2000/svg";

  function buildChart() {
    var svg = $("chart");
    svg.textContent = "";
    if (!board || !board.series) { $("chart-title").textContent = ""; return; }
    var W = Math.max(300, Math.round(svg.clientWidth || 1200)), H = Math.max(60, Math.round(svg.clientHeight || 96));
    var L = 28, R = 8, T = 8, B = 18;
    svg.setAttribute("viewBox", "0 0 " + W + " " + H);
    var values = [];  // per event: series
    var max = 1, title = "";
    for (var s = 1; s <= last; s++) {
      var ser = board.series(stateOf(seat, s));
      title = ser.title;
      values.push(ser.lines);
      ser.lines.forEach(function (l) { if (l.value > max) max = l.value; });
    }
    $("chart-title").textContent = title + " over turns";
    svg.setAttribute("aria-label", title + " over the turns: " +  // the game's title, the lines' full names
      (values[0] || []).map(function (l) { return l.label; }).join(", "));
    var add = function (name, attrs, text) {
      var el = document.createElementNS(SVGNS, name);
      for (var k in attrs) el.setAttribute(k, attrs[k]);
      if (text != null) el.textContent = text;
      svg.appendChild(el);
      return el;
    };
    // the legend in a column of its own right of the plot, as wide as its longest label (measured), each
    // label after a stroke of its line's style (P2's is dashed: where both players' values are equal, its
    // line is drawn over P1's, which shows between the dashes)
    var KEY = 20, room = 16 + KEY + 4;  // px: the stroke, and all the legend's column takes besides its label
    var legend = (values[0] || []).map(function (l0, k) {
      return add("text", { y: T + 12 + 14 * k, "class": "legend " + l0.key }, l0.label);
    });
    var wide = 0;
    legend.forEach(function (el) { wide = Math.max(wide, el.getComputedTextLength ? el.getComputedTextLength() : 0); });
    R = Math.min(Math.round(W / 3), Math.ceil(wide) + room);
    legend.forEach(function (el, k) {
      var ky = T + 8 + 14 * k;
      add("line", { x1: W - R + 8, x2: W - R + 8 + KEY, y1: ky, y2: ky, "class": "key " + values[0][k].key });
      el.setAttribute("x", W - R + 12 + KEY);
      var full = el.textContent, chars = Array.from(full), lo = 0, hi = chars.length;
      if (!el.getComputedTextLength || el.getComputedTextLength() <= R - room) return;
      while (lo < hi) {  // a longer name than a third of the chart: the longest start that fits, with an ellipsis
        var mid = (lo + hi + 1) >> 1;
        el.textContent = chars.slice(0, mid).join("") + "\u2026";
        if (el.getComputedTextLength() <= R - room) lo = mid; else hi = mid - 1;
      }
      el.textContent = chars.slice(0, lo).join("") + "\u2026";
      var tip = document.createElementNS(SVGNS, "title");  // the whole name on hover (and in the aria-label)
      tip.textContent = full;
      el.appendChild(tip);
    });
    var x = function (s) { return L + (W - L - R) * (last <= 1 ? 0 : (s - 1) / (last - 1)); };
    var y = function (v) { return T + (H - T - B) * (1 - v / max); };
    // a grid line and label every `step` units, at least 14 px apart (Life 0-4 every 1; 0-12 every 5)
    var step = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000].find(function (n) {
      return (H - T - B) * n / max >= 14;
    }) || max;
    for (var v = 0; v <= max; v += step) {
      add("line", { x1: L, x2: W - R, y1: y(v), y2: y(v), "class": "grid" });
      add("text", { x: L - 6, y: y(v) + 4, "class": "axis", "text-anchor": "end" }, v);
    }
    // a turn label every `every` turns: the fewest that keep each label clear of the next one at this
    // width (measured: the widest label, and the pixels between turn starts, which vary with the events)
    var probe = add("text", { x: 0, y: H - 6, "class": "axis" }, "T" + turns.length);
    var labelW = (probe.getComputedTextLength ? probe.getComputedTextLength() : 7 * probe.textContent.length) + 8;
    svg.removeChild(probe);
    var fits = function (n) {
      for (var i = n; i < turns.length; i += n) if (x(turns[i]) - x(turns[i - n]) < labelW) return false;
      return true;
    };
    var every = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000].find(fits) || turns.length;
    turns.forEach(function (t, i) {
      add("line", { x1: x(t), x2: x(t), y1: T, y2: H - B, "class": "turn-tick" });
      if (i % every === 0) add("text", { x: x(t) + 2, y: H - 6, "class": "axis" }, "T" + (i + 1));
    });
    // each line from the first event its value is known at (a board's series gives null before: a player's Life
    // before their set-up), not from a 0 drawn before the match was set up
    (values[0] || []).forEach(function (l0, k) {
      var known = function (s) { var v = values[s - 1][k].value; return v !== null && v !== undefined; };
      var s = 1;
      while (s <= last && !known(s)) s++;
      if (s > last) return;
      var from = s, d = "M" + x(s) + " " + y(values[s - 1][k].value);
      for (s++; s <= last; s++) if (known(s)) d += " H" + x(s) + " V" + y(values[s - 1][k].value);
      add("path", { d: d, "class": "series " + l0.key, "data-key": l0.key, "data-from": from });
    });
    chart.cursor = add("line", { x1: x(1), x2: x(1), y1: T, y2: H - B, "class": "cursor" });
    chart.x = x;
    chart.W = W; chart.L = L; chart.R = R;
    chart.seat = seat;
  }

  var resizing = null;
  window.addEventListener("resize", function () {
    clearTimeout(resizing);
    resizing = setTimeout(function () {
      buildChart();
      if (chart.cursor) { chart.cursor.setAttribute("x1", chart.x(seq)); chart.cursor.setAttribute("x2", chart.x(seq)); }
    }, 150);
  });

  $("chart").addEventListener("click", function (e) {
    var svg = $("chart");
    var r = svg.getBoundingClientRect();
    var fx = (e.clientX - r.left) / r.width * chart.W;
    var s = Math.round((fx - chart.L) / (chart.W - chart.L - chart.R) * (last - 1)) + 1;
    pause();
    go(Math.min(last, Math.max(1, s)));
  });

  // ------------------------------------------------------------------ drawing one position
  var current = null;
  var currentRow = null;
  var scrollPending = false;

  // A game's renderer draws a panel anew when it changes (X610Z: the whole board at each step): a <details> the user
  // opened (the judge's "Deck 40 (judge)") came back closed, and the focus on its summary fell to the page (QA round
  // 32). What is open is kept by player and zone, not by element (one the user closed stays closed), and the focus,
  // if it was on the board, goes back to the same control of the board drawn anew.
  var opened = {};  // "P1 deck" -> open: the user's choice, kept while the zone is not drawn (another seat's view)
  var FOCUSABLE = "summary, a[href], button, input, select, textarea, [tabindex]";

  function detailsKey(d) {
    var p = d.closest("[data-player]");  // (each game's deck is data-zone="deck"; else its place on the board)
    return (p ? p.dataset.player : "") + " " +
      (d.dataset.zone || Array.prototype.indexOf.call($("board").querySelectorAll("details"), d));
  }

  function focusKey(e) {  // the focused control of the board, by its zone and place in it (null: not on the board)
    var el = $("board");
    if (!e || e === el || !el.contains(e)) return null;
    var d = e.closest("details"), within = d || el;
    return [d ? detailsKey(d) : null, Array.prototype.indexOf.call(within.querySelectorAll(FOCUSABLE), e)];
  }

  function keepBoard() {  // before the board is drawn: what is open, and where the focus is
    var ds = $("board").querySelectorAll("details");
    for (var i = 0; i < ds.length; i++) opened[detailsKey(ds[i])] = ds[i].open;
    var held = document.activeElement;
    return { held: held, key: focusKey(held) };
  }

  function restoreBoard(kept) {
    var el = $("board"), ds = el.querySelectorAll("details");
    for (var i = 0; i < ds.length; i++) {
      var k = detailsKey(ds[i]);
      if (k in opened && ds[i].open !== opened[k]) ds[i].open = opened[k];
    }
    if (!kept.key || (kept.held.isConnected && document.activeElement === kept.held)) return;
    var within = el;
    if (kept.key[0] !== null) {
      within = null;
      for (var j = 0; j < ds.length && !within; j++) if (detailsKey(ds[j]) === kept.key[0]) within = ds[j];
    }
    var to = within && within.querySelectorAll(FOCUSABLE)[kept.key[1]];
    if (to) to.focus({ preventScroll: true });  // where it was: the board drawn anew stands where the old one stood
  }

  function draw(quiet) {  // quiet: the status line is left to the caller (a seat chosen says the event with it)
    var state = stateOf(seat, seq);
    current = state;
    var el = $("board");
    var kept = keepBoard();
    if (board) board.render(el, state, { seat: seat, seq: seq, last: last, esc: esc });
    else el.innerHTML = '<p class="no-board">No board renderer for game ' + esc(data.game) + "</p>";
    restoreBoard(kept);
    var st = stepOf(seq);
    var line = data.steps[st][2];
    $("pos").innerHTML = "event <b>" + seq + "</b>/" + last + " · turn <b>" + turnOf(seq) + "</b>/" +
      turns.length + (line == null ? "" : " · line " + line) +
      (board && board.status ? " · " + esc(board.status(state)) : "");
    $("slider").value = seq;
    $("slider").setAttribute("aria-valuetext", "event " + seq + " of " + last + ", turn " + turnOf(seq));
    showViolations();
    if (currentRow) { currentRow.classList.remove("current"); currentRow.removeAttribute("aria-current"); }
    currentRow = rows[seq] || null;
    if (!quiet) say(state);
    if (currentRow) {
      currentRow.classList.add("current");
      currentRow.setAttribute("aria-current", "step");  // for a screen reader: the row of the board shown
      if (!scrollPending) {  // once per frame, when the browser lays out anyway: no forced layout per step
        scrollPending = true;
        var follow = function () {
          if (!scrollPending) return;  // once per step: the list is the user's to scroll afterwards
          scrollPending = false;
          if (currentRow) scrollList(currentRow);
        };
        // on the next frame, when the browser lays out anyway (scrollList measures the row and the list
        // as laid out then); frames may be paused (a hidden tab): then the timer does it
        requestAnimationFrame(follow);
        setTimeout(follow, 100);
      }
    }
    if (chart.cursor) {
      var cx = chart.x(seq);
      chart.cursor.setAttribute("x1", cx);
      chart.cursor.setAttribute("x2", cx);
    }
    writeHash();
  }

  // ------------------------------------------------------------------ what a screen reader is told
  // The board is not a live region (it read 70 to 1,200 characters at each step); the line #said is: the
  // event shown and where it is, in the words of its row in the list (the seat's view: nothing more). A step
  // says it at once; while playing, at most every SAY_GAP ms, and the event where the play stops.
  var SAY_GAP = 1500;
  var said = "", saidAt = 0, sayTimer = null;

  // The event's part of the line is cut to SAY_MAX characters, at a grapheme cluster, ending in "…" (an X610Z
  // cast read its whole entry, stats and counters: over 200 characters at each step); its row in the list stays whole
  var SAY_MAX = 120;
  var segmenter = window.Intl && Intl.Segmenter ? new Intl.Segmenter(undefined, {granularity: "grapheme"}) : null;

  function shortened(text, max) {
    if (text.length <= max) return text;
    var out = "";
    var parts = segmenter ? Array.from(segmenter.segment(text), function (g) { return g.segment; }) : Array.from(text);
    for (var i = 0; i < parts.length && out.length + parts[i].length <= max - 1; i++) out += parts[i];
    return out.replace(/\s+$/, "") + "…";
  }

  function moveText(state) {
    var kind = pool[data.kinds[seq - 1]], text = pool[data.views[seat].events[seq - 1]];
    var status = board && board.status ? board.status(state) : "";
    return shortened("Event " + seq + " of " + last + ", turn " + turnOf(seq) + (status ? ", " + status : "") + ": " +
      kind + (text ? " " + text : ""), SAY_MAX) +
      (violations[seq] || []).map(function (x) { return ". Violation: " + violationText(x); }).join("");
  }

  function say(state) {
    if (timer) {  // playing: the latest event, once the gap since the last one is over
      if (!sayTimer) sayTimer = setTimeout(function () { sayNow(); }, Math.max(0, saidAt + SAY_GAP - Date.now()));
      return;
    }
    sayNow(state);
  }

  function sayNow(state) {
    clearTimeout(sayTimer);
    sayTimer = null;
    var text = moveText(state || current);
    if (text !== said) speak(text);  // written again, the same text would be read again
  }

  function speak(text) {  // the status line a screen reader reads (aria-live), and when it last changed
    said = text;
    saidAt = Date.now();
    $("said").textContent = text;
  }

  function go(s) {
    s = Math.min(last, Math.max(1, Math.round(+s) || 1));
    seq = s;
    draw();
    return seq;
  }

  // ------------------------------------------------------------------ the address (#e=57&as=P1)
  // Chromium ignores history.replaceState beyond 200 in 10 s ("Throttling navigation"): playing or a held
  // key left the address behind the board. Each step writes it at once while fewer than FREE writes were
  // made in the last 10 s (a reload or a copied link right after a few keys named an event the board had
  // left when every write waited); past that, at most every HASH_GAP ms, then once more where the position
  // settles, and at once on pause and when the page goes: at most 2 x 80 writes in any 10 s.
  var FREE = 80, HASH_GAP = 125;
  var hashAt = 0, hashTimer = null, writes = [];
  var ownHashes = [];  // written by location.replace (replaceState failed): their hashchange is ours, not the user's
  var seatLinks = document.querySelectorAll("a.seat-link");  // zx serve: the same moment from another seat

  function writeHash() {
    if (hashTimer) return;  // a write is due: it takes the position of then
    var now = Date.now();
    while (writes.length && now - writes[0] >= 10000) writes.shift();
    if (writes.length < FREE) { flushHash(); return; }
    hashTimer = setTimeout(flushHash, Math.max(0, hashAt + HASH_GAP - now));
  }

  function flushHash() {
    clearTimeout(hashTimer);
    hashTimer = null;
    hashAt = Date.now();
    for (var i = 0; i < seatLinks.length; i++) seatLinks[i].href = seatLinks[i].href.replace(/#.*$/, "") + "#e=" + seq;
    var h = "#e=" + seq + (seats.length > 1 ? "&as=" + seat : "");
    if (h === location.hash) return;
    writes.push(hashAt);
    try { history.replaceState(null, "", h); } catch (err) { ownHashes.push(h); location.replace(h); }
  }

  window.addEventListener("pagehide", flushHash);
  for (var k = 0; k < seatLinks.length; k++) seatLinks[k].addEventListener("click", flushHash);  // a write due: now

  function decode(s) {  // a stray % (#e=50%) is not an error: the part is taken as written
    try { return decodeURIComponent(s); } catch (err) { return s; }
  }

  function readHash() {
    var h = location.hash.replace(/^#/, "");
    var out = {};
    h.split("&").forEach(function (kv) {
      var i = kv.indexOf("=");
      if (i > 0) out[decode(kv.slice(0, i))] = decode(kv.slice(i + 1));
    });
    return out;
  }

  // Back, Forward, a fragment typed or a link followed: the board goes where the address says, whatever the
  // page wrote last (Forward to a fragment it had written itself left the board behind until 2026-11-28)
  window.addEventListener("hashchange", function () {
    var own = ownHashes.indexOf(location.hash);
    if (own >= 0) { ownHashes.splice(0, own + 1); return; }
    var h = readHash();
    var to = h.as ? seatFromAddress(h.as) : seat;
    var changed = to !== seat;
    if (changed) setSeat(to, false);
    if (h.e) go(+h.e);
    else draw();  // #as=P2 alone: that seat's board at the same event; the address is written back in full
    // the seat the address took the board to is said, as one chosen in the Seat box is (until 2026-11-28 Back,
    // Forward or a typed #as= changed it in silence); a refused one says why instead (seatSaid)
    if (changed && !seatAsked) saySeat();
    seatSaid();
  });

  // ------------------------------------------------------------------ seats
  // A seat in the address is read in any case, as zx view --as and zx serve ?as= read it (#as=p2 is P2). A
  // seat the file does not hold (#as=P3, or P2 in a P1 file) opens the seat of the file that sees least
  // (spectator < a player < judge), and the status line says so: never the judge's view for a stray name.
  var SEATS = ["judge", "P1", "P2", "spectator"];
  var SEES = { spectator: 0, P1: 1, P2: 1, judge: 2 };
  var seatAsked = "";  // why the seat shown is not the one the address named (said once, then cleared)

  function leastSeeing() {  // the seat of the file that sees least: spectator, then a player (P1 before P2), then judge
    var see = { spectator: 0, P1: 1, P2: 1, judge: 2 };  // (SEES, before its declaration runs)
    var least = seats[0];
    seats.forEach(function (s) { if (see[s] < see[least]) least = s; });
    return least;
  }

  function seatFromAddress(text) {
    var low = String(text).trim().toLowerCase();
    for (var i = 0; i < SEATS.length; i++) {
      if (SEATS[i].toLowerCase() === low && seats.indexOf(SEATS[i]) >= 0) return SEATS[i];
    }
    var least = leastSeeing();
    seatAsked = "The address names seat \u201c" + shortened(String(text), 24) + "\u201d, which this file does not hold: " +
      "shown as " + (seatLabel[least] || least) + ", the seat of this file that sees least.";
    return least;
  }

  function seatSaid() {  // after the first draw, before the event: the status line is read from its start, and the
    if (!seatAsked) return;  // banner shows it (the status line is for screen readers: nothing on screen said why)
    var banner = $("judge-banner");
    banner.textContent = seatAsked + (banner.hidden ? "" : " " + banner.textContent);
    banner.hidden = false;
    speak(seatAsked + " " + said);
    seatAsked = "";
  }

  function sharedBanner(s) {  // what else the file holds than the seat shown sees (the Seat box is one pick away)
    if (seats.indexOf("judge") >= 0) {
      return "This file also holds the judge's view (every hidden card): do not share it with players.";
    }
    var others = seats.filter(function (x) { return (x === "P1" || x === "P2") && x !== s; });
    if (!others.length) return "";
    var both = seats.indexOf("P1") >= 0 && seats.indexOf("P2") >= 0;  // each player's hand: nobody else's to read
    return "This file also holds " + (others.length > 1 ? "P1's and P2's views (their hidden cards)" :
      others[0] + "'s view (" + others[0] + "'s hidden cards)") + ": " +
      (both ? "do not share it with a player or a spectator." : "share it with " + others[0] + " only.");
  }

  function setSeat(s, redraw) {
    seat = s;
    $("seat").value = s;
    $("seat-shown").textContent = "Seat: " + (seatLabel[s] || s);  // on paper, in place of the box
    $("seat-note").textContent = seatNote[s] || "";
    document.body.dataset.seat = s;
    var judge = $("judge-banner");
    if (s === "judge") {
      judge.hidden = false;
      judge.textContent = "Judge's file: it holds every hidden card of this match" +
        (board && board.hiddenZones ? " (" + board.hiddenZones + ")" : "") +
        ". Do not share it with players or spectators.";
    } else {
      var more = sharedBanner(s);
      judge.hidden = !more;
      judge.textContent = more;
    }
    buildList();
    buildChart();
    if (redraw !== false) draw();
  }

  // ------------------------------------------------------------------ controls
  function prevTurn() {
    var t = 1;
    for (var i = 0; i < begins.length; i++) if (begins[i] < seq) t = begins[i];
    go(t);
  }

  function nextTurn() {
    for (var i = 0; i < begins.length; i++) if (begins[i] > seq) return go(begins[i]);
    go(last);
  }

  function goTurn(n) {
    n = Math.round(+n);
    if (!(n >= 1 && n <= turns.length)) {
      $("turn-input").setCustomValidity("turn 1.." + turns.length);
      $("turn-input").reportValidity();
      return;
    }
    $("turn-input").setCustomValidity("");
    pause();
    go(begins[n - 1]);
  }

  function tick() {
    if (seq >= last) { pause(); return; }
    go(seq + 1);
  }

  function play() {
    if (timer) return;
    if (seq >= last) go(1);
    $("play").textContent = "\u275A\u275A";
    $("play").classList.add("on");
    $("play").setAttribute("aria-pressed", "true");  // a toggle button "play": pressed while playing (not the glyph alone)
    timer = setInterval(tick, 1000 / (+$("speed").value || 2));
  }

  function pause() {
    if (!timer) return;
    clearInterval(timer);
    timer = null;
    flushHash();
    setTimeout(function () { sayNow(); });  // where the play stopped (after the step a key or a button makes)
    $("play").textContent = "\u25B6";
    $("play").classList.remove("on");
    $("play").setAttribute("aria-pressed", "false");
  }

  // "Skip to content" takes the focus to the replay's controls and leaves the address as it is: following its
  // #replay replaced the moment (#e=57: a link then opened at event 1) and added an entry to the history
  var skip = document.querySelector("a.skip");
  if (skip) skip.addEventListener("click", function (e) { e.preventDefault(); $("replay").focus(); });

  var user = function (fn) { return function () { pause(); fn(); }; };
  $("first").onclick = user(function () { go(1); });
  $("prev").onclick = user(function () { go(seq - 1); });
  $("next").onclick = user(function () { go(seq + 1); });
  $("last").onclick = user(function () { go(last); });
  $("prev-turn").onclick = user(prevTurn);
  $("next-turn").onclick = user(nextTurn);
  $("prev-viol").onclick = user(prevViolation);
  $("next-viol").onclick = user(nextViolation);
  $("play").onclick = function () { if (timer) pause(); else play(); };
  // A speed chosen while playing: it plays on at that speed, and the status line says the speed, once (until
  // 2026-11-29 a pause and a play in between said the event shown again: QA round 32); the next event is said when
  // its turn comes (SAY_GAP after this line). Paused, the box says its own value: nothing more is said
  $("speed").onchange = function () {
    if (!timer) return;
    clearInterval(timer);
    var n = +this.value || 2;
    timer = setInterval(tick, 1000 / n);
    sayControl("Speed: " + n + (n === 1 ? " event" : " events") + " a second.");
  };
  $("slider").addEventListener("input", function () { pause(); go(+this.value); });
  $("turn-form").addEventListener("submit", function (e) { e.preventDefault(); goTurn($("turn-input").value); });
  // goTurn's "turn 1..N" makes the box invalid, and the browser blocks the form's submit while it is: each
  // edit clears it, so the next Enter or Go is checked again (an empty Enter stuck the box until a reload)
  $("turn-input").addEventListener("input", function () { this.setCustomValidity(""); });
  // The Seat box keeps the focus (its arrow keys choose the seats; until 2026-11-28 it let go of the focus once a
  // seat was chosen, and the next arrow stepped the replay), and the seat chosen is said in the status line; Escape
  // (or Tab) leaves it for the replay's controls
  // A seat chosen while playing does not stop the play (it is no move): its line is said once, with the event shown,
  // and the play goes on, each event said as before (until 2026-11-29 it paused, and the event was said twice: its
  // own line, then the seat's with it; QA round 32)
  $("seat").onchange = function () {
    setSeat(this.value, false);
    draw(true);  // drawn without its event line: the seat's says it
    saySeat();
  };

  function saySeat() {  // the seat shown, its note and where the match stands, in the status line
    sayControl("Seat " + (seatLabel[seat] || seat) + (seatNote[seat] ? ": " + seatNote[seat] : "") + ". " +
      moveText(current));
  }

  function sayControl(text) {  // a line of its own (a seat, a speed): a step's line still waiting its turn would
    clearTimeout(sayTimer);  // replace it; the next event is said SAY_GAP after it, while playing
    sayTimer = null;
    speak(text);
  }

  // The replay's controls: its box (the skip link's target), the step buttons and the slider (not its speed and
  // turn fields). V and Shift+V, single-letter shortcuts, work only while the focus is there (WCAG 2.1.4: until
  // 2026-11-28 a V typed, or said by speech input, anywhere on the page went to a violation)
  var FIELD = "select, textarea, input:not([type=range]), [contenteditable]";
  var PRESSED = "button, a[href], summary, " + FIELD;  // Space and Enter do what they do there: press, open, type

  function inControls(t) {
    return !!t && t.nodeType === 1 && $("replay").contains(t) && !t.matches(FIELD);
  }

  document.addEventListener("keydown", function (e) {
    var t = e.target;
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    if (e.key === "Escape" && t && t.matches && t.matches(FIELD)) {  // out of a field: back to stepping
      e.preventDefault();
      $("slider").focus();
      return;
    }
    if (t && t.nodeType === 1 && t.closest(FIELD)) return;  // the field's own keys
    // PageUp and PageDown are the browser's: they scroll the page (the board and the lower player's panel
    // are taller than a laptop's window, and nothing focusable sits there); the turns are Up and Down. On the
    // slider they are its larger step (WAI-ARIA's slider pattern): the previous / next turn, as Up and Down (the
    // range input's own step, a tenth of the match and PageDown backwards, moved it while the help said they
    // scroll: QA round 32)
    var act = {
      ArrowRight: function () { go(seq + 1); }, ArrowLeft: function () { go(seq - 1); },
      ArrowUp: prevTurn, ArrowDown: nextTurn,
      Home: function () { go(1); }, End: function () { go(last); }
    }[e.key];
    if ((e.key === "PageUp" || e.key === "PageDown") && t === $("slider")) {
      act = e.key === "PageUp" ? prevTurn : nextTurn;
    }
    if ((e.key === "v" || e.key === "V") && violSeqs.length && inControls(t)) {  // V: the next one; Shift+V: the previous
      e.preventDefault();
      pause();
      if (e.shiftKey) prevViolation(); else nextViolation();
      return;
    }
    if (e.key === " ") {  // play/pause, but on a button, a link or a summary: that one's own (press, follow, open)
      if (t && t.nodeType === 1 && t.closest(PRESSED)) return;
      e.preventDefault();
      if (timer) pause(); else play();
      return;
    }
    if (!act) return;
    e.preventDefault();
    pause();
    act();
  });

  // ------------------------------------------------------------------ a swipe over the board
  // On a touch screen a horizontal swipe over the board steps as the arrow keys do: to the left, the next event; to the
  // right, the previous one. Not a vertical drag (the page scrolls: nothing steps), not a pinch or a swipe on a zoomed
  // page (the browser pans and zooms), not a swipe that starts in a box that scrolls sideways (it scrolls). The
  // listeners are passive: the browser's own scrolling and zooming are never held up nor taken away.
  var SWIPE_MIN = 50, SWIPE_SLOPE = 2, SWIPE_MS = 1000;  // px across, at least twice as far across as down, this quick
  var swipe = null;

  function scrollsAcross(el, root) {  // el or a box between it and root that scrolls sideways
    for (; el && el !== root && el.nodeType === 1; el = el.parentElement) {
      var o = getComputedStyle(el).overflowX;
      if ((o === "auto" || o === "scroll") && el.scrollWidth > el.clientWidth) return true;
    }
    return false;
  }

  function zoomed() {
    return !!(window.visualViewport && window.visualViewport.scale > 1.01);
  }

  var boardBox = $("board").closest("section") || $("board");
  boardBox.addEventListener("touchstart", function (e) {
    var t = e.touches[0];
    swipe = e.touches.length === 1 && !zoomed() && !scrollsAcross(e.target, boardBox) ?
      { x: t.clientX, y: t.clientY, at: Date.now(), sx: window.scrollX, sy: window.scrollY } : null;
  }, { passive: true });
  boardBox.addEventListener("touchmove", function (e) {
    if (swipe && e.touches.length > 1) swipe = null;  // a second finger: a pinch
  }, { passive: true });
  boardBox.addEventListener("touchcancel", function () { swipe = null; }, { passive: true });
  boardBox.addEventListener("touchend", function (e) {
    var s = swipe, t = e.changedTouches[0];
    swipe = null;
    if (!s || !t || e.touches.length || zoomed() || Date.now() - s.at > SWIPE_MS) return;
    var dx = t.clientX - s.x, dy = t.clientY - s.y;
    var scrolled = Math.abs(window.scrollY - s.sy) + Math.abs(window.scrollX - s.sx);
    if (Math.abs(dx) < SWIPE_MIN || Math.abs(dx) < SWIPE_SLOPE * (Math.abs(dy) + scrolled)) return;
    pause();
    go(seq + (dx < 0 ? 1 : -1));
  }, { passive: true });

  // ------------------------------------------------------------------ start
  var info = data.info || {};
  var pl = info.players || {};
  var who = function (p) {
    var i = pl[p] || {};
    return '<span class="who ' + p + '">' + p + " " + esc(i.name || "") + "</span>" +
      (i.deck_name ? " (" + esc(i.deck_name) + ")" : "");
  };
  $("match-title").textContent = info.match || data.match;
  var facts = [info.event, info.round != null ? "round " + info.round : null].filter(Boolean).map(esc);
  if (info.played_at) facts.push('<span class="when">' + esc(info.played_at) + "</span>");  // (on one line)
  $("match-sub").innerHTML = who("P1") + " vs " + who("P2") + " · " + facts.join(" · ");
  // the title bar, the Seat box and the banners are in the page as written (zx_web/viewer.py, head_parts): the same
  // words again here, so nothing moves when this runs (on a phone they pushed the controls and the board 150 px down)
  var sel = $("seat");
  sel.textContent = "";
  seats.forEach(function (s) {
    var o = document.createElement("option");
    o.value = s;
    o.textContent = seatLabel[s] || s;
    sel.appendChild(o);
  });
  sel.disabled = seats.length < 2;
  if (data.warning) { $("warning").hidden = false; $("warning").textContent = "warning: " + data.warning; }
  $("slider").max = last;
  $("turn-input").max = turns.length;

  var h = readHash();
  if (h.as) seat = seatFromAddress(h.as);
  if (h.e) seq = Math.min(last, Math.max(1, Math.round(+h.e) || 1));
  setSeat(seat, false);
  draw();
  seatSaid();
  if (window.performance && performance.mark) performance.mark("zx-first-draw");

  // for tests and benchmarks (and the curious): the viewer's state and moves
  window.zxViewer = {
    data: data, go: go, seat: function () { return seat; }, seq: function () { return seq; },
    state: function () { return current; }, stateOf: stateOf, setSeat: setSeat, play: play, pause: pause,
    playing: function () { return timer !== null; }
  };
})();
