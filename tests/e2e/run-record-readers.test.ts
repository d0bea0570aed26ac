/**
 * Every command that reads a run directory reads it through the run record (src/run-files/record.ts):
 * fed the rawrag.run/1 fixture (tests/fixtures/runs/rawrag.run-1, written by 016f2b1's own CLI) it
 * reads it, upgraded; fed a corrupt run (bad JSON, a wrong type, a missing field, an unknown
 * version) it stops with exit 2 (src/cli/exit-codes.ts: bad input) naming the file and the place.
 * In-process, offline.
 */
import { describe, expect, it } from 'vitest';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, tempDir } from '../helpers/cli.js';
import { rawragInProcess } from '../helpers/in-process.js';

const FIXTURE = join(ROOT, 'tests/fixtures/runs/rawrag.run-1');
const env = { OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined };

function copy(): string {
  const dir = join(tempDir(), 'run');
  cpSync(FIXTURE, dir, { recursive: true, filter: (f) => !f.endsWith('SOURCE.md') });
  return dir;
}

const edit = (dir: string, file: string, f: (text: string) => string) =>
  writeFileSync(join(dir, file), f(readFileSync(join(dir, file), 'utf8')));
const editJson = (dir: string, file: string, f: (o: Record<string, unknown>) => void) =>
  edit(dir, file, (t) => {
    const o = JSON.parse(t);
    f(o);
    return JSON.stringify(o);
  });

/** items.jsonl with line 2's score a string. */
function scoreAsText(text: string): string {
  const lines = text.split('\n');
  lines[1] = JSON.stringify({ ...JSON.parse(lines[1]!), score: 'high' });
  return lines.join('\n');
}

/** A corrupt copy of the fixture, and what the refusal must say (file: place: ...). */
const CORRUPT: Record<string, { make(dir: string): void; says: RegExp }> = {
  'manifest not JSON': {
    make: (d) => edit(d, 'manifest.json', (t) => t.slice(0, 200)),
    says: /manifest\.json: line \d+, column \d+: invalid JSON/,
  },
  'manifest wrong type': {
    make: (d) => editJson(d, 'manifest.json', (o) => (o.setting = 42)),
    says: /manifest\.json: setting: .*not a rawrag run manifest/,
  },
  'manifest missing field': {
    make: (d) => editJson(d, 'manifest.json', (o) => delete o.system),
    says: /manifest\.json: system: .*not a rawrag run manifest/,
  },
  'unknown version': {
    make: (d) => editJson(d, 'manifest.json', (o) => ((o.schema = 'rawrag.run/9'), delete o.format)),
    says: /manifest\.json: schema: unknown run record version "rawrag\.run\/9"/,
  },
};
const CORRUPT_ITEMS: Record<string, { make(dir: string): void; says: RegExp }> = {
  'item not JSON': { make: (d) => edit(d, 'items.jsonl', (t) => t.replace(/\n/, '\n{"id": \n')), says: /items\.jsonl: line 2: not JSON/ },
  'item wrong type': { make: (d) => edit(d, 'items.jsonl', scoreAsText), says: /items\.jsonl: line 2: score: .*not a run item/ },
};
const CORRUPT_SUMMARY = {
  make: (d: string) => editJson(d, 'summary.json', (o) => (o.overall = 'high')),
  says: /summary\.json: overall: .*not a run summary/,
};

/** Each reader: its command over a run directory, what it prints from the v1 fixture, and which files it reads. */
const READERS: Array<{ name: string; args: (dir: string) => string[]; v1: RegExp; code?: number; items?: boolean; summary?: boolean }> = [
  { name: 'stats', args: (d) => ['stats', d], v1: /RAW-RAG\/local/, items: true },
  { name: 'report', args: (d) => ['report', d, '--out', join(d, '..', 'r.html')], v1: /r\.html/, items: true, summary: true },
  { name: 'runs', args: (d) => ['runs', d, '--json'], v1: /"status": "complete"/, summary: true },
  { name: 'show', args: (d) => ['show', d, 'conv-26:q0'], v1: /conv-26:q0/, items: true },
  { name: 'show --failures', args: (d) => ['show', d, '--failures'], v1: /0 failed|no failed|complete/, items: true },
  { name: 'export', args: (d) => ['export', d], v1: /^id,/, items: true },
  { name: 'memory show', args: (d) => ['memory', 'show', d], v1: /keeps no memory store/, code: 2 },
  {
    name: 'judge --rejudge',
    args: (d) => ['judge', '--rejudge', d, '--judge-model', 'local', '--out', join(d, '..', 're'), '--dry-run'],
    v1: /nothing was sent/,
    items: true,
  },
  // Offline, resume stops at the pre-flight: it got that far only by reading the run's recorded command.
  { name: 'resume', args: (d) => ['resume', d], v1: /pre-flight: .*reader model 'gpt-4o-mini'/s, code: 2 },
];

describe('each reader of a run directory through the run record', () => {
  for (const r of READERS) {
    it(`${r.name}: reads the rawrag.run/1 fixture (upgraded) and refuses corrupt runs with exit 2, naming the file`, async () => {
      const v1 = await rawragInProcess(r.args(copy()), env);
      expect(v1.code, v1.stderr).toBe(r.code ?? 0);
      expect(v1.stdout + v1.stderr).toMatch(r.v1);
      const cases = { ...CORRUPT, ...(r.items ? CORRUPT_ITEMS : {}), ...(r.summary ? { 'summary wrong type': CORRUPT_SUMMARY } : {}) };
      for (const [what, c] of Object.entries(cases)) {
        const dir = copy();
        c.make(dir);
        const bad = await rawragInProcess(r.args(dir), env);
        expect(bad.code, `${what}: ${bad.stderr}`).toBe(2);
        expect(bad.stderr, what).toMatch(c.says);
      }
    });
  }
});

describe('rawrag paper over a results folder', () => {
  it('maps the rawrag.run/1 fixture (upgraded); a corrupt run beside it is left out with a warning naming the file and the place', async () => {
    const root = tempDir();
    cpSync(FIXTURE, join(root, 'v1'), { recursive: true, filter: (f) => !f.endsWith('SOURCE.md') });
    cpSync(FIXTURE, join(root, 'bad'), { recursive: true, filter: (f) => !f.endsWith('SOURCE.md') });
    editJson(join(root, 'bad'), 'manifest.json', (o) => (o.setting = 42));
    const r = await rawragInProcess(['paper', root], env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/partial \(6 of 1,540\): [^|]*v1/);
    expect(r.stdout).not.toMatch(/bad/);
    expect(r.stderr).toMatch(/warning: left out of the map: .*bad[/\\]manifest\.json: setting: .*not a rawrag run manifest/);
  });
});
