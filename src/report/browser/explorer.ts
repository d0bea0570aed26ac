/**
 * The report page's script (browser TypeScript, bundled by scripts/build-browser.mjs into
 * dist/browser/report.js and inlined into every page): renders the Vega-Lite charts with the
 * bundled vega-embed and drives the per-question explorer. It reads one JSON blob (#report-data)
 * and never touches the network. `window.rawragReport.refresh()` reads the blob and the page's
 * sections again (rawrag view swaps in newer ones), keeping the explorer's choices.
 */

/** [question index, answer, score, votes, judge replies, coverage, evidence turns, error, detail] (see src/report/data.ts). */
type AnswerRow = [number, number, number | null, number[] | null, number[], number, number[], number, 0 | 1];
/** [benchmark, id, type, question text, gold, gold evidence turn refs] (strings as indices). */
type QuestionRow = [number, number, number, number, number, number[]];

interface PageRun {
  label: string;
  system: string;
  benchmark: string;
  detailed: number;
  evidence_text: boolean;
  rows: AnswerRow[];
}

/** The part of the page's #report-data blob this script reads. */
interface PageData {
  s: string[];
  questions: QuestionRow[];
  runs: PageRun[];
  charts: Record<string, unknown>;
  turns: number[];
}

type Outcome = 'correct' | 'incorrect' | 'unscored' | 'error' | 'absent';
type Child = Node | string | null | undefined;

interface Kept {
  a: string | null;
  b: string | null;
  q: string | null;
}

declare global {
  interface Window {
    vegaEmbed(node: Element, spec: unknown, options: Record<string, unknown>): Promise<unknown>;
    rawragReport?: { refresh(): Promise<void> };
  }
}

let D: PageData;
let S: string[];
let Q: QuestionRow[];
let runs: PageRun[] | undefined;
let byQuestion: Array<Map<number, AnswerRow>>;
const PAGE = 25;

function load(): void {
  D = JSON.parse(document.getElementById('report-data')!.textContent!) as PageData;
  S = D.s;
  Q = D.questions;
  runs = D.runs;
  byQuestion = runs.map(function (r) {
    const m = new Map<number, AnswerRow>();
    r.rows.forEach(function (row) {
      m.set(row[0], row);
    });
    return m;
  });
}

function allRuns(): PageRun[] {
  return runs!;
}

function str(i: number | null | undefined): string | null {
  return i === -1 || i === null || i === undefined ? null : S[i]!;
}

function el(tag: string, attrs?: Record<string, string> | null, children?: Child[]): HTMLElement {
  const e = document.createElement(tag);
  if (attrs)
    for (const k in attrs) {
      if (k === 'text') e.textContent = attrs[k]!;
      else if (k === 'cls') e.className = attrs[k]!;
      else e.setAttribute(k, attrs[k]!);
    }
  (children || []).forEach(function (c) {
    if (c !== null && c !== undefined) e.appendChild(typeof c === 'string' ? document.createTextNode(c) : c);
  });
  return e;
}

// ---- charts -------------------------------------------------------------------------------
function renderCharts(): Promise<unknown> {
  const nodes = document.querySelectorAll('[data-chart]');
  const pending: Array<Promise<unknown>> = [];
  nodes.forEach(function (node) {
    const spec = D.charts[node.getAttribute('data-chart')!];
    if (!spec) return;
    pending.push(
      window
        .vegaEmbed(node, spec, { renderer: 'svg', actions: false })
        .then(function () {
          node.setAttribute('data-rendered', 'true');
        })
        .catch(function (e: Error) {
          node.textContent = 'chart failed to render: ' + e.message;
          console.error(e);
        }),
    );
  });
  return Promise.all(pending);
}

// ---- explorer -----------------------------------------------------------------------------
interface ExplorerState {
  bench: string;
  a: number;
  b: number;
  type: string;
  outcome: string;
  text: string;
  rawText: string;
  page: number;
  selected: number;
}
const state: ExplorerState = { bench: '', a: -1, b: -1, type: '', outcome: 'all', text: '', rawText: '', page: 0, selected: -1 };

