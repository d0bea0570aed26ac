/** What every chart of the report shares (src/report/charts.ts): Vega-Lite config, sizes, label wrapping, legends. */
export type Spec = Record<string, unknown>;

export const WIDTH = 560;
export const FONT = { font: 'system-ui, sans-serif', labelFont: 'system-ui, sans-serif', titleFont: 'system-ui, sans-serif' };
export const CONFIG = {
  axis: { labelFont: FONT.labelFont, titleFont: FONT.titleFont, labelFontSize: 12, titleFontSize: 12, labelLimit: 340 },
  legend: {
    labelFont: FONT.labelFont,
    titleFont: FONT.titleFont,
    labelFontSize: 12,
    titleFontSize: 12,
    orient: 'bottom',
    direction: 'horizontal',
    labelLimit: 420,
    columns: 2,
  },
  axisQuantitative: { tickCount: 8, labelOverlap: true },
  text: { font: FONT.font, fontSize: 11 },
  view: { stroke: null },
};
export const SHAPES = ['circle', 'square', 'triangle-up', 'diamond', 'cross', 'triangle-down', 'wedge', 'stroke'];

/** Characters per line of a wrapped axis label (12 px type: about 250 px), and of a legend label. */
export const AXIS_LINE = 36;
export const LEGEND_LINE = 56;

/**
 * A long name as lines of at most `width` characters, broken after `/ + : , ·` or a space, or
 * before `[` (a `--name` label); a part longer than a line is cut into lines. Short names: one line.
 */
export function wrapLabel(s: string, width = AXIS_LINE): string[] {
  if (s.length <= width) return [s];
  const parts = s.split(/(?<=[/+:,·\s])|(?=\[)/);
  const lines: string[] = [];
  let line = '';
  for (let part of parts) {
    while (part.length > width) {
      if (line) lines.push(line.trimEnd());
      lines.push(part.slice(0, width));
      part = part.slice(width);
      line = '';
    }
    if (line && (line + part).trimEnd().length > width) {
      lines.push(line.trimEnd());
      line = '';
    }
    line += part;
  }
  if (line.trim()) lines.push(line.trimEnd());
  return lines;
}

/** A band tall enough for the most lines any of these labels wraps to (at least `min` pixels). */
export function stepFor(values: string[], min: number): { step: number } {
  return { step: Math.max(min, 14 * Math.max(1, ...values.map((v) => wrapLabel(v).length)) + 8) };
}

/** A legend of these labels, none cut off; one column when some are long. */
export function legendFor(values: string[]): Spec {
  return { ...uncut(values, LEGEND_LINE), ...(values.some((v) => v.length > 40) ? { columns: 1 } : {}) };
}

/**
 * Labels that are never cut off: no length limit, and each long value written on several lines
 * (a Vega label expression that returns an array draws one line per element). For an axis or a
 * legend whose labels are `values`.
 */
export function uncut(values: Iterable<string>, width = AXIS_LINE): Spec {
  const lines: Record<string, string[]> = {};
  for (const v of values) {
    const wrapped = wrapLabel(v, width);
    if (wrapped.length > 1) lines[v] = wrapped;
  }
  return { labelLimit: 0, ...(Object.keys(lines).length ? { labelExpr: `(${JSON.stringify(lines)})[datum.value] || datum.label` } : {}) };
}

export function base(title: string, description: string, extra: Spec): Spec {
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: { text: title, anchor: 'start', fontSize: 14 },
    description,
    config: CONFIG,
    width: WIDTH,
    ...extra,
  };
}

export const clamp01 = (x: number) => Math.min(1, Math.max(0, x));
export const pct = (x: number | null | undefined) =>
  x === null || x === undefined || !Number.isFinite(x) ? null : Math.round(x * 10000) / 100;
