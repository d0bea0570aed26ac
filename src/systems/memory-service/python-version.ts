/**
 * Whether an interpreter's version satisfies an install's PEP 440 specifier (`>=3.11`,
 * `>=3.12,<3.13`, `==3.12.*`, `~=3.11`): the subset Python's `requires-python` lines use.
 */
import { spawnSync } from 'node:child_process';

const nums = (v: string): number[] => v.split('.').map((x) => Number.parseInt(x, 10) || 0);

function cmp(a: number[], b: number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return Math.sign(d);
  }
  return 0;
}

function clause(version: number[], c: string): boolean {
  const m = /^(~=|===|==|!=|<=|>=|<|>)\s*([0-9][0-9.]*)(\.\*)?$/.exec(c.trim());
  if (!m) throw new Error(`not a version specifier: '${c}'`);
  const [, op, v, wild] = m;
  const want = nums(v!);
  if (wild) {
    const prefix = version.slice(0, want.length);
    const eq = cmp(prefix, want) === 0;
    return op === '!=' ? !eq : eq;
  }
  const d = cmp(version, want);
  switch (op) {
    case '==':
    case '===':
      return d === 0;
    case '!=':
      return d !== 0;
    case '<':
      return d < 0;
    case '<=':
      return d <= 0;
    case '>':
      return d > 0;
    case '>=':
      return d >= 0;
    default: {
      // ~=X.Y means >=X.Y, ==X.*
      const upper = want.slice(0, Math.max(1, want.length - 1));
      return d >= 0 && cmp(version.slice(0, upper.length), upper) === 0;
    }
  }
}

/** Whether `version` (e.g. `3.11.7`) satisfies every clause of `specifier` (comma-separated). */
export function satisfiesPython(version: string, specifier: string): boolean {
  const v = nums(version);
  return specifier
    .split(',')
    .filter((c) => c.trim() !== '')
    .every((c) => clause(v, c));
}

/** The `X.Y.Z` version of an interpreter, or null when it cannot be run. */
export function pythonVersionOf(python: string): string | null {
  const r = spawnSync(python, ['-c', 'import sys; print(".".join(map(str, sys.version_info[:3])))'], { encoding: 'utf8' });
  if (r.error || r.status !== 0) return null;
  return r.stdout.trim() || null;
}