interface ExplorerUi {
  bench: HTMLSelectElement;
  a: HTMLSelectElement;
  b: HTMLSelectElement;
  type: HTMLSelectElement;
  outcome: HTMLSelectElement;
  text: HTMLInputElement;
  prev: HTMLButtonElement;
  next: HTMLButtonElement;
  count: HTMLElement;
  tbody: HTMLElement;
  detail: HTMLElement;
  headB: HTMLElement;
}
const ui = {} as ExplorerUi;

function outcomeOf(row: AnswerRow | null | undefined): Outcome {
  if (!row) return 'absent';
  if (row[7] !== -1) return 'error';
  if (row[2] === null) return 'unscored';
  return row[2] >= 0.5 ? 'correct' : 'incorrect';
}

function disagrees(row: AnswerRow | null | undefined): boolean {
  if (!row || !row[3] || row[3].length < 2) return false;
  const votes = row[3];
  return votes.some(function (v) {
    return v !== votes[0];
  });
}

const MARK: Record<Outcome, string> = {
  correct: '\u2713 correct',
  incorrect: '\u2717 incorrect',
  unscored: '\u2013 not judged',
  error: '! error',
  absent: '\u00b7 not in run',
};

function matches(qi: number): boolean {
  const q = Q[qi]!;
  const rowA = byQuestion[state.a]!.get(qi);
  const rowB = state.b >= 0 ? byQuestion[state.b]!.get(qi) : null;
  if (state.type && S[q[2]] !== state.type) return false;
  if (state.text) {
    const hay = (S[q[1]] + ' ' + (str(q[3]) || '') + ' ' + (str(q[4]) || '') + ' ' + (rowA ? str(rowA[1]) || '' : '')).toLowerCase();
    if (hay.indexOf(state.text) === -1) return false;
  }
  switch (state.outcome) {
    case 'all':
      return true;
    case 'correct':
    case 'incorrect':
    case 'unscored':
    case 'error':
      return outcomeOf(rowA) === state.outcome;
    case 'disagree':
      return disagrees(rowA);
    case 'covmiss':
      return !!rowA && rowA[5] === 0;
    case 'a-only':
      return outcomeOf(rowA) === 'correct' && outcomeOf(rowB) === 'incorrect';
    case 'b-only':
      return outcomeOf(rowA) === 'incorrect' && outcomeOf(rowB) === 'correct';
  }
  return true;
}

function runLabel(i: number): string {
  return allRuns()[i]!.system + ' \u2014 ' + allRuns()[i]!.label;
}

function fillSelect(select: HTMLSelectElement, options: Array<[string | number, string]>, value: string | number): void {
  select.innerHTML = '';
  options.forEach(function (o) {
    select.appendChild(el('option', { value: String(o[0]), text: o[1] }));
  });
  select.value = String(value);
}

function refreshControls(): void {
  const rs = allRuns();
  const benches: string[] = [];
  rs.forEach(function (r) {
    if (benches.indexOf(r.benchmark) === -1) benches.push(r.benchmark);
  });
  if (!state.bench || benches.indexOf(state.bench) === -1) state.bench = benches[0] || '';
  fillSelect(
    ui.bench,
    benches.map(function (b): [string, string] {
      return [b, b];
    }),
    state.bench,
  );
  const inBench = rs
    .map(function (_r, i) {
      return i;
    })
    .filter(function (i) {
      return rs[i]!.benchmark === state.bench;
    });
  if (inBench.indexOf(state.a) === -1) state.a = inBench[0]!;
  if (state.b === state.a || (state.b >= 0 && inBench.indexOf(state.b) === -1)) state.b = -1;
  const labelled = function (i: number): [number, string] {
    return [i, runLabel(i)];
  };
  fillSelect(ui.a, inBench.map(labelled), state.a);
  const others = inBench.filter(function (i) {
    return i !== state.a;
  });
  fillSelect(ui.b, ([[-1, '(none)']] as Array<[number, string]>).concat(others.map(labelled)), state.b);
  refreshFilters();
}

