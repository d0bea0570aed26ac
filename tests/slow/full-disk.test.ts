/**
 * A full disk at every write site (issue 32). Each command is run once with its writes recorded
 * (src/util/checked-write.ts `diskFaults.log`), then once per write site with the disk filling up
 * in the middle of that write (a short write, then ENOSPC, as a real disk does). Every time: exit
 * 2 with one line naming the file, no temporary file left, and outputs that are the old set, whole
 * — a run directory holds only whole items and resumes to the items of a clean run. These run
 * everywhere (no mount needed); tests/slow/small-disk.test.ts does the same on a real 2 MB tmpfs
 * where the machine allows mounting.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ROOT, tempDir } from '../helpers/cli.js';
import { rawragInProcess } from '../helpers/in-process.js';
import { cacheWithWordVectors } from '../helpers/test-cache.js';
import { locomoEvidenceCut } from '../helpers/locomo-cut.js';
import { diskFaults } from '../../src/util/checked-write.js';
import { splitJsonLines } from '../../src/util/jsonl.js';
// @ts-expect-error a plain .mjs example without type declarations
import { startShim } from '../../docs/examples/memory-shim.mjs';

const work = tempDir('rawrag-full-disk-');
const env = { RAWRAG_CACHE_DIR: cacheWithWordVectors(join(work, 'cache')) };
afterEach(() => diskFaults.reset());

type Site = { path: string; bytes: number };

/** Every file below `dir`, relative, with its bytes. */
function snapshot(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string) => {
    if (!existsSync(d)) return;
    for (const e of readdirSync(d).sort()) {
      const p = join(d, e);
      if (statSync(p).isDirectory()) walk(p);
      else out.set(relative(dir, p), readFileSync(p, 'latin1'));
    }
  };
  walk(dir);
  return out;
}

/** Temporary files, backups and folders a write goes through: none may be left. */
function leftovers(dir: string): string[] {
  const found: string[] = [];
  const walk = (d: string) => {
    if (!existsSync(d)) return;
    for (const e of readdirSync(d)) {
      const p = join(d, e);
      if (/\.\d+\.tmp$|\.\d+\.old$|\.import-\d+$|\.old-\d+$|\.render\.png$/.test(e)) found.push(p);
      if (statSync(p).isDirectory()) walk(p);
    }
  };
  walk(dir);
  return found;
}

/** The file a write was for: a staged `.name.<pid>.tmp` is for `name`. */
function finalOf(path: string): string {
  const m = /^\.(.+)\.\d+\.tmp$/.exec(basename(path));
  return m ? join(dirname(path), m[1]!) : path;
}

/** The writes a command makes from the state `prepare` leaves (it must succeed). */
async function writeSites(
  args: string[],
  prepare: () => void,
  extraEnv: Record<string, string> = {},
  before: () => Promise<void> = async () => {},
): Promise<Site[]> {
  prepare();
  await before();
  diskFaults.log = [];
  const r = await rawragInProcess(args, { ...env, ...extraEnv });
  const log = diskFaults.log;
  diskFaults.reset();
  expect(r.code, r.stderr).toBe(0);
  return log;
}

/**
 * For each write site (in the order the clean run made them), from a fresh `prepare`: the disk
 * fills up halfway through that write. `check` sees the result and the file the error named.
 */
async function fillAtEachSite(
  args: string[],
  prepare: () => void,
  check: (r: { code: number; stderr: string }, named: string, site: Site) => Promise<void> | void,
  opts: { only?: (s: Site) => boolean; extraEnv?: Record<string, string>; before?: () => Promise<void> } = {},
): Promise<{ sites: Site[]; named: Set<string> }> {
  const sites = await writeSites(args, prepare, opts.extraEnv, opts.before);
  const named = new Set<string>();
  let before = 0;
  for (const site of sites) {
    const at = before + Math.floor(site.bytes / 2);
    before += site.bytes;
    if (opts.only && !opts.only(site)) continue;
    prepare();
    await opts.before?.();
    diskFaults.budget = at;
    const r = await rawragInProcess(args, { ...env, ...opts.extraEnv });
    diskFaults.reset();
    expect(r.code, `${site.path} at byte ${at}: ${r.stderr}`).toBe(2);
    const errors = r.stderr.split('\n').filter((l) => l.startsWith('rawrag: error:'));
    expect(errors, r.stderr).toHaveLength(1);
    expect(r.stderr).not.toMatch(/internal error|\n\s+at /);
    const m = /^rawrag: error: (.+): no space left on device \(ENOSPC, write\)$/.exec(errors[0]!);
    expect(m, errors[0]).not.toBeNull();
    named.add(m![1]!);
    await check(r, m![1]!, site);
  }
  return { sites, named };
}

