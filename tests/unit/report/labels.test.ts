/** Chart labels: long names wrap instead of being cut; runs of one system are told apart by label, then setting, then folder. */
import { describe, expect, it } from 'vitest';
import { distinctRunNames, leaderboardChart, wrapLabel } from '../../../src/report/charts.js';

describe('wrapLabel', () => {
  it('keeps a short name on one line and breaks a long one at its separators, losing no character', () => {
    expect(wrapLabel('RAW-RAG/local')).toEqual(['RAW-RAG/local']);
    const name = 'RAW-RAG/openai:text-embedding-3-small+cohere:rerank-v3.5 [paper retriever]';
    const lines = wrapLabel(name, 36);
    expect(lines).toEqual(['RAW-RAG/openai:', 'text-embedding-3-small+cohere:', 'rerank-v3.5 [paper retriever]']);
    expect(lines.every((l) => l.length <= 36)).toBe(true);
    expect(lines.join('').replace(/\s/g, '')).toBe(name.replace(/\s/g, ''));
    // A part longer than a line is cut into lines.
    expect(wrapLabel('x'.repeat(80), 36)).toEqual(['x'.repeat(36), 'x'.repeat(36), 'x'.repeat(8)]);
  });

  it('gives a chart axis no length limit and the long names as lines', () => {
    const system = 'RAW-RAG/openai:text-embedding-3-small+cohere:rerank-v3.5';
    const row = (s: string) => ({ system: s, columns: { overall: { accuracy: 0.5, ci_low: 0.4, ci_high: 0.6 } } });
    const spec = leaderboardChart({
      stats: {
        benchmark: 'locomo',
        setting: 'locomo/gpt-4o-mini',
        leaderboard: [row(system), row('Mem0')],
        aggregation: { overall: 'micro' },
      },
      paper: {},
    } as never) as { encoding: { y: { axis: { labelLimit: number; labelExpr: string } } } };
    const axis = spec.encoding.y.axis;
    expect(axis.labelLimit).toBe(0);
    expect(axis.labelExpr).toBe(`(${JSON.stringify({ [system]: wrapLabel(system) })})[datum.value] || datum.label`);
  });
});

describe('distinctRunNames', () => {
  const run = (system: string, setting: string, label: string, name: string | null = null) => ({ system, setting, label, name });
  it('names each run by its system and --name label, adding the setting, then the folder, only where two would read the same', () => {
    const names = distinctRunNames([
      run('RAW-RAG/local', 'locomo/gpt-4o-mini', 'results/a'),
      run('RAW-RAG/local', 'locomo/gpt-4.1-mini', 'results/b'),
      run('RAW-RAG/local', 'locomo/gpt-4.1-mini', 'results/c'),
      run('RAW-RAG/local', 'locomo/gpt-4.1-mini', 'results/d', 'my prompt'),
      run('Mem0', 'locomo/gpt-4o-mini', 'results/mem0'),
    ]);
    expect(names).toEqual([
      'RAW-RAG/local · locomo/gpt-4o-mini',
      'RAW-RAG/local · locomo/gpt-4.1-mini · results/b',
      'RAW-RAG/local · locomo/gpt-4.1-mini · results/c',
      'RAW-RAG/local [my prompt]',
      'Mem0',
    ]);
  });
});