/** The question-type and outcome choices for run A (and B, when one is chosen). */
function refreshFilters(): void {
  const types: string[] = [];
  allRuns()[state.a]!.rows.forEach(function (row) {
    const t = S[Q[row[0]]![2]]!;
    if (types.indexOf(t) === -1) types.push(t);
  });
  if (types.indexOf(state.type) === -1) state.type = '';
  fillSelect(
    ui.type,
    ([['', 'all types']] as Array<[string, string]>).concat(
      types.map(function (t): [string, string] {
        return [t, t];
      }),
    ),
    state.type,
  );
  const outcomes: Array<[string, string]> = [
    ['all', 'all'],
    ['correct', 'correct'],
    ['incorrect', 'incorrect'],
    ['disagree', 'judges disagree'],
    ['covmiss', 'coverage miss (gold evidence not all shown)'],
    ['unscored', 'not judged'],
    ['error', 'failed'],
  ];
  if (state.b >= 0) outcomes.push(['a-only', 'A correct, B incorrect'], ['b-only', 'A incorrect, B correct']);
  if (
    !outcomes.some(function (o) {
      return o[0] === state.outcome;
    })
  )
    state.outcome = 'all';
  fillSelect(ui.outcome, outcomes, state.outcome);
}

function currentList(): number[] {
  const seen = new Set<number>();
  const list: number[] = [];
  allRuns()[state.a]!.rows.forEach(function (row) {
    if (!seen.has(row[0])) {
      seen.add(row[0]);
      if (matches(row[0])) list.push(row[0]);
    }
  });
  return list;
}

/** An outcome cell: the mark, ≠ when the judges disagree, ○ on a coverage miss. */
function outcomeCell(row: AnswerRow | null | undefined): HTMLElement {
  return el('td', {
    cls: 'outcome ' + outcomeOf(row),
    text: MARK[outcomeOf(row)] + (disagrees(row) ? ' \u2260' : '') + (row && row[5] === 0 ? ' \u25cb' : ''),
  });
}

function listRow(qi: number): HTMLElement {
  const q = Q[qi]!;
  const rowA = byQuestion[state.a]!.get(qi);
  const rowB = state.b >= 0 ? byQuestion[state.b]!.get(qi) : null;
  const btn = el('button', { type: 'button', cls: 'linkish', 'data-q': String(qi), text: S[q[1]]! });
  btn.addEventListener('click', function () {
    state.selected = qi;
    renderDetail();
  });
  return el('tr', { 'data-q': String(qi), cls: qi === state.selected ? 'selected' : '' }, [
    el('td', null, [btn]),
    el('td', { text: S[q[2]]! }),
    outcomeCell(rowA),
    state.b >= 0 ? outcomeCell(rowB) : null,
    el('td', { cls: 'qtext', text: str(q[3]) || '(question text not in this run)' }),
  ]);
}

function renderList(): void {
  const list = currentList();
  const pages = Math.max(1, Math.ceil(list.length / PAGE));
  if (state.page >= pages) state.page = pages - 1;
  const slice = list.slice(state.page * PAGE, (state.page + 1) * PAGE);
  ui.count.textContent = list.length + ' question' + (list.length === 1 ? '' : 's') + ' match; page ' + (state.page + 1) + ' of ' + pages;
  ui.count.setAttribute('data-count', String(list.length));
  ui.prev.disabled = state.page === 0;
  ui.next.disabled = state.page >= pages - 1;
  const tbody = ui.tbody;
  tbody.innerHTML = '';
  slice.forEach(function (qi) {
    tbody.appendChild(listRow(qi));
  });
  ui.headB.hidden = state.b < 0;
  if (state.selected === -1 && slice.length) state.selected = slice[0]!;
  renderDetail();
}

function turnLine(t: number, goldSet: Set<number>): HTMLElement {
  const id = S[D.turns[2 * t]!]!;
  const text = str(D.turns[2 * t + 1]);
  const gold = goldSet.has(t);
  return el('li', { cls: gold ? 'turn gold' : 'turn', 'data-turn': id }, [
    el('span', { cls: 'turn-id', text: (gold ? '\u2605 gold ' : '') + id }),
    ' ',
    el('span', { cls: 'turn-text', text: text === null ? '(text not available)' : text }),
  ]);
}

