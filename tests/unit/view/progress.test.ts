/**
 * A run directory read while it is written (src/view/progress.ts): whole lines only — a last line
 * still being written (here cut inside a character) is not counted until its newline comes —, a
 * rewritten items.jsonl read again from the start, and a run that says `running` whose process is
 * gone shown as stopped. Also the pages built over such a folder (src/view/site.ts).
 */
import { describe, expect, it } from 'vitest';
import { appendFileSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { tempDir } from '../../helpers/cli.js';
import { RunWatch } from '../../../src/view/progress.js';
import { LiveSite } from '../../../src/view/site.js';

const manifest = (status: string) =>
  JSON.stringify({ system: 'RAW-RAG/local', benchmark: 'locomo', setting: 'locomo/gpt-4o-mini', status, questions: { selected: 4 } });
const item = (id: string, score: number | null, cost = 0.001, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    id,
    score,
    coverage: { all: score === 1, any: true },
    error: null,
    answer: 'café',
    details: { usage: { reader: { cost_usd: cost, requests: 1, cache_hits: 0 }, judge: { cost_usd: cost, requests: 3, cache_hits: 0 } } },
    ...extra,
  });

function runDir(status: string, lockPid: number | null): string {
  const dir = join(tempDir('rawrag-view-unit-'), 'run');
  mkdirSync(dir);
  writeFileSync(join(dir, 'manifest.json'), manifest(status));
  if (lockPid !== null)
    writeFileSync(join(dir, '.rawrag.lock'), JSON.stringify({ pid: lockPid, host: hostname(), started_at: '', command: '' }));
  return dir;
}

describe('RunWatch', () => {
  it('counts whole lines only: a last line cut inside a character waits for its newline', () => {
    const dir = runDir('running', process.pid);
    const line = Buffer.from(item('q3', 0) + '\n');
    const cut = line.indexOf(Buffer.from('é')) + 1; // inside the two bytes of é
    writeFileSync(
      join(dir, 'items.jsonl'),
      Buffer.concat([Buffer.from(item('q1', 1) + '\n' + item('q2', 0) + '\n'), line.subarray(0, cut)]),
    );
    const w = new RunWatch(dir);
    const first = w.poll();
    expect(first).toMatchObject({ status: 'running', selected: 4, done: 2, judged: 2, mean_score: 0.5, coverage: 0.5, partial_line: true });
    expect(first.list_usd).toBeCloseTo(0.004, 12);
    expect(first.requests).toBe(8);
    appendFileSync(join(dir, 'items.jsonl'), line.subarray(cut));
    const second = w.poll();
    expect(second).toMatchObject({ done: 3, judged: 3, partial_line: false });
    expect(second.mean_score).toBeCloseTo(1 / 3, 12);
    // The same question written again (a retry) counts once, its last line winning.
    appendFileSync(
      join(dir, 'items.jsonl'),
      item('q3', 1) + '\n' + item('q4', null, 0.001, { error: { stage: 'read', message: 'x' } }) + '\n',
    );
    expect(w.poll()).toMatchObject({ done: 4, failed: 1, judged: 3, mean_score: 2 / 3 });
  });

  it('reads a rewritten items.jsonl (--retry-errors) from the start', () => {
    const dir = runDir('running', process.pid);
    const file = join(dir, 'items.jsonl');
    writeFileSync(file, [item('q1', 1), item('q2', 0), item('q3', 0)].join('\n') + '\n');
    const w = new RunWatch(dir);
    expect(w.poll().done).toBe(3);
    writeFileSync(`${file}.tmp`, item('q1', 1) + '\n');
    renameSync(`${file}.tmp`, file);
    expect(w.poll()).toMatchObject({ done: 1, judged: 1, mean_score: 1 });
  });

  it("says a run is stopped when it says running but its writer's process is gone (or it holds no lock)", () => {
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    expect(new RunWatch(runDir('running', Number(gone.stdout))).poll().status).toBe('stopped');
    expect(new RunWatch(runDir('running', null)).poll().status).toBe('stopped');
    expect(new RunWatch(runDir('running', process.pid)).poll().status).toBe('running');
    expect(new RunWatch(runDir('complete', null)).poll()).toMatchObject({ status: 'complete', done: 0, mean_score: null });
  });
});

