/** Plain-text and Markdown tables for terminal output and reports. */
export function markdownTable(header: string[], rows: Array<Array<string | number>>, align?: Array<'l' | 'r'>): string {
  const cells = [header, ...rows.map((r) => r.map(String))];
  const width = header.map((_, c) => Math.max(...cells.map((r) => (r[c] ?? '').length), 3));
  const al = align ?? header.map((_, c) => (c === 0 ? 'l' : 'r'));
  const line = (r: string[]) => '| ' + r.map((v, c) => (al[c] === 'r' ? v.padStart(width[c]!) : v.padEnd(width[c]!))).join(' | ') + ' |';
  const sep = '|' + width.map((w, c) => (al[c] === 'r' ? '-'.repeat(w + 1) + ':' : ':' + '-'.repeat(w + 1))).join('|') + '|';
  return [line(cells[0]!), sep, ...cells.slice(1).map(line)].join('\n');
}

export function pct(x: number | null | undefined, digits = 2): string {
  return x === null || x === undefined ? '—' : (100 * x).toFixed(digits);
}
