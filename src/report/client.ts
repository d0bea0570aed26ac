/**
 * The page's script (plain browser JavaScript, inlined as text): renders the Vega-Lite charts
 * with the bundled vega-embed and drives the per-question explorer. It reads one JSON blob
 * (#report-data) and never touches the network. `window.rawragReport.refresh()` reads the blob and
 * the page's sections again (rawrag view swaps in newer ones), keeping the explorer's choices.
 */
export const CLIENT_JS = String.raw`
(function () {
  'use strict';
  var D, S, Q, runs, byQuestion;
  var PAGE = 25;

  function load() {
    D = JSON.parse(document.getElementById('report-data').textContent);
    S = D.s;
    Q = D.questions;
    runs = D.runs;
    byQuestion = runs.map(function (r) {
      var m = new Map();
      r.rows.forEach(function (row) { m.set(row[0], row); });
      return m;
    });
  }

  function str(i) { return i === -1 || i === null || i === undefined ? null : S[i]; }
  function el(tag, attrs, children) {
    var e = document.createElement(tag);
    if (attrs) for (var k in attrs) {
      if (k === 'text') e.textContent = attrs[k];
      else if (k === 'cls') e.className = attrs[k];
      else e.setAttribute(k, attrs[k]);
    }
    (children || []).forEach(function (c) { if (c !== null && c !== undefined) e.appendChild(typeof c === 'string' ? document.createTextNode(c) : c); });
    return e;
  }

  // ---- charts -------------------------------------------------------------------------------
  function renderCharts() {
    var nodes = document.querySelectorAll('[data-chart]');
    var pending = [];
    nodes.forEach(function (node) {
      var spec = D.charts[node.getAttribute('data-chart')];
      if (!spec) return;
      pending.push(window.vegaEmbed(node, spec, { renderer: 'svg', actions: false }).then(function () {
        node.setAttribute('data-rendered', 'true');
      }).catch(function (e) {
        node.textContent = 'chart failed to render: ' + e.message;
        console.error(e);
      }));
    });
    return Promise.all(pending);
  }

  // ---- explorer -----------------------------------------------------------------------------
  var state = { bench: '', a: -1, b: -1, type: '', outcome: 'all', text: '', rawText: '', page: 0, selected: -1 };
  var ui = {};

  function outcomeOf(row) {
    if (!row) return 'absent';
    if (row[7] !== -1) return 'error';
    if (row[2] === null) return 'unscored';
    return row[2] >= 0.5 ? 'correct' : 'incorrect';
  }
  function disagrees(row) {
    if (!row || !row[3] || row[3].length < 2) return false;
    return row[3].some(function (v) { return v !== row[3][0]; });
  }
  var MARK = { correct: '\u2713 correct', incorrect: '\u2717 incorrect', unscored: '\u2013 not judged', error: '! error', absent: '\u00b7 not in run' };

  function matches(qi) {
    var q = Q[qi];
    var rowA = byQuestion[state.a].get(qi);
    var rowB = state.b >= 0 ? byQuestion[state.b].get(qi) : null;
    if (state.type && S[q[2]] !== state.type) return false;
    if (state.text) {
      var hay = (S[q[1]] + ' ' + (str(q[3]) || '') + ' ' + (str(q[4]) || '') + ' ' + (rowA ? str(rowA[1]) || '' : '')).toLowerCase();
      if (hay.indexOf(state.text) === -1) return false;
    }
    switch (state.outcome) {
      case 'all': return true;
      case 'correct': case 'incorrect': case 'unscored': case 'error': return outcomeOf(rowA) === state.outcome;
      case 'disagree': return disagrees(rowA);
      case 'covmiss': return !!rowA && rowA[5] === 0;
      case 'a-only': return outcomeOf(rowA) === 'correct' && outcomeOf(rowB) === 'incorrect';
      case 'b-only': return outcomeOf(rowA) === 'incorrect' && outcomeOf(rowB) === 'correct';
    }
    return true;
  }

  function runLabel(i) { return runs[i].system + ' \u2014 ' + runs[i].label; }

  function fillSelect(select, options, value) {
    select.innerHTML = '';
    options.forEach(function (o) { select.appendChild(el('option', { value: String(o[0]), text: o[1] })); });
    select.value = String(value);
  }

  function refreshControls() {
    var benches = [];
    runs.forEach(function (r) { if (benches.indexOf(r.benchmark) === -1) benches.push(r.benchmark); });
    if (!state.bench || benches.indexOf(state.bench) === -1) state.bench = benches[0] || '';
    fillSelect(ui.bench, benches.map(function (b) { return [b, b]; }), state.bench);
    var inBench = runs.map(function (r, i) { return i; }).filter(function (i) { return runs[i].benchmark === state.bench; });
    if (inBench.indexOf(state.a) === -1) state.a = inBench[0];
    if (state.b === state.a || (state.b >= 0 && inBench.indexOf(state.b) === -1)) state.b = -1;
    fillSelect(ui.a, inBench.map(function (i) { return [i, runLabel(i)]; }), state.a);
    fillSelect(ui.b, [[-1, '(none)']].concat(inBench.filter(function (i) { return i !== state.a; }).map(function (i) { return [i, runLabel(i)]; })), state.b);
    var types = [];
    runs[state.a].rows.forEach(function (row) { var t = S[Q[row[0]][2]]; if (types.indexOf(t) === -1) types.push(t); });
    if (types.indexOf(state.type) === -1) state.type = '';
    fillSelect(ui.type, [['', 'all types']].concat(types.map(function (t) { return [t, t]; })), state.type);
    var outcomes = [['all', 'all'], ['correct', 'correct'], ['incorrect', 'incorrect'], ['disagree', 'judges disagree'], ['covmiss', 'coverage miss (gold evidence not all shown)'], ['unscored', 'not judged'], ['error', 'failed']];
    if (state.b >= 0) outcomes.push(['a-only', 'A correct, B incorrect'], ['b-only', 'A incorrect, B correct']);
    if (!outcomes.some(function (o) { return o[0] === state.outcome; })) state.outcome = 'all';
    fillSelect(ui.outcome, outcomes, state.outcome);
  }

  function currentList() {
    var seen = new Set();
    var list = [];
    runs[state.a].rows.forEach(function (row) { if (!seen.has(row[0])) { seen.add(row[0]); if (matches(row[0])) list.push(row[0]); } });
    return list;
  }

  function renderList() {
    var list = currentList();
    var pages = Math.max(1, Math.ceil(list.length / PAGE));
    if (state.page >= pages) state.page = pages - 1;
    var slice = list.slice(state.page * PAGE, (state.page + 1) * PAGE);
    ui.count.textContent = list.length + ' question' + (list.length === 1 ? '' : 's') + ' match; page ' + (state.page + 1) + ' of ' + pages;
    ui.count.setAttribute('data-count', String(list.length));
    ui.prev.disabled = state.page === 0;
    ui.next.disabled = state.page >= pages - 1;
    var tbody = ui.tbody;
    tbody.innerHTML = '';
    slice.forEach(function (qi) {
      var q = Q[qi];
      var rowA = byQuestion[state.a].get(qi);
      var rowB = state.b >= 0 ? byQuestion[state.b].get(qi) : null;
      var btn = el('button', { type: 'button', cls: 'linkish', 'data-q': String(qi), text: S[q[1]] });
      btn.addEventListener('click', function () { state.selected = qi; renderDetail(); });
      var tr = el('tr', { 'data-q': String(qi), cls: qi === state.selected ? 'selected' : '' }, [
        el('td', null, [btn]),
        el('td', { text: S[q[2]] }),
        el('td', { cls: 'outcome ' + outcomeOf(rowA), text: MARK[outcomeOf(rowA)] + (disagrees(rowA) ? ' \u2260' : '') + (rowA && rowA[5] === 0 ? ' \u25cb' : '') }),
        state.b >= 0 ? el('td', { cls: 'outcome ' + outcomeOf(rowB), text: MARK[outcomeOf(rowB)] + (disagrees(rowB) ? ' \u2260' : '') + (rowB && rowB[5] === 0 ? ' \u25cb' : '') }) : null,
        el('td', { cls: 'qtext', text: str(q[3]) || '(question text not in this run)' }),
      ]);
      tbody.appendChild(tr);
    });
    ui.headB.hidden = state.b < 0;
    if (state.selected === -1 && slice.length) state.selected = slice[0];
    renderDetail();
  }

  function turnLine(t, goldSet, shown) {
    var id = S[D.turns[2 * t]];
    var text = str(D.turns[2 * t + 1]);
    var gold = goldSet.has(t);
    return el('li', { cls: gold ? 'turn gold' : 'turn', 'data-turn': id }, [
      el('span', { cls: 'turn-id', text: (gold ? '\u2605 gold ' : '') + id }),
      ' ',
      el('span', { cls: 'turn-text', text: text === null ? '(text not available)' : text }),
    ]);
  }

  function systemColumn(runIndex, qi) {
    var run = runs[runIndex];
    var row = byQuestion[runIndex].get(qi);
    var q = Q[qi];
    var col = el('div', { cls: 'system-col', 'data-run': String(runIndex) }, [el('h4', { text: run.system }), el('p', { cls: 'muted', text: run.label })]);
    if (!row) { col.appendChild(el('p', { text: 'This question is not in this run.' })); return col; }
    var out = outcomeOf(row);
    col.appendChild(el('p', { cls: 'outcome ' + out }, [el('strong', { text: MARK[out] }), row[2] !== null ? ' (score ' + row[2].toFixed(2) + ')' : '']));
    if (row[7] !== -1) col.appendChild(el('p', { cls: 'error', text: 'Error: ' + S[row[7]] }));
    col.appendChild(el('dl', null, [el('dt', { text: 'Answer' }), el('dd', { cls: 'answer', text: str(row[1]) === null ? '(no answer: no reader in this run)' : str(row[1]) })]));
    if (row[3]) {
      var votes = el('ol', { cls: 'votes' });
      row[3].forEach(function (v, j) {
        var raw = row[4][j] !== undefined ? S[row[4][j]] : null;
        votes.appendChild(el('li', null, [
          el('span', { cls: v >= 0.5 ? 'vote yes' : 'vote no', text: 'judge run ' + (j + 1) + ': ' + (v >= 0.5 ? '\u2713 ' : '\u2717 ') + v }),
          // Disagreeing judges: the replies are what one wants to read, so they start open.
          raw !== null ? el('details', disagrees(row) ? { open: '' } : null, [el('summary', { text: 'raw reply' }), el('pre', { text: raw })]) : null,
        ]));
      });
      col.appendChild(el('div', null, [el('h5', { text: 'Judge votes' + (disagrees(row) ? ' (disagree)' : '') }), votes]));
    }
    if (row[8] === 0) {
      col.appendChild(el('p', { cls: 'trimmed note', text: 'Evidence and judge replies of this item are not in the page: it keeps per-question detail for ' + run.detailed + ' of ' + run.rows.length + ' items of this run, to stay small. The full record: rawrag show ' + run.label + ' ' + S[q[1]] }));
    }
    var goldSet = new Set(q[5]);
    var shown = new Set(row[6]);
    var cov = row[5] === 1 ? 'all gold evidence shown' : row[5] === 0 ? 'coverage miss: gold evidence not all shown' : 'coverage unknown';
    col.appendChild(el('p', { cls: row[5] === 0 ? 'cov miss' : 'cov', text: (row[5] === 0 ? '\u25cb ' : row[5] === 1 ? '\u25cf ' : '') + cov }));
    var missed = q[5].filter(function (t) { return !shown.has(t); });
    if (missed.length) {
      var ml = el('ul', { cls: 'missed' });
      missed.forEach(function (t) { ml.appendChild(turnLine(t, goldSet, shown)); });
      col.appendChild(el('div', null, [el('h5', { text: 'Gold evidence turns not shown to the reader (' + missed.length + ')' }), ml]));
    }
    if (row[6].length) {
      var ev = el('ol', { cls: 'evidence' });
      row[6].forEach(function (t) { ev.appendChild(turnLine(t, goldSet, shown)); });
      var goldShown = row[6].filter(function (t) { return goldSet.has(t); }).length;
      col.appendChild(el('details', { cls: 'evidence-box', open: '' }, [
        el('summary', { text: 'Evidence as the reader saw it: ' + row[6].length + ' turns, ' + goldShown + ' gold (\u2605)' + (run.evidence_text ? '' : ' \u2014 text unavailable: benchmark data not found when the report was made') }),
        ev,
      ]));
    }
    return col;
  }

  function renderDetail() {
    ui.tbody.querySelectorAll('tr').forEach(function (tr) { tr.className = Number(tr.getAttribute('data-q')) === state.selected ? 'selected' : ''; });
    var box = ui.detail;
    box.innerHTML = '';
    if (state.selected === -1) { box.appendChild(el('p', { text: 'No question selected.' })); return; }
    var q = Q[state.selected];
    box.setAttribute('data-q', String(state.selected));
    box.appendChild(el('h3', { text: S[q[1]] + ' \u00b7 ' + S[q[2]] + ' \u00b7 ' + S[q[0]] }));
    box.appendChild(el('dl', { cls: 'qa' }, [
      el('dt', { text: 'Question' }), el('dd', { cls: 'question', text: str(q[3]) || '(not in these runs)' }),
      el('dt', { text: 'Gold' }), el('dd', { cls: 'gold-answer', text: str(q[4]) === null ? '\u2014' : str(q[4]) }),
    ]));
    var cols = el('div', { cls: state.b >= 0 ? 'side-by-side two' : 'side-by-side' }, [systemColumn(state.a, state.selected), state.b >= 0 ? systemColumn(state.b, state.selected) : null]);
    box.appendChild(cols);
  }

  function initExplorer() {
    var root = document.getElementById('explorer-app');
    if (!root || runs.length === 0) return;
    ['bench', 'a', 'b', 'type', 'outcome', 'text', 'prev', 'next', 'count', 'tbody', 'detail', 'headB'].forEach(function (k) { ui[k] = document.getElementById('x-' + k); });
    refreshControls();
    function on(name, key, numeric) {
      ui[name].addEventListener(name === 'text' ? 'input' : 'change', function () {
        state[key] = numeric ? Number(ui[name].value) : (name === 'text' ? ui[name].value.trim().toLowerCase() : ui[name].value);
        state.page = 0;
        state.selected = -1;
        refreshControls();
        renderList();
      });
    }
    on('bench', 'bench', false);
    on('a', 'a', true);
    on('b', 'b', true);
    on('type', 'type', false);
    on('outcome', 'outcome', false);
    on('text', 'text', false);
    ui.text.addEventListener('input', function () { state.rawText = ui.text.value; });
    ui.text.value = state.rawText;
    ui.prev.addEventListener('click', function () { state.page--; state.selected = -1; renderList(); });
    ui.next.addEventListener('click', function () { state.page++; state.selected = -1; renderList(); });
    renderList();
  }

  /** The explorer's choices by name (run folders, question id), to find them again in newer data. */
  function remember() {
    if (!runs) return null;
    var q = state.selected >= 0 ? Q[state.selected] : null;
    return {
      a: state.a >= 0 && runs[state.a] ? runs[state.a].label : null,
      b: state.b >= 0 && runs[state.b] ? runs[state.b].label : null,
      q: q ? S[q[0]] + '\u0000' + S[q[1]] : null,
    };
  }
  function restore(kept) {
    if (!kept) return;
    var at = function (label) { for (var i = 0; i < runs.length; i++) if (runs[i].label === label) return i; return -1; };
    state.a = at(kept.a);
    state.b = kept.b === null ? -1 : at(kept.b);
    state.selected = -1;
    for (var i = 0; i < Q.length; i++) if (S[Q[i][0]] + '\u0000' + S[Q[i][1]] === kept.q) state.selected = i;
  }

  function start() {
    var kept = remember();
    load();
    restore(kept);
    document.body.removeAttribute('data-ready');
    initExplorer();
    return renderCharts().then(function () { document.body.setAttribute('data-ready', 'true'); });
  }

  window.rawragReport = { refresh: start };
  start();
})();
`;
