/**
 * The README says Node 20: every installed package must accept it (vega-lite 6.5 and puppeteer-core
 * 25 asked for Node >= 22, and `npm ci` warned). A small reader of the engines ranges the lockfile holds.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './../helpers/cli.js';

type V = [number, number, number];
const parse = (v: string): V => {
  const [a = 0, b = 0, c = 0] = v
    .replace(/^v/, '')
    .split('.')
    .map((x) => (x === 'x' || x === '*' ? 0 : Number(x)));
  return [a, b, c];
};
const cmp = (a: V, b: V) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];

/** Whether `version` satisfies a range of the forms npm packages use: >=, >, <, <=, ^, ~, N.x, exact, joined by spaces and ||. */
export function satisfies(version: string, range: string): boolean {
  const v = parse(version);
  return range
    .replace(/(>=|<=|>|<|\^|~|=)\s+/g, '$1')
    .split('||')
    .some((alt) =>
      alt
        .trim()
        .split(/\s+/)
        .filter(Boolean)
        .every((c) => {
          if (c === '*' || c === 'x') return true;
          const m = /^(>=|<=|>|<|\^|~|=)?(.+)$/.exec(c)!;
          const op = m[1] ?? '';
          const t = parse(m[2]!);
          if (op === '>=') return cmp(v, t) >= 0;
          if (op === '>') return cmp(v, t) > 0;
          if (op === '<') return cmp(v, t) < 0;
          if (op === '<=') return cmp(v, t) <= 0;
          if (op === '^') return cmp(v, t) >= 0 && v[0] === t[0];
          if (op === '~') return cmp(v, t) >= 0 && v[0] === t[0] && v[1] === t[1];
          if (/\.x$|^\d+$/.test(m[2]!)) return v[0] === t[0];
          return cmp(v, t) === 0;
        }),
    );
}

describe('Node version', () => {
  const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { engines?: { node?: string } | string[]; optional?: boolean }>;
  };
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } };

  it('reads the ranges the lockfile holds', () => {
    expect(satisfies('20.19.0', '>=22')).toBe(false);
    expect(satisfies('20.19.0', '>=22.12.0')).toBe(false);
    expect(satisfies('20.19.0', '^20.19.0 || >=22.12.0')).toBe(true);
    expect(satisfies('20.18.0', '^20.19.0 || >=22.12.0')).toBe(false);
    expect(satisfies('20.19.0', '20.x || 22.x')).toBe(true);
    expect(satisfies('20.19.0', '>=20.19.0 <22.0.0 || >=22.12.0')).toBe(true);
    expect(satisfies('20.19.0', '>= 10')).toBe(true);
  });

  it("every package accepts the lowest Node that package.json's engines (and the README) name", () => {
    const lowest = pkg.engines.node.replace(/^>=/, '');
    const refusing = Object.entries(lock.packages)
      .filter(([, p]) => p.engines && !Array.isArray(p.engines) && p.engines.node && !satisfies(lowest, p.engines.node))
      .map(([name, p]) => `${name} (${(p.engines as { node: string }).node})`);
    expect(refusing).toEqual([]);
    expect(readFileSync(join(ROOT, 'README.md'), 'utf8')).toContain(`Node ${lowest.replace(/\.0$/, '')}`);
  });
});
