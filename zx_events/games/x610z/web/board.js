/* X610Z board renderer for zx view: the board of dots and lines with the pawns, both players' panels,
 * the stack. Registered as window.ZXBoards.x610z (see zx_events/games/zx/web/board.js for the contract:
 * render(el, state, ctx), series(state), status(state)). It draws only what the state holds. */
(function () {
  "use strict";

  var PHASES = { setup: "Setup", draw: "Draw Phase", action: "Action Phase", end: "End Phase",
    closed: "End Phase (closed)", over: "End of turn", ended: "Match ended" };
  // a result's reason in the game's words, as the match page says it (the game's rules.REASONS: tests/web/
  // test_result_in_the_games_words.py checks that they agree); one not named here (a log's own text) as it is
  var REASONS = { ending_dot: "its Life Base reaching an Ending Dot (602.2)",
    life_base: "taking the other Life Base out of play (210.8)",
    deck_out: "the other player drawing from an empty Deck (106.3)", concede: "concession",
    time: "the time limit (106.1a)", simultaneous: "both losing at once (106.1a)" };
  function reasonText(r) { return Object.prototype.hasOwnProperty.call(REASONS, r) ? REASONS[r] : r; }
  // how both Life Bases left play where one resolution's effects took them (the outcome's ``how``, digest.13: the
  // game's rules.LIFE_BASES_GONE, checked by tests/web/test_x610z_counters_and_turn_start.py)
  var LIFE_BASES_GONE = { effect: "one resolution's effects took both out of play" };
  // rules.gone_text: "both Life Bases left play at once (...; 106.1a)"; "": the reason's words say it
  function goneText(o) {
    return o.reason === "simultaneous" && !o.winner && Object.prototype.hasOwnProperty.call(LIFE_BASES_GONE, o.how) ?
      "both Life Bases left play at once (" + LIFE_BASES_GONE[o.how] + "; 106.1a)" : "";
  }
  var KINDS = [["start", "Starting Dot"], ["end", "Ending Dot"], ["no_attack", "No Attack Dot"], ["quest", "Quest Dot"]];
  var KIND_FILL = { start: "#f5d0d0", end: "#d6ecd2", no_attack: "#f3b4b4", quest: "#fff1c2", normal: "#ffffff" };
  // a dot's kind is never told by its colour alone (WCAG 1.4.1: No Attack and a plain dot were 1.75:1 apart, Starting
  // and No Attack 1.23:1): a mark in the dot, the same in the key, and a title naming the dot and its kind
  var KIND_MARK = { start: "S", end: "E", no_attack: "\u00D7", quest: "Q" };
  var KIND_WORD = { start: "Starting", end: "Ending", no_attack: "No Attack", quest: "Quest" };

  // each pawn's label, as the terminal replay's (render.py): the controller's number and L for a Life Base,
  // a, b, c ... for his other summons, in the order of the dots
  function pawnLabels(dots) {
    var out = {}, next = { P1: 0, P2: 0 };
    Object.keys(dots).sort().forEach(function (d) {
      var p = dots[d];
      if (!p) return;
      var n = next[p.ctrl] || 0;
      out[d] = String(p.ctrl).slice(1) + (p.life ? "L" : "abcdefghijklmnopqrstuvwxyz".charAt(n % 26));
      if (!p.life) next[p.ctrl] = n + 1;
    });
    return out;
  }

  // a summon's or permanent's counters (209.2: public markers), as the terminal replay says them: ", time 2"
  function countersText(c) {
    return Object.keys(c || {}).sort().map(function (k) { return ", " + k + " " + c[k]; }).join("");
  }

  // one pawn in words, as the terminal replay's legend: "1a on B2: Sky Vessel (P1) A1 D2 S3 R2, activated, time 2"
  function pawnText(label, d, p) {
    var state = [p.activated ? "activated" : "", p.deactivated ? "deactivated" : ""].filter(Boolean).join(", ");
    return label + " on " + d + ": " + (p.name || p.code) + " (" + p.ctrl + ") A" + p.stats.attack + " D" +
      p.stats.defense + " S" + p.stats.speed + " R" + p.stats.range + (p.damage ? ", " + p.damage + " damage" : "") +
      (state ? ", " + state : "") + countersText(p.counters);
  }

  function svgBoard(s, esc, turned) {
    var lay = s.layout, dots = s.dots || {}, labels = pawnLabels(dots);
    if (!lay) return '<div class="x610z-noboard">board ' + esc(s.board || "") + " is not at hand</div>" +
      pawnList(dots, labels, esc);
    var ids = Object.keys(lay.dots);
    var xs = ids.map(function (d) { return lay.dots[d][0]; }), ys = ids.map(function (d) { return lay.dots[d][1]; });
    var x0 = Math.min.apply(null, xs), x1 = Math.max.apply(null, xs), y0 = Math.min.apply(null, ys), y1 = Math.max.apply(null, ys);
    var W = 420, H = 420, pad = 28;
    var sx = (W - 2 * pad) / ((x1 - x0) || 1), sy = (H - 2 * pad) / ((y1 - y0) || 1), k = Math.min(sx, sy);
    var pos = function (d) {
      var p = lay.dots[d], x = pad + (p[0] - x0) * k, y = pad + (y1 - p[1]) * k;
      return turned ? [W - x, H - y] : [x, y];
    };
    // the terminal replay's "dots:" line (render.py), the kinds on this board: the board's accessible description
    var kindsHere = KINDS.filter(function (kd) { return ids.some(function (d) { return lay.dots[d][2] === kd[0]; }); });
    var dotsLine = "dots: " + kindsHere.map(function (kd) {
      return KIND_WORD[kd[0]] + " " + ids.filter(function (d) { return lay.dots[d][2] === kd[0]; }).sort().join(" ");
    }).join("; ");
    var h = '<svg class="x610z-board" viewBox="0 0 ' + W + " " + H + '" role="img" aria-label="X610Z board' +
      (Object.keys(labels).length ? " (its summons are listed below it)" : "") + '"' +
      (kindsHere.length ? ' aria-describedby="x610z-dots"><desc id="x610z-dots">' + esc(dotsLine) + "</desc>" : ">");
    (lay.lines || []).forEach(function (l) {
      var a = pos(l[0]), b = pos(l[1]);
      h += '<line x1="' + a[0] + '" y1="' + a[1] + '" x2="' + b[0] + '" y2="' + b[1] + '"/>';
    });
    ids.forEach(function (d) {
      var p = pos(d), kind = lay.dots[d][2], pawn = dots[d];
      h += '<g class="dot ' + esc(kind) + '" data-dot="' + esc(d) + '"><title>' + esc(d) + ": " +
        (KIND_WORD[kind] ? KIND_WORD[kind] + " Dot" : "dot") + "</title>" + '<circle r="9" cx="' + p[0] + '" cy="' + p[1] +
        '" fill="' + (KIND_FILL[kind] || "#fff") + '"/>' + (KIND_MARK[kind] ? '<text class="mark" x="' + p[0] + '" y="' +
        (p[1] + 3.5) + '">' + KIND_MARK[kind] + "</text>" : "") + '<text x="' + p[0] + '" y="' + (p[1] + 21) + '">' +
        esc(d) + "</text>";
      if (pawn) {
        h += '<g class="pawn ' + esc(pawn.ctrl) + (pawn.life ? " life" : "") + (pawn.activated ? " activated" : "") +
          '" data-code="' + esc(pawn.code) + '"><title>' + esc(pawnText(labels[d], d, pawn)) + "</title>" +
          (pawn.life ? '<rect x="' + (p[0] - 8) + '" y="' + (p[1] - 8) + '" width="16" height="16" rx="3"/>'
            : '<circle r="8" cx="' + p[0] + '" cy="' + p[1] + '"/>') +
          '<text class="pawn-label" x="' + p[0] + '" y="' + (p[1] + 3) + '">' + esc(labels[d]) + "</text>" +
          (pawn.damage ? '<text class="dmg" x="' + (p[0] + 11) + '" y="' + (p[1] - 8) + '">' + pawn.damage + "</text>" : "") +
          "</g>";
      }
      h += "</g>";
    });
    h += "</svg>";
    // what the dots' colours and marks mean, as the terminal replay's "dots:" line says it (kinds on this board only)
    return h + (kindsHere.length ? '<div class="dot-key" data-field="dot-key">' + kindsHere.map(function (kd) {
      return '<span class="key" data-kind="' + kd[0] + '"><span class="swatch" aria-hidden="true" style="background:' +
        KIND_FILL[kd[0]] + '">' + KIND_MARK[kd[0]] + "</span>" + kd[1] + "</span>";
    }).join("") + "</div>" : "") + pawnList(dots, labels, esc);
  }

  // the summons on the board in words, as the terminal replay's legend: what the board shows by colour, label
  // and outline (the controller, activated), for every reader; only what the seat's state holds (the board is public)
  function pawnList(dots, labels, esc) {
    var held = Object.keys(labels);
    if (!held.length) return "";
    return '<ul class="pawn-key" data-field="pawns" aria-label="Summons on the board">' + held.map(function (d) {
      var p = dots[d];
      return '<li class="' + esc(p.ctrl) + (p.activated ? " activated" : "") + '" data-dot="' + esc(d) + '">' +
        '<span class="pawn-tag ' + esc(p.ctrl) + (p.life ? " life" : "") + '">' + esc(labels[d]) + "</span>" +
        esc(pawnText(labels[d], d, p).slice(labels[d].length)) + "</li>";
    }).join("") + "</ul>";
  }

  function render(el, s, ctx) {
    var esc = ctx.esc;
    var names = s.names || {};
    var mini = function (code, extra, cls) {
      if (code == null || code === "?") return '<span class="mini back" title="a card this seat may not see"></span>';
      return '<span class="mini' + (cls ? " " + cls : "") + '" data-code="' + esc(code) + '" title="' +
        esc(code + " " + (names[code] || "")) + '">' + esc(names[code] || code) + (extra || "") + "</span>";
    };
    // the judge's deck list holds the codes of cards the log left out elsewhere, unknown which (seats.deck_listed_note)
    var deckNote = function (p) {
      var out = p.deck.length - p.deck_count;
      return out > 0 ? '<small class="note" data-field="deck_note">' + p.deck_count + " of these " + p.deck.length + ": " +
        out + (out === 1 ? " is" : " are") + " in his hand, unknown which (the log left " + (out === 1 ? "it" : "them") +
        " out)</small>" : "";
    };
    var zone = function (key, label, count, body) {
      return '<div class="zone" data-zone="' + key + '"><h4>' + label + ' <span class="n">' + count + "</span></h4>" +
        '<div class="cards">' + (body || '<span class="empty">-</span>') + "</div></div>";
    };
    var panel = function (pl) {
      var p = (s.players || {})[pl] || {};
      var pool = Object.keys(p.pool || {}).map(function (t) { return t + p.pool[t]; }).join(" ") || "-";
      var perms = (s.perms || []).filter(function (x) { return x.ctrl === pl; });
      var h = '<section class="player ' + pl + (s.active === pl ? " active" : "") + '" data-player="' + pl + '">' +
        '<header><h3 class="player-name"><span class="tag">' + pl + "</span> <b>" + esc(p.name || "") + "</b></h3>" +
        (s.active === pl ? ' <span class="turn-flag">active player</span>' : "") +
        (s.priority === pl ? ' <span class="turn-flag">priority</span>' : "") + "</header>";
      h += '<div class="counts"><span class="count"><span class="k">Deck</span> <b data-field="deck_count">' + p.deck_count +
        '</b></span><span class="count"><span class="k">Hand</span> <b data-field="hand_count">' + p.hand_count +
        '</b></span><span class="count"><span class="k">Energy Pool</span> <b data-field="pool">' + esc(pool) + "</b></span></div>";
      // more cards listed than the hand holds: an `end` left out discarded some, unknown which (502.5, render.py)
      var out = p.hand ? p.hand.length - p.hand_count : 0;
      h += '<div class="zones">' + zone("hand", "Hand", p.hand_count, p.hand ? p.hand.map(function (c) { return mini(c); }).join("") +
        (out > 0 ? '<small class="note" data-field="hand_note">' + p.hand_count + " of these " + p.hand.length + ": " + out +
          (out === 1 ? " was" : " were") + " discarded, unknown which (502.5)</small>" : "")
        : new Array(p.hand_count + 1).join(mini(null)));
      h += zone("play", "Crystals and Effects", perms.length, perms.map(function (x) {
        var counters = countersText(x.counters).slice(2);  // (its counters, as the terminal's Permanents line)
        return mini(x.code, (x.activated ? ' <small class="flag">activated</small>' : "") +
          (counters ? ' <small class="counters" data-field="counters">' + esc(counters) + "</small>" : ""),
          x.activated ? "activated" : "");
      }).join(""));
      h += zone("discard", "Discard Pile", (p.discard || []).length, (p.discard || []).map(function (c) { return mini(c); }).join(""));
      if ((p.removed || []).length) h += zone("removed", "Removed From Game", p.removed.length,
        p.removed.map(function (c) { return mini(c); }).join(""));
      if (p.deck) h += '<details class="zone deck" data-zone="deck"><summary>Deck <span class="n">' + p.deck_count +
        "</span> (judge, sorted)</summary><div class=\"cards\">" + p.deck.map(function (c) { return mini(c); }).join("") +
        deckNote(p) +
        "</div></details>";
      return h + "</div></section>";
    };
    var turned = ctx.seat === "P2";
    var w = s.outcome && s.outcome.winner;
    el.innerHTML = '<div class="x610z">' +
      '<div class="phase-line"><span data-field="turn">Turn ' + (s.turn || 0) + "</span>" +
      (s.active ? " · " + esc(s.active) + "'s turn" : "") + ' · <span data-field="phase">' +
      esc(PHASES[s.phase] || s.phase || "") + "</span></div>" + panel(turned ? "P1" : "P2") +
      svgBoard(s, esc, turned) +
      ((s.stack || []).length ? '<div class="stack" data-field="stack">Stack (top last): ' + s.stack.map(function (e) {
        var what = e.card || e.from || e.source || "";  // a card, or where a move or a trigger comes from: by its name
        return esc(e.by + " " + e.kind + " " + (names[what] || what) +  // where the view names it (a dot: itself)
          (e.target ? " → " + (names[e.target] || e.target) : "") + (e.void ? " (refused: it fizzles)" : ""));
      }).join(" · ") + "</div>" : "") + panel(turned ? "P2" : "P1") +
      (s.outcome ? '<div class="outcome" data-field="outcome">Match over: ' + (w ? esc(w) + " won" : "a draw") +
        (goneText(s.outcome) ? ": " + esc(goneText(s.outcome)) :
          s.outcome.reason ? " by " + esc(reasonText(s.outcome.reason)) : "") + "</div>" : "") + "</div>";
  }

  function series(s) {
    var left = { P1: 0, P2: 0 }, placed = {};
    Object.keys(s.dots || {}).forEach(function (d) {
      var p = s.dots[d];
      if (p.life) { left[p.ctrl] = Math.max(0, p.stats.defense - p.damage); placed[p.ctrl] = true; }  // more damage than Defense: none left
    });
    return { title: "Life Base Defense left", lines: ["P1", "P2"].map(function (k) {
      // null (not known yet) before the player's set-up places their Life Base: the chart's line starts there
      return { key: k, label: k + " " + (((s.players || {})[k] || {}).name || ""),
               value: s.phase === "setup" && !placed[k] ? null : left[k] };
    }) };
  }

  function status(s) {
    return (PHASES[s.phase] || s.phase || "") + ((s.stack || []).length ? " · stack " + s.stack.length : "");
  }

  window.ZXBoards = window.ZXBoards || {};
  window.ZXBoards.x610z = { render: render, series: series, status: status };
})();
