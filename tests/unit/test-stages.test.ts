/**
 * The three test stages (docs/testing.md) are named the same everywhere: package.json's scripts,
 * CI's .ci/run (in order: fast, slow, real), the README and docs/testing.md, and the vitest
 * projects the scripts select.
 */
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../helpers/cli.js';
import config from '../../vitest.config.js';

const read = (p: string) => readFileSync(join(ROOT, p), 'utf8');
const STAGES = ['npm test', 'npm run test:slow', 'npm run test:real'];

describe('test stages', () => {
  it('package.json runs the fast and slow stages through scripts/test.mjs, the real one on its own config', () => {
    const scripts = JSON.parse(read('package.json')).scripts as Record<string, string>;
    expect(scripts.test).toBe('node scripts/test.mjs fast');
    expect(scripts['test:slow']).toBe('node scripts/test.mjs slow');
    expect(scripts['test:real']).toMatch(/--config vitest\.real\.config\.ts/);
  });

  it('.ci/run runs the three stages in order, each once; the README and docs/testing.md name each', () => {
    const ci = read('.ci/run')
      .split('\n')
      .filter((l) => !l.trim().startsWith('#'));
    const at = STAGES.map((cmd) => ci.findIndex((l) => l.trim() === cmd));
    expect(
      at.every((i) => i >= 0),
      `.ci/run lacks one of ${STAGES.join(', ')}`,
    ).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
    for (const doc of ['README.md', 'docs/testing.md'])
      for (const cmd of STAGES) expect(read(doc), `${doc} names ${cmd}`).toContain(`\`${cmd}\``);
  });

  it("vitest's projects are unit (and its files that need a process of their own), e2e and slow; tests/slow holds only test files the slow project includes", () => {
    const projects = (config.test?.projects ?? []) as Array<{ test: { name: string; include: string[]; exclude?: string[] } }>;
    expect(projects.map((p) => p.test.name)).toEqual(['unit', 'unit-own-process', 'e2e', 'slow-shared', 'slow-own-process']);
    // Every file of its own process is a unit test that exists and that the shared unit project leaves out.
    const own = projects.find((p) => p.test.name === 'unit-own-process')!.test.include;
    expect(projects.find((p) => p.test.name === 'unit')!.test.exclude).toEqual(own);
    for (const f of own) expect(readdirSync(join(ROOT, f, '..')), f).toContain(f.split('/').at(-1));
    const slowOwn = projects.find((p) => p.test.name === 'slow-own-process')!.test.include;
    expect(projects.find((p) => p.test.name === 'slow-shared')!.test.exclude).toEqual(slowOwn);
    for (const f of slowOwn)
      expect(f.startsWith('tests/slow/') && readdirSync(join(ROOT, 'tests', 'slow')).includes(f.split('/').at(-1)!), f).toBe(true);
    expect(projects.find((p) => p.test.name === 'slow-shared')!.test.include).toEqual(['tests/slow/**/*.test.ts']);
    const files = readdirSync(join(ROOT, 'tests', 'slow'));
    expect(files.length).toBeGreaterThan(0);
    expect(files.filter((f) => !f.endsWith('.test.ts'))).toEqual([]);
  });

  it('scripts/test.mjs refuses an unknown stage, naming the ones it knows', () => {
    const r = spawnSync(process.execPath, [join(ROOT, 'scripts', 'test.mjs'), 'quick'], { cwd: ROOT, encoding: 'utf8' });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('one of fast, slow (got quick)');
  });
});
