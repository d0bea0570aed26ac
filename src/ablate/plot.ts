/**
 * The ablation plot, hand-written SVG (no plotting dependency): the compared figures against k
 * on a log axis, one line per window size (and per other switched setting), the reference marked.
 * One panel per figure: coverage always, accuracy when answers were judged.
 */
import type { AblationRow, AblationTable } from './paired-table.js';

const PALETTE = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f', '#bcbd22', '#17becf'];
const PANEL = { width: 520, height: 360, left: 64, right: 18, top: 30, bottom: 58 };
const LEGEND_WIDTH = 230;
const TITLE_HEIGHT = 34;

interface Series {
  label: string;
  color: string;
  dash: string | null;
  rows: AblationRow[];
}

export function ablationSvg(table: AblationTable, title: string): string {
  const series = seriesOf(table.rows);
  const panels: Array<{ name: string; axis: string; value: (r: AblationRow) => number | null }> = [
    { name: 'coverage', axis: 'coverage: all gold turns shown (%)', value: (r) => r.coverage },
  ];
  if (table.rows.some((r) => r.accuracy !== null)) panels.push({ name: 'accuracy', axis: 'accuracy (%)', value: (r) => r.accuracy });
  const width = panels.length * PANEL.width + LEGEND_WIDTH;
  const legendHeight = 40 + series.length * 22 + 40;
  const height = TITLE_HEIGHT + Math.max(PANEL.height, legendHeight);
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="Helvetica, Arial, sans-serif" font-size="12">`,
    `<rect width="${width}" height="${height}" fill="#ffffff"/>`,
    `<text x="${width / 2}" y="22" text-anchor="middle" font-size="15" font-weight="bold">${esc(title)}</text>`,
  ];
  const ks = [...new Set(table.rows.map((r) => r.k))].sort((a, b) => a - b);
  panels.forEach((p, i) => out.push(panel(series, ks, p, i * PANEL.width, TITLE_HEIGHT)));
  out.push(legend(series, panels.length * PANEL.width + 8, TITLE_HEIGHT + 10));
  out.push('</svg>');
  return out.join('\n') + '\n';
}

/** Lines = everything but k held fixed; the reference's line first. */
function seriesOf(rows: AblationRow[]): Series[] {
  const ref = rows.find((r) => r.is_default) ?? rows[0]!;
  const groups = new Map<string, AblationRow[]>();
  for (const r of rows) {
    const key = JSON.stringify([r.window, r.stride, r.candidates, r.rerank, r.expand, r.config]);
    let g = groups.get(key);
    if (!g) groups.set(key, (g = []));
    g.push(r);
  }
  // Colour = window size (the paper's second axis); dashes = the other switches.
  const memories = [...new Set(rows.map((r) => r.config))];
  const windows = [...new Set(rows.map((r) => `${r.window}/${r.stride}`))].sort((a, b) => parseInt(a) - parseInt(b) || a.localeCompare(b));
  const ordered = [...groups.values()].sort(
    (a, b) =>
      windows.indexOf(`${a[0]!.window}/${a[0]!.stride}`) - windows.indexOf(`${b[0]!.window}/${b[0]!.stride}`) ||
      Number(b[0]!.rerank) - Number(a[0]!.rerank) ||
      a[0]!.candidates - b[0]!.candidates ||
      Number(b[0]!.expand) - Number(a[0]!.expand),
  );
  return ordered.map((g) => {
    const r = g[0]!;
    const parts = [`window ${r.window}`];
    if (r.stride !== r.window - (ref.window - ref.stride)) parts.push(`stride ${r.stride}`);
    if (r.candidates !== ref.candidates) parts.push(`${r.candidates} candidates`);
    if (!r.rerank) parts.push('no rerank');
    if (r.expand !== ref.expand) parts.push(r.expand ? 'expanded' : 'no expansion');
    if (r.config) parts.push(r.config);
    const dashes = [
      r.rerank !== ref.rerank ? '8 4' : null,
      r.expand !== ref.expand ? '2 3' : null,
      r.candidates !== ref.candidates ? '12 3 2 3' : null,
    ].filter(Boolean);
    // System-knob variants share one window: each gets its own colour.
    const color = PALETTE[(windows.indexOf(`${r.window}/${r.stride}`) + memories.indexOf(r.config)) % PALETTE.length]!;
    return { label: parts.join(', '), color, dash: dashes.length ? dashes.join(' ') : null, rows: [...g].sort((a, b) => a.k - b.k) };
  });
}

function panel(
  series: Series[],
  ks: number[],
  p: { axis: string; value: (r: AblationRow) => number | null },
  x0: number,
  y0: number,
): string {
  const plotW = PANEL.width - PANEL.left - PANEL.right;
  const plotH = PANEL.height - PANEL.top - PANEL.bottom;
  const left = x0 + PANEL.left;
  const top = y0 + PANEL.top;
  const values = series
    .flatMap((s) => s.rows.map(p.value))
    .filter((v): v is number => v !== null)
    .map((v) => 100 * v);
  const [yMin, yMax, yStep] = niceRange(values);
  const [lo, hi] = logDomain(ks);
  const sx = (k: number) => left + ((Math.log10(k) - lo) / (hi - lo)) * plotW;
  const sy = (v: number) => top + plotH - ((v - yMin) / (yMax - yMin)) * plotH;
  const out: string[] = [`<g>`];
  out.push(`<rect x="${left}" y="${top}" width="${plotW}" height="${plotH}" fill="#fafafa" stroke="#999"/>`);
  for (let v = yMin; v <= yMax + 1e-9; v += yStep) {
    const y = f(sy(v));
    out.push(`<line x1="${left}" y1="${y}" x2="${left + plotW}" y2="${y}" stroke="#e3e3e3"/>`);
    out.push(`<text x="${left - 6}" y="${f(sy(v) + 4)}" text-anchor="end">${trimNum(v)}</text>`);
  }
  for (const k of ks) {
    const x = f(sx(k));
    out.push(`<line x1="${x}" y1="${top}" x2="${x}" y2="${top + plotH}" stroke="#e3e3e3"/>`);
    out.push(`<text x="${x}" y="${top + plotH + 16}" text-anchor="middle">${k}</text>`);
  }
  out.push(`<text x="${left + plotW / 2}" y="${top + plotH + 40}" text-anchor="middle">k = evidence windows kept (log scale)</text>`);
  out.push(`<text transform="translate(${x0 + 16} ${top + plotH / 2}) rotate(-90)" text-anchor="middle">${esc(p.axis)}</text>`);
  for (const s of series) {
    const pts = s.rows.map((r) => ({ r, v: p.value(r) })).filter((x): x is { r: AblationRow; v: number } => x.v !== null);
    if (pts.length > 1) {
      const d = pts.map(({ r, v }) => `${f(sx(r.k))},${f(sy(100 * v))}`).join(' ');
      out.push(
        `<polyline points="${d}" fill="none" stroke="${s.color}" stroke-width="2"${s.dash ? ` stroke-dasharray="${s.dash}"` : ''}/>`,
      );
    }
    for (const { r, v } of pts) out.push(`<circle cx="${f(sx(r.k))}" cy="${f(sy(100 * v))}" r="3.5" fill="${s.color}"/>`);
  }
  const ref = series.flatMap((s) => s.rows).find((r) => r.is_default);
  const refValue = ref ? p.value(ref) : null;
  if (ref && refValue !== null) {
    const cx = f(sx(ref.k));
    const cy = f(sy(100 * refValue));
    out.push(`<circle cx="${cx}" cy="${cy}" r="8" fill="none" stroke="#000" stroke-width="2"/>`);
    // A white halo keeps the label legible wherever lines pass.
    out.push(
      `<text x="${cx}" y="${f(sy(100 * refValue) + 24)}" text-anchor="middle" font-weight="bold" stroke="#fff" stroke-width="4" paint-order="stroke">default</text>`,
    );
  }
  out.push('</g>');
  return out.join('\n');
}

function legend(series: Series[], x: number, y: number): string {
  const out = [`<g>`, `<text x="${x}" y="${y + 14}" font-weight="bold">one line per setting</text>`];
  series.forEach((s, i) => {
    const ly = y + 36 + i * 22;
    out.push(
      `<line x1="${x}" y1="${ly}" x2="${x + 28}" y2="${ly}" stroke="${s.color}" stroke-width="2"${s.dash ? ` stroke-dasharray="${s.dash}"` : ''}/>`,
    );
    out.push(`<circle cx="${x + 14}" cy="${ly}" r="3.5" fill="${s.color}"/>`);
    out.push(`<text x="${x + 36}" y="${ly + 4}">${esc(s.label)}</text>`);
  });
  const ry = y + 36 + series.length * 22 + 6;
  out.push(`<circle cx="${x + 14}" cy="${ry}" r="8" fill="none" stroke="#000" stroke-width="2"/>`);
  out.push(`<text x="${x + 36}" y="${ry + 4}">default (reference)</text>`);
  out.push('</g>');
  return out.join('\n');
}

/** log10 domain around the k values, padded so end points are not on the frame. */
function logDomain(ks: number[]): [number, number] {
  const lo = Math.log10(Math.min(...ks));
  const hi = Math.log10(Math.max(...ks));
  const pad = Math.max(0.08 * (hi - lo), 0.15);
  return [lo - pad, hi + pad];
}

/** A y range with round tick steps (1, 2, 2.5 or 5 x 10^n), about five ticks, kept within 0-100. */
export function niceRange(values: number[]): [number, number, number] {
  if (values.length === 0) return [0, 100, 20];
  let lo = Math.min(...values);
  let hi = Math.max(...values);
  if (hi - lo < 1) {
    lo -= 0.5;
    hi += 0.5;
  }
  const raw = (hi - lo) / 5;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= raw)!;
  const clean = (x: number) => Math.round(x * 1e9) / 1e9; // 197 * 0.2 = 39.400000000000006
  const yMin = Math.max(0, clean(Math.floor(lo / step) * step));
  const yMax = Math.min(100, clean(Math.ceil(hi / step) * step));
  return [yMin, yMax > yMin ? yMax : yMin + step, step];
}

function f(x: number): string {
  return x.toFixed(1);
}

function trimNum(v: number): string {
  return String(Math.round(v * 100) / 100);
}

function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