function judgeVotes(row: AnswerRow, votes: number[]): HTMLElement {
  const list = el('ol', { cls: 'votes' });
  votes.forEach(function (v, j) {
    const raw = row[4][j] !== undefined ? S[row[4][j]!]! : null;
    list.appendChild(
      el('li', null, [
        el('span', {
          cls: v >= 0.5 ? 'vote yes' : 'vote no',
          text: 'judge run ' + (j + 1) + ': ' + (v >= 0.5 ? '\u2713 ' : '\u2717 ') + v,
        }),
        // Disagreeing judges: the replies are what one wants to read, so they start open.
        raw !== null
          ? el('details', disagrees(row) ? { open: '' } : null, [el('summary', { text: 'raw reply' }), el('pre', { text: raw })])
          : null,
      ]),
    );
  });
  return el('div', null, [el('h5', { text: 'Judge votes' + (disagrees(row) ? ' (disagree)' : '') }), list]);
}

/** Coverage line, the gold turns the reader missed, and the evidence as the reader saw it. */
function evidenceParts(col: HTMLElement, run: PageRun, row: AnswerRow, q: QuestionRow): void {
  const goldSet = new Set(q[5]);
  const shown = new Set(row[6]);
  const cov = row[5] === 1 ? 'all gold evidence shown' : row[5] === 0 ? 'coverage miss: gold evidence not all shown' : 'coverage unknown';
  col.appendChild(
    el('p', { cls: row[5] === 0 ? 'cov miss' : 'cov', text: (row[5] === 0 ? '\u25cb ' : row[5] === 1 ? '\u25cf ' : '') + cov }),
  );
  const missed = q[5].filter(function (t) {
    return !shown.has(t);
  });
  if (missed.length) {
    const ml = el('ul', { cls: 'missed' });
    missed.forEach(function (t) {
      ml.appendChild(turnLine(t, goldSet));
    });
    col.appendChild(el('div', null, [el('h5', { text: 'Gold evidence turns not shown to the reader (' + missed.length + ')' }), ml]));
  }
  if (row[6].length) {
    const ev = el('ol', { cls: 'evidence' });
    row[6].forEach(function (t) {
      ev.appendChild(turnLine(t, goldSet));
    });
    const goldShown = row[6].filter(function (t) {
      return goldSet.has(t);
    }).length;
    col.appendChild(
      el('details', { cls: 'evidence-box', open: '' }, [
        el('summary', {
          text:
            'Evidence as the reader saw it: ' +
            row[6].length +
            ' turns, ' +
            goldShown +
            ' gold (\u2605)' +
            (run.evidence_text ? '' : ' \u2014 text unavailable: benchmark data not found when the report was made'),
        }),
        ev,
      ]),
    );
  }
}

function systemColumn(runIndex: number, qi: number): HTMLElement {
  const run = allRuns()[runIndex]!;
  const row = byQuestion[runIndex]!.get(qi);
  const q = Q[qi]!;
  const col = el('div', { cls: 'system-col', 'data-run': String(runIndex) }, [
    el('h4', { text: run.system }),
    el('p', { cls: 'muted', text: run.label }),
  ]);
  if (!row) {
    col.appendChild(el('p', { text: 'This question is not in this run.' }));
    return col;
  }
  const out = outcomeOf(row);
  col.appendChild(
    el('p', { cls: 'outcome ' + out }, [el('strong', { text: MARK[out] }), row[2] !== null ? ' (score ' + row[2].toFixed(2) + ')' : '']),
  );
  if (row[7] !== -1) col.appendChild(el('p', { cls: 'error', text: 'Error: ' + S[row[7]] }));
  const answer = str(row[1]);
  col.appendChild(
    el('dl', null, [
      el('dt', { text: 'Answer' }),
      el('dd', { cls: 'answer', text: answer === null ? '(no answer: no reader in this run)' : answer }),
    ]),
  );
  if (row[3]) col.appendChild(judgeVotes(row, row[3]));
  if (row[8] === 0) {
    col.appendChild(
      el('p', {
        cls: 'trimmed note',
        text:
          'Evidence and judge replies of this item are not in the page: it keeps per-question detail for ' +
          run.detailed +
          ' of ' +
          run.rows.length +
          ' items of this run, to stay small. The full record: rawrag show ' +
          run.label +
          ' ' +
          S[q[1]],
      }),
    );
  }
  evidenceParts(col, run, row, q);
  return col;
}