const distinctFinals = (sites: Site[], only: (s: Site) => boolean = () => true) => new Set(sites.filter(only).map((s) => finalOf(s.path)));

function items(dir: string): Array<Record<string, unknown>> {
  const { lines, torn } = splitJsonLines(readFileSync(join(dir, 'items.jsonl'), 'utf8'));
  expect(torn).toBeNull();
  return lines.map((l) => JSON.parse(l.text) as Record<string, unknown>);
}

/** Items without their timings (which differ between any two runs), by id. */
const comparable = (xs: Array<Record<string, unknown>>) => xs.map(({ timings: _t, ...rest }) => JSON.stringify(rest)).sort();

/** Synthetic run directories (manifest + items.jsonl of id, score, votes, type, coverage), as an external system writes them. */
function syntheticRuns(root: string, benchmark: string, systems: string[], n: number, seed = 1): void {
  let state = seed * 7919;
  const rand = () => (state = (state * 16807) % 2147483647) / 2147483647;
  const types = benchmark === 'locomo' ? ['single-hop', 'multi-hop', 'temporal', 'open-domain'] : ['single-session-user', 'multi-session'];
  systems.forEach((system, s) => {
    const dir = join(root, `${benchmark}-${s}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'manifest.json'),
      JSON.stringify({
        system,
        benchmark,
        setting: `${benchmark}/gpt-4o-mini`,
        status: 'complete',
        ...(s === 0 ? { reference: true } : {}),
      }),
    );
    const lines = Array.from({ length: n }, (_, i) => {
      const votes = [0, 1, 2].map(() => (rand() < 0.6 - 0.1 * s ? 1 : 0));
      return JSON.stringify({
        id: `q${i}`,
        score: votes.reduce((a: number, b) => a + b, 0) / 3,
        judge: votes,
        type: types[i % types.length],
        coverage: rand() < 0.7,
      });
    });
    writeFileSync(join(dir, 'items.jsonl'), lines.join('\n') + '\n');
  });
}

/** Puts `saved` (a snapshot) back at `dir` exactly: the old set of outputs. */
function restore(dir: string, saved: Map<string, string>): void {
  rmSync(dir, { recursive: true, force: true });
  for (const [rel, bytes] of saved) {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    writeFileSync(join(dir, rel), bytes, 'latin1');
  }
}

describe('rawrag run: a full disk at every write of a run directory', () => {
  it('exit 2 naming the file; only whole items; the same command resumes to the items of a clean run', async () => {
    const clean = join(work, 'run-clean');
    const args = (out: string) => ['run', 'locomo', '--limit', '4', '--no-progress', '--out', out];
    expect((await rawragInProcess(args(clean), env)).code).toBe(0);
    const out = join(work, 'run-full');
    const { sites, named } = await fillAtEachSite(
      args(out),
      () => rmSync(out, { recursive: true, force: true }),
      async () => {
        expect(leftovers(out)).toEqual([]);
        if (existsSync(join(out, 'items.jsonl'))) items(out); // whole lines only
        expect(existsSync(join(out, '.rawrag.lock'))).toBe(false);
        const resumed = await rawragInProcess(args(out), env);
        expect(resumed.code, resumed.stderr).toBe(0);
        expect(comparable(items(out))).toEqual(comparable(items(clean)));
        expect(JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')).status).toBe('complete');
      },
    );
    // The lock, the manifest (twice), each item, the summary: every file a run writes failed once.
    expect(distinctFinals(sites)).toEqual(
      new Set(['.rawrag.lock', 'manifest.json', 'items.jsonl', 'summary.json'].map((f) => join(out, f))),
    );
    expect(named).toEqual(distinctFinals(sites));
  }, 300_000);
});

describe('stats, report, export, show, import: the old outputs stay whole', () => {
  const runs = join(work, 'runs');
  syntheticRuns(runs, 'locomo', ['RAW-RAG/local', 'Mem0'], 40);
  syntheticRuns(runs, 'longmemeval', ['RAW-RAG/local', 'Mem0'], 30);

  it('stats: the tables, stats.json and report.html are the old set after a full disk at any of their writes', async () => {
    const out = join(work, 'stats-out');
    // The old set: an earlier analysis (another seed, so every file differs from the new one).
    expect((await rawragInProcess(['stats', runs, '--out', out, '--resamples', '200', '--seed', '7'], env)).code).toBe(0);
    const old = snapshot(out);
    expect(old.size).toBeGreaterThanOrEqual(9);
    const { sites, named } = await fillAtEachSite(
      ['stats', runs, '--out', out, '--resamples', '200'],
      () => restore(out, old),
      () => {
        expect(leftovers(out)).toEqual([]);
        expect(snapshot(out)).toEqual(old);
      },
    );
    expect(named).toEqual(distinctFinals(sites));
    expect(named.has(join(out, 'report.html'))).toBe(true);
  }, 300_000);

  it('report: every page is the old one after a full disk at any page', async () => {
    const out = join(work, 'report-out', 'report.html');
    // The old pages: an earlier report of the same runs (its pages carry their own generation time).
    expect((await rawragInProcess(['report', runs, '--out', out], env)).code).toBe(0);
    const old = snapshot(dirname(out));
    expect([...old.keys()].sort()).toEqual(['report.html', 'report.locomo.html', 'report.longmemeval.html']);
    const { sites, named } = await fillAtEachSite(
      ['report', runs, '--out', out],
      () => restore(dirname(out), old),
      () => {
        expect(leftovers(dirname(out))).toEqual([]);
        expect(snapshot(dirname(out))).toEqual(old);
      },
    );
    expect(named).toEqual(distinctFinals(sites));
    expect(named.size).toBe(3);
  }, 300_000);

  it('export --out (csv, parquet): the old file stays, no temporary file', async () => {
    const dir = join(work, 'export-out');
    for (const format of ['csv', 'parquet']) {
      const out = join(dir, `run.${format}`);
      const oldBytes = `old ${format}\n`;
      const { named } = await fillAtEachSite(
        ['export', join(runs, 'locomo-0'), '--format', format, '--out', out],
        () => {
          rmSync(dir, { recursive: true, force: true });
          mkdirSync(dir, { recursive: true });
          writeFileSync(out, oldBytes);
        },
        () => {
          expect(readdirSync(dir)).toEqual([basename(out)]);
          expect(readFileSync(out, 'utf8')).toBe(oldBytes);
        },
      );
      expect(named).toEqual(new Set([out]));
    }
  }, 120_000);

  it('show --out: the item logs land together or not at all', async () => {
    const run = join(work, 'show-run');
    expect((await rawragInProcess(['run', 'locomo', '--limit', '3', '--no-progress', '--out', run], env)).code).toBe(0);
    const out = join(work, 'show-out');
    const { sites, named } = await fillAtEachSite(
      ['show', run, '--out', out],
      () => {
        rmSync(out, { recursive: true, force: true });
        mkdirSync(out);
      },
      () => {
        expect(readdirSync(out)).toEqual([]);
      },
    );
    expect(sites).toHaveLength(3);
    expect(named.size).toBe(3);
  }, 120_000);

  it('import: the run directory appears whole or not at all; an old one stays', async () => {
    const file = join(ROOT, 'docs/examples/eval_results.json');
    const out = join(work, 'import-out');
    expect((await rawragInProcess(['import', 'evermemos', file, '--benchmark', 'locomo', '--out', out, '--system', 'Old'], env)).code).toBe(
      0,
    );
    const old = snapshot(out);
    const { sites, named } = await fillAtEachSite(
      ['import', 'evermemos', file, '--benchmark', 'locomo', '--out', out],
      () => restore(out, old),
      () => {
        expect(leftovers(work)).toEqual([]);
        expect(snapshot(out)).toEqual(old);
      },
    );
    expect(sites.map((s) => basename(s.path))).toEqual(['manifest.json', 'items.jsonl', 'summary.json', 'answers.jsonl']);
    expect(named).toEqual(new Set(['manifest.json', 'items.jsonl', 'summary.json', 'answers.jsonl'].map((f) => join(out, f))));
  }, 120_000);
});

describe('ablate: its outputs and its report land together', () => {
  it('a full disk at any output leaves the previous ablation files and report', async () => {
    const out = join(work, 'ablate-out');
    const args = ['ablate', 'locomo', '--k', '3,5', '--limit', '3', '--resamples', '200', '--no-png', '--no-progress', '--out', out];
    expect((await rawragInProcess(args, env)).code).toBe(0);
    const outputs = (s: Site) => /^(\.)?(ablation\.|report\.html)/.test(basename(s.path));
    const old = snapshot(out);
    const { sites, named } = await fillAtEachSite(
      args,
      () => restore(out, old),
      () => {
        expect(leftovers(out)).toEqual([]);
        const now = snapshot(out);
        for (const f of ['ablation.json', 'ablation.md', 'ablation.csv', 'ablation.svg', 'report.html'])
          expect(now.get(f)).toBe(old.get(f));
      },
      { only: outputs },
    );
    expect(named).toEqual(distinctFinals(sites, outputs));
    expect(named.size).toBe(5);
  }, 300_000);
});

describe('a memory service run: its ingest log and decision log', () => {
  it('a full disk at any append leaves whole lines; the same command resumes to a complete run', async () => {
    const shim: Server = await startShim(0);
    const url = `http://127.0.0.1:${(shim.address() as AddressInfo).port}`;
    try {
      const out = join(work, 'http-run');
      // conv-26's first two sessions (35 messages, two adds), not all 19: a run is made per append.
      const cut = await locomoEvidenceCut([{ episode: 'conv-26', questions: 6 }]);
      expect(cut.sessions.get('conv-26')!.size).toBe(2);
      const args = [
        'run',
        'locomo',
        '--data',
        cut.file,
        '--system',
        'http',
        '-S',
        `url=${url}`,
        '--limit',
        '2',
        '--no-progress',
        '--out',
        out,
      ];
      const logs = (s: Site) => /service-ingest\.jsonl|write-decisions\.jsonl/.test(s.path);
      // Every attempt starts where the recorded one did: the run's owners deleted on the service, its folder removed.
      const fresh = async () => {
        const log = join(out, 'service-ingest.jsonl');
        const owners = existsSync(log) ? new Set(splitJsonLines(readFileSync(log, 'utf8')).lines.map((l) => JSON.parse(l.text).owner)) : [];
        for (const owner of owners) await fetch(`${url}/delete`, { method: 'POST', body: JSON.stringify({ owner }) });
        rmSync(out, { recursive: true, force: true });
      };
      const { sites, named } = await fillAtEachSite(
        args,
        () => {},
        async () => {
          expect(leftovers(out)).toEqual([]);
          for (const f of ['service-ingest.jsonl', 'write-decisions.jsonl']) {
            if (existsSync(join(out, f))) expect(splitJsonLines(readFileSync(join(out, f), 'utf8')).torn).toBeNull();
          }
          const resumed = await rawragInProcess(args, env);
          expect(resumed.code, resumed.stderr).toBe(0);
          expect(items(out)).toHaveLength(2);
        },
        { only: logs, before: fresh },
      );
      expect(named).toEqual(distinctFinals(sites, logs));
      expect(named.has(join(out, 'service-ingest.jsonl'))).toBe(true);
    } finally {
      shim.close();
    }
  }, 300_000);
});
