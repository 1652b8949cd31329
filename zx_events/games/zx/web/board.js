/* Z/X board renderer for zx view: the Square (303), both players' panels, the battle under way.
 *
 * A game's renderer is one object registered under the game's name in window.ZXBoards:
 *   render(el, state, ctx)  draws one state (a seat's view, as `zx replay --format json` prints it)
 *   series(state)           the chart's values: { title, lines: [{ key, label, value }] }
 *   status(state)           one line: turn, turn player, phase
 *   seatNotes, hiddenZones  (optional) what each seat sees, what a judge's file holds, in the game's words
 * ctx: { seat, seq, last, esc }. It draws only what the state holds: hiding is done before the page.
 * The viewer (zx_web/static/viewer.js) finds it as zx_events/games/GAME/web/board.js (zx_web/viewer.py).
 */
(function () {
  "use strict";

  var PHASES = { setup: "Setup", draw: "Draw Phase", resource: "Resource Phase", ignition: "Ignition Phase",
    main: "Main Phase", end: "End Phase", over: "End of turn", ended: "Match ended" };
  // a result's reason in the game's words, as the match page says it (the game's rules.REASONS: tests/web/
  // test_result_in_the_games_words.py checks that they agree); one not named here (a log's own text) as it is
  var REASONS = { life: "damage with no Life left (a player with 0 Life loses)",
    draw: "both players at 0 Life at once", concede: "concession" };
  function reasonText(r) { return Object.prototype.hasOwnProperty.call(REASONS, r) ? REASONS[r] : r; }
  // the last Life card gone where it was no damage (digest.13: the outcome's ``how``; rules.LAST_LIFE, checked by
  // tests/web/test_result_in_the_games_words.py as REASONS)
  var LAST_LIFE = { effect: "an effect took their last Life card", reload: "a Reload put their last Life card into the Charge" };
  var KINDS = { ex: "Z/X EX", ob: "Overboost", token: "Token" };
  var PLAYER_SQUARE = { b1: "P1", b3: "P2" };
  var ROWS = {  // P2's side on top; from P2's seat the table is turned round
    normal: [["a3", "b3", "c3"], ["a2", "b2", "c2"], ["a1", "b1", "c1"]],
    turned: [["c1", "b1", "a1"], ["c2", "b2", "a2"], ["c3", "b3", "a3"]]
  };

  function render(el, s, ctx) {
    var esc = ctx.esc;
    var names = s.names || {};
    var nameOf = function (code) { return names[code] || code; };

    var mini = function (code, extra, cls, attrs) {
      if (code == null) return '<span class="mini back" title="a card this seat may not see"></span>';
      return '<span class="mini' + (cls ? " " + cls : "") + '" data-code="' + esc(code) + '"' + (attrs || "") + ' title="' +
        esc(code + " " + (names[code] || "")) + '">' + esc(nameOf(code)) + (extra || "") + "</span>";
    };
    var backs = function (n) {
      var out = "";
      for (var i = 0; i < n; i++) out += mini(null);
      return out;
    };
    // the judge's deck list holds the codes of cards the log left out elsewhere, unknown which (seats.deck_listed_note)
    var deckNote = function (p) {
      var out = p.deck.length - p.deck_count;
      return out > 0 ? '<small class="note" data-field="deck_note">' + p.deck_count + " of these " + p.deck.length + ": " +
        out + (out === 1 ? " is" : " are") + " in his hand, Life or Resource, unknown which (the log left " + (out === 1 ? "it" : "them") +
        " out)</small>" : "";
    };
    var zone = function (key, label, count, body) {
      return '<div class="zone" data-zone="' + key + '"><h4>' + label + ' <span class="n">' + count + "</span></h4>" +
        '<div class="cards">' + (body || '<span class="empty">-</span>') + "</div></div>";
    };

    function cell(sq) {
      var c = (s.squares || {})[sq];
      var owner = PLAYER_SQUARE[sq];
      var links = (s.links || {})[sq] || [];
      var h = '<div class="cell' + (owner ? " player-square own-" + owner : "") + (c ? " ctrl-" + c.ctrl : "") +
        (s.battle && (s.battle.attacker === sq) ? " attacking" : "") +
        (s.battle && (s.battle.target === sq) ? " targeted" : "") + '" data-square="' + sq + '">';
      h += '<div class="sq-label">' + sq + (owner ? ' <span>' + owner + "'s Player Square</span>" : "") + "</div>";
      if (c) {
        var down = c.code == null;
        h += '<div class="card' + (down ? " back" : "") + (c.sleep ? " sleep" : "") + '"' +
          (down ? ' data-facedown="1"' : ' data-code="' + esc(c.code) + '"') + ">";
        if (down) h += '<div class="card-name" data-field="name">face-down</div>';
        else h += '<div class="card-name" data-field="name">' + esc(c.name || nameOf(c.code)) + "</div>" +
          '<div class="card-code"><span data-field="code">' + esc(c.code) + "</span>" +
          (KINDS[c.kind] ? ' · <span class="kind">' + KINDS[c.kind] + "</span>" : "") + "</div>";
        if (c.power != null) {
          // each modifier, as zx replay lists them; a page's state lists them while a card holds at most 8
          // (zx_web/viewer.py page_state, MODS_SHOWN: they can pile up), past that their sum, its Power over its base
          var net = c.base != null ? c.power - c.base : 0;
          var mods = c.mods && c.mods.length ? c.mods.map(function (m) { return (m[0] >= 0 ? "+" : "") + m[0]; }).join(" ")
            : (net ? (net > 0 ? "+" : "") + net : "");
          h += '<div class="power">Power <b data-field="power">' + c.power + "</b>" +
            (mods ? ' <span class="mods">(' + c.base + " " + esc(mods) + ")</span>" : "") + "</div>";
        }
        h += '<div class="badges"><span class="state ' + (c.sleep ? "is-sleep" : "is-reboot") + '" data-field="state">' +
          (c.sleep ? "Sleep" : "Reboot") + "</span>" +
          (c.dmg ? '<span class="dmg">damage <b data-field="dmg">' + c.dmg + "</b></span>" : "") +
          '<span class="ctl">' + esc(c.ctrl) + (c.owner !== c.ctrl ? " (owner " + esc(c.owner) + ")" : "") + "</span></div>";
        if (c.shift) h += '<div class="under">Shift: ' + mini(c.shift) + "</div>";
        (c.force || []).forEach(function (f) { h += '<div class="under">Force: ' + mini(f) + "</div>"; });
        h += "</div>";
      } else if (owner) {
        var pc = ((s.players || {})[owner] || {}).player_card;
        if (pc) h += '<div class="pcard">Player: ' + mini(pc) +
          (((s.players || {})[owner] || {}).player_card_sleep ? ' <span class="state is-sleep" data-field="pc_state">Sleep</span>' : "") +
          "</div>";
      }
      if (links.length) h += '<div class="links" data-field="links">Link: ' + links.map(esc).join(", ") + "</div>";
      return h + "</div>";
    }

    function panel(pl) {
      var p = (s.players || {})[pl] || {};
      var active = s.active === pl;
      var res = p.resource || [];
      var reboot = res.filter(function (r) { return !r.sleep; }).length;
      var h = '<section class="player ' + pl + (active ? " active" : "") + '" data-player="' + pl + '">';
      h += '<header><h3 class="player-name"><span class="tag">' + pl + "</span> <b>" + esc(p.name || "") + "</b></h3>" +
        (p.deck_name ? ' <span class="deck">' + esc(p.deck_name) + "</span>" : "") +
        (p.player_card ? ' <span class="pc">Player card ' + mini(p.player_card) + (p.player_card_sleep ? " (Sleep)" : "") +
          "</span>" : "") +
        (active ? ' <span class="turn-flag">turn player</span>' : "") + "</header>";
      var count = function (label, field, v) {
        return '<span class="count"><span class="k">' + label + '</span> <b data-field="' + field + '">' + v + "</b></span>";
      };
      h += '<div class="counts">' + count("Life", "life_count", p.life_count) + count("Deck", "deck_count", p.deck_count) +
        count("Hand", "hand_count", p.hand_count) + count("Charge", "charge_count", (p.charge || []).length) +
        count("Resource", "resource_count", res.length) + '<span class="sub">' + reboot + " Reboot</span>" +
        count("Dynamis", "dynamis_count", p.dynamis_count) + count("Trash", "trash_count", (p.trash || []).length) +
        count("Remove", "remove_count", (p.remove || []).length) +
        (p.counters ? count("Counters", "counters", p.counters) : "") + "</div>";
      h += '<div class="zones">';
      h += zone("hand", "Hand", p.hand_count, p.hand ? p.hand.map(function (c) { return mini(c); }).join("")
        : backs(p.hand_count));
      h += zone("life", "Life", p.life_count, p.life ? p.life.map(function (c) { return mini(c); }).join("")
        : backs(p.life_count));
      h += zone("resource", "Resource", res.length, res.map(function (r) {
        return mini(r.code, "", r.sleep ? "sleep" : "reboot", ' data-state="' + (r.sleep ? "Sleep" : "Reboot") + '"');
      }).join(""));
      h += zone("charge", "Charge", (p.charge || []).length, (p.charge || []).map(function (c) { return mini(c); }).join(""));
      h += zone("dynamis", "Dynamis", p.dynamis_count, (p.dynamis || []).map(function (d) {
        return mini(d.code, d.code != null && d.up ? " ▲" : "", d.up ? "up" : "");
      }).join(""));
      h += zone("trash", "Trash", (p.trash || []).length, (p.trash || []).map(function (c) { return mini(c); }).join(""));
      if ((p.remove || []).length) h += zone("remove", "Remove Zone", p.remove.length, p.remove.map(function (c) { return mini(c); }).join(""));
      if ((p.overboost || []).length) h += zone("overboost", "Overboost", p.overboost.length, esc(p.overboost.join(", ")));
      if (p.deck) h += '<details class="zone deck" data-zone="deck"><summary>Deck <span class="n">' + p.deck_count +
        "</span> (judge)</summary><div class=\"cards\">" + p.deck.map(function (c) { return mini(c); }).join("") +
        deckNote(p) + "</div></details>";
      return h + "</div></section>";
    }

    var turned = ctx.seat === "P2";
    var rows = turned ? ROWS.turned : ROWS.normal;
    var top = turned ? "P1" : "P2", bottom = turned ? "P2" : "P1";
    var parts = {};
    parts.phase = '<div class="phase-line"><span data-field="turn">Turn ' + (s.turn || 0) + "</span>" +
      (s.active ? ' · <span class="who ' + s.active + '">' + s.active + "</span>'s turn" : "") +
      ' · <span data-field="phase">' + esc(PHASES[s.phase] || s.phase || "") + "</span></div>";
    parts.top = panel(top);
    rows.forEach(function (r) { r.forEach(function (sq) { parts[sq] = cell(sq); }); });
    var b = s.battle;
    parts.battle = !b ? "" : '<div class="battle" data-field="battle">Battle: <b>' + esc(b.attacker) + "</b> → <b>" +
      esc(b.target) + "</b> (" + (b.target_kind === "player" ? "the player" : "a Z/X") + ") · defender " +
      esc(b.defender) + ' · <span data-field="battle-step">' + esc(b.step) + "</span> step · priority " +
      esc(b.priority) + ((b.events || []).length ? " · events " + b.events.map(function (c) { return mini(c); }).join("") : "") +
      "</div>";
    parts.shared = !((s.temporary || []).length || (s.force || []).length) ? "" : '<div class="shared">' +
      ((s.temporary || []).length ? "Temporary: " + s.temporary.map(function (c) { return mini(c); }).join("") + " " : "") +
      ((s.force || []).length ? "Force zone: " + s.force.map(function (c) { return mini(c); }).join("") : "") + "</div>";
    parts.bottom = panel(bottom);
    var w = s.outcome && s.outcome.winner;
    var how = s.outcome && Object.prototype.hasOwnProperty.call(LAST_LIFE, s.outcome.how) ? LAST_LIFE[s.outcome.how] : "";
    parts.outcome = !s.outcome ? "" : '<div class="outcome" data-field="outcome">Match over: ' +
      (w ? esc(w) + " won" : "a draw") + (how && w ? ": " + (w === "P1" ? "P2" : "P1") + " has no Life left (" + how + ")" :
        s.outcome.reason ? " by " + esc(reasonText(s.outcome.reason)) : "") + "</div>";

    // one skeleton per orientation; a step rewrites only the parts whose HTML changed
    var layout = turned ? "turned" : "normal";
    var root = el.firstElementChild;
    if (!root || root.dataset.layout !== layout || !root.zxSlots) {
      var slot = function (k) { return '<div class="slot" data-part="' + k + '"></div>'; };
      var html = '<div class="zx' + (turned ? " turned" : "") + '" data-layout="' + layout + '">' + slot("phase") +
        slot("top") + '<div class="square" role="grid" aria-label="Square (303)">';
      rows.forEach(function (r) { html += '<div class="row">' + r.map(slot).join("") + "</div>"; });
      html += "</div>" + slot("battle") + slot("shared") + slot("bottom") + slot("outcome") + "</div>";
      el.innerHTML = html;
      root = el.firstElementChild;
      root.zxSlots = {};
      root.zxShown = {};
      Array.prototype.forEach.call(root.querySelectorAll(".slot"), function (n) { root.zxSlots[n.dataset.part] = n; });
    }
    for (var k in parts) {
      if (root.zxShown[k] !== parts[k]) {
        root.zxSlots[k].innerHTML = parts[k];
        root.zxShown[k] = parts[k];
      }
    }
  }

  function series(s) {
    var p = s.players || {};
    return {
      title: "Life",
      lines: ["P1", "P2"].map(function (k) {
        // null (not known yet) before the player's set-up puts their Life: the chart's line starts there, not at 0
        var n = (p[k] || {}).life_count || 0;
        return { key: k, label: k + " " + ((p[k] || {}).name || ""), value: s.phase === "setup" && !n ? null : n };
      })
    };
  }

  function status(s) {
    return (PHASES[s.phase] || s.phase || "") + (s.battle ? " · battle " + s.battle.step + " step" : "");
  }

  var seatNotes = {
    judge: "sees everything: hands, decks, Life, face-down cards",
    P1: "sees the public zones, P1's own hand and Dynamis (301.3)",
    P2: "sees the public zones, P2's own hand and Dynamis (301.3)",
    spectator: "sees the public zones only (301.3)"
  };

  window.ZXBoards = window.ZXBoards || {};
  window.ZXBoards.zx = { render: render, series: series, status: status, seatNotes: seatNotes,
    hiddenZones: "hands, decks, Life, face-down cards" };
})();