function renderDetail(): void {
  ui.tbody.querySelectorAll('tr').forEach(function (tr) {
    tr.className = Number(tr.getAttribute('data-q')) === state.selected ? 'selected' : '';
  });
  const box = ui.detail;
  box.innerHTML = '';
  if (state.selected === -1) {
    box.appendChild(el('p', { text: 'No question selected.' }));
    return;
  }
  const q = Q[state.selected]!;
  box.setAttribute('data-q', String(state.selected));
  box.appendChild(el('h3', { text: S[q[1]] + ' \u00b7 ' + S[q[2]] + ' \u00b7 ' + S[q[0]] }));
  const gold = str(q[4]);
  box.appendChild(
    el('dl', { cls: 'qa' }, [
      el('dt', { text: 'Question' }),
      el('dd', { cls: 'question', text: str(q[3]) || '(not in these runs)' }),
      el('dt', { text: 'Gold' }),
      el('dd', { cls: 'gold-answer', text: gold === null ? '\u2014' : gold }),
    ]),
  );
  const cols = el('div', { cls: state.b >= 0 ? 'side-by-side two' : 'side-by-side' }, [
    systemColumn(state.a, state.selected),
    state.b >= 0 ? systemColumn(state.b, state.selected) : null,
  ]);
  box.appendChild(cols);
}

type Filter = 'bench' | 'a' | 'b' | 'type' | 'outcome' | 'text';

/** A control's change (typing, for the text box) sets its field of the state and redraws from the first page. */
function on(name: Filter): void {
  const control = ui[name];
  control.addEventListener(name === 'text' ? 'input' : 'change', function () {
    if (name === 'a' || name === 'b') state[name] = Number(control.value);
    else state[name] = name === 'text' ? control.value.trim().toLowerCase() : control.value;
    state.page = 0;
    state.selected = -1;
    refreshControls();
    renderList();
  });
}

function initExplorer(): void {
  const root = document.getElementById('explorer-app');
  if (!root || allRuns().length === 0) return;
  const keys: Array<keyof ExplorerUi> = ['bench', 'a', 'b', 'type', 'outcome', 'text', 'prev', 'next', 'count', 'tbody', 'detail', 'headB'];
  const found = ui as unknown as Record<string, HTMLElement | null>;
  keys.forEach(function (k) {
    found[k] = document.getElementById('x-' + k);
  });
  refreshControls();
  on('bench');
  on('a');
  on('b');
  on('type');
  on('outcome');
  on('text');
  ui.text.addEventListener('input', function () {
    state.rawText = ui.text.value;
  });
  ui.text.value = state.rawText;
  ui.prev.addEventListener('click', function () {
    state.page--;
    state.selected = -1;
    renderList();
  });
  ui.next.addEventListener('click', function () {
    state.page++;
    state.selected = -1;
    renderList();
  });
  renderList();
}

/** The explorer's choices by name (run folders, question id), to find them again in newer data. */
function remember(): Kept | null {
  if (!runs) return null;
  const rs = runs;
  const q = state.selected >= 0 ? Q[state.selected]! : null;
  return {
    a: state.a >= 0 && rs[state.a] ? rs[state.a]!.label : null,
    b: state.b >= 0 && rs[state.b] ? rs[state.b]!.label : null,
    q: q ? S[q[0]] + '\u0000' + S[q[1]] : null,
  };
}

function restore(kept: Kept | null): void {
  if (!kept) return;
  const rs = allRuns();
  const at = function (label: string | null): number {
    for (let i = 0; i < rs.length; i++) if (rs[i]!.label === label) return i;
    return -1;
  };
  state.a = at(kept.a);
  state.b = kept.b === null ? -1 : at(kept.b);
  state.selected = -1;
  for (let i = 0; i < Q.length; i++) if (S[Q[i]![0]] + '\u0000' + S[Q[i]![1]] === kept.q) state.selected = i;
}

function start(): Promise<void> {
  const kept = remember();
  load();
  restore(kept);
  document.body.removeAttribute('data-ready');
  initExplorer();
  return renderCharts().then(function () {
    document.body.setAttribute('data-ready', 'true');
  });
}

window.rawragReport = { refresh: start };
void start();

export {};