describe('LiveSite', () => {
  it('builds the report pages of a run being written, its torn last line left out; a new item makes a new build', async () => {
    const dir = runDir('running', process.pid);
    const file = join(dir, 'items.jsonl');
    writeFileSync(file, item('conv-26:q0', 1) + '\n' + item('conv-26:q1', 0).slice(0, 40));
    const site = new LiveSite([join(dir, '..')], { intervalMs: 0, log: (l) => expect.fail(l) });
    const built = await site.pages();
    expect(built.pages.map((p) => [p.path, p.kind])).toEqual([
      ['/', 'page'],
      ['/report.locomo.html', 'page'],
    ]);
    const blob = JSON.parse(built.pages[0]!.blob!);
    expect(blob.runs[0].rows).toHaveLength(1);
    expect(site.progress()).toMatchObject({ site_version: built.version, version: built.version, runs: [{ done: 1, partial_line: true }] });
    appendFileSync(file, item('conv-26:q1', 0).slice(40) + '\n');
    const p = site.progress();
    expect(p.version).not.toBe(built.version);
    expect(p.runs[0]).toMatchObject({ done: 2, partial_line: false });
    const next = await until(site);
    expect(JSON.parse(next.pages[0]!.blob!).runs[0].rows).toHaveLength(2);
  });

  it("shows a running run's phases and its ETA (its own estimate, else the rate items arrive at); none once it ended", () => {
    const dir = runDir('running', process.pid);
    const phases = [
      { phase: 'ingest', done: 419, total: 419, unit: 'turns', rate_per_s: null, eta_s: 0, cost_usd: 0.01 },
      { phase: 'answer', done: 10, total: 80, unit: 'questions', rate_per_s: 2, eta_s: 35 },
    ];
    writeFileSync(join(dir, 'manifest.json'), JSON.stringify({ ...JSON.parse(manifest('running')), progress: { updated_at: '', phases } }));
    expect(new RunWatch(dir).poll()).toMatchObject({ phases, eta_s: 35 });
    // No phases written (an older rawrag): the view's own rate over the items it sees arrive.
    const plain = runDir('running', process.pid);
    writeFileSync(join(plain, 'manifest.json'), JSON.stringify({ ...JSON.parse(manifest('running')), questions: { selected: 40 } }));
    let t = 0;
    const w = new RunWatch(plain, () => t);
    expect(w.poll().eta_s).toBeNull();
    for (let i = 0; i < 10; i++) {
      t += 1000;
      appendFileSync(join(plain, 'items.jsonl'), item(`q${i}`, 1) + '\n');
      w.poll();
    }
    expect(w.poll().eta_s).toBeCloseTo(30, 0); // 10 done, 1 a second, 30 to go
    expect(new RunWatch(runDir('complete', null)).poll()).toMatchObject({ phases: null, eta_s: null });
  });

  it('a build slower than the interval is followed by the next as soon as the folder changed (no idle wait of twice the build)', async () => {
    const dir = runDir('running', process.pid);
    const file = join(dir, 'items.jsonl');
    writeFileSync(file, item('conv-26:q0', 1) + '\n');
    // The clock moves 20 s per reading: the first build takes 20 s.
    let t = 0;
    let step = 20_000;
    const site = new LiveSite([join(dir, '..')], { intervalMs: 2000, log: (l) => expect.fail(l), now: () => (t += step) - step });
    await site.pages();
    step = 0;
    t = 21_000; // 1 s after the 20-s build ended; the old rule waited until 60 s
    appendFileSync(file, item('conv-26:q1', 0) + '\n');
    expect(site.progress().building).toBe(true);
    const next = await until(site);
    expect(JSON.parse(next.pages[0]!.blob!).runs[0].rows).toHaveLength(2);
  });

  it('an empty folder is a page that says so and waits', async () => {
    const site = new LiveSite([tempDir()], { intervalMs: 0, log: (l) => expect.fail(l) });
    const built = await site.pages();
    expect(built.pages).toHaveLength(1);
    expect(built.pages[0]).toMatchObject({ path: '/', kind: 'message', blob: null });
    expect(built.pages[0]!.main).toContain('holds a run directory (manifest.json), stats.json or ablation.json yet');
  });
});

/** The build that follows a change (started by the poll that saw it). */
async function until(site: LiveSite) {
  for (let i = 0; i < 100; i++) {
    const p = site.progress();
    const built = await site.pages();
    if (built.version === p.version) return built;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('no new build');
}
