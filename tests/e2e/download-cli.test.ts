/** `rawrag data list|pull` through the real CLI, against a loopback server standing in for the dataset host. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import { existsSync, readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { ROOT, tempDir } from '../helpers/cli.js';
import { rawragInProcess } from '../helpers/in-process.js';

const ORACLE = readFileSync(resolve(ROOT, 'tests/fixtures/longmemeval/longmemeval_oracle.sample.json'));
let server: Server;
let base = '';
const paths: string[] = [];

beforeAll(async () => {
  // Every file name gets the oracle sample: right for unpinned files, wrong for the pinned S file.
  server = createServer((req, res) => {
    paths.push(req.url ?? '');
    res.writeHead(200, { 'Content-Length': ORACLE.length }).end(ORACLE);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/lme`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('rawrag data pull', () => {
  it('refuses an unpinned file without --allow-unpinned', async () => {
    const root = tempDir();
    const r = await rawragInProcess(['data', 'pull', 'longmemeval', '--variant', 'oracle', '--base-url', base, '--root', root]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /no published sha256 is pinned for http:\/\/127\.0\.0\.1:\d+\/lme\/longmemeval_oracle\.json: rerun with --allow-unpinned/,
    );
    expect(existsSync(join(root, 'datasets/longmemeval/longmemeval_oracle.json'))).toBe(false);
  });

  it('downloads an unpinned file with --allow-unpinned (base URL from the environment) and prints its sha256', async () => {
    const root = tempDir();
    const r = await rawragInProcess(['data', 'pull', 'longmemeval', '--variant', 'oracle', '--allow-unpinned', '--root', root], {
      RAWRAG_DATA_BASE_URL: base,
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /oracle: .*datasets\/longmemeval\/longmemeval_oracle\.json: downloaded from http:\/\/127\.0\.0\.1:\d+\/lme\/longmemeval_oracle\.json, 143178 bytes, NOT verified/,
    );
    expect(r.stdout).toContain('sha256 efe292f4ed98a575978589813ac27f8405238554d20f43ae51f39691cdd82d8b');
    expect(readFileSync(join(root, 'datasets/longmemeval/longmemeval_oracle.json')).equals(ORACLE)).toBe(true);
    // The stored file is what `rawrag run longmemeval --data <folder> -B variant=oracle` reads.
    const run = await rawragInProcess([
      'run',
      'longmemeval',
      '--data',
      join(root, 'datasets/longmemeval'),
      '-B',
      'variant=oracle',
      '--limit',
      '2',
      '--out',
      join(root, 'run'),
      '--no-progress',
    ]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/RAW-RAG\/local on longmemeval — 2 questions, 0 errors/);
  });

  it('refuses the pinned S file when the checksum does not match, and removes it', async () => {
    const root = tempDir();
    const r = await rawragInProcess(['data', 'pull', 'longmemeval', '--base-url', base, '--root', root]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /longmemeval_s_cleaned\.json: checksum mismatch: sha256 efe292f4[0-9a-f]+ does not match the pinned d6f21ea9d60a0d56f34a05b609c79c88a451d2ae03597821ea3d5a9678c3a442; the downloaded file was removed|size 143178 bytes differs from the pinned 277383467/,
    );
    expect(existsSync(join(root, 'datasets/longmemeval/longmemeval_s_cleaned.json'))).toBe(false);
    expect(existsSync(join(root, 'datasets/longmemeval/longmemeval_s_cleaned.json.part'))).toBe(false);
    expect(paths).toContain('/lme/longmemeval_s_cleaned.json');
  });

  it('offline: says why a connection failed (code and host), not only "fetch failed"', async () => {
    // A port nothing listens on: bound, then closed.
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((r) => probe.close(() => r()));
    const r = await rawragInProcess([
      'data',
      'pull',
      'longmemeval',
      '--variant',
      'oracle',
      '--allow-unpinned',
      '--base-url',
      `http://127.0.0.1:${port}/x`,
      '--root',
      tempDir(),
      '--retries',
      '1',
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`no connection (fetch failed: ECONNREFUSED 127.0.0.1:${port} (connection refused)); trying again (1/1)`);
    expect(r.stderr).toContain(`download failed after 2 attempt(s): fetch failed: ECONNREFUSED 127.0.0.1:${port} (connection refused)`);
  });

  it('rejects unknown variants and benchmarks without downloads', async () => {
    const v = await rawragInProcess(['data', 'pull', 'longmemeval', '--variant', 'xl']);
    expect(v.code).toBe(2);
    expect(v.stderr).toMatch(/--variant: longmemeval has no variant 'xl' \(known: s_cleaned, m_cleaned, oracle, s, m, oracle_original\)/);
    const l = await rawragInProcess(['data', 'pull', 'locomo']);
    expect(l.code).toBe(2);
    expect(l.stderr).toMatch(
      /locomo has no files rawrag can download; its data is bundled with rawrag \(datasets\/locomo\/locomo10\.json\)/,
    );
    const beam = await rawragInProcess(['data', 'pull', 'beam']);
    expect(beam.code).toBe(2);
    expect(beam.stderr).toMatch(/beam has no files rawrag can download; nothing of it is bundled: obtain it from its authors/);
    expect(beam.stderr).not.toMatch(/ships with/);
  });
});

describe('rawrag data list', () => {
  it('lists every LongMemEval variant with its pin status, within 100 columns; URLs on request', async () => {
    const r = await rawragInProcess(['data', 'list', 'longmemeval', '--root', tempDir()]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('longmemeval (datasets/longmemeval/)');
    expect(r.stdout).toMatch(/\| s_cleaned \* +\| longmemeval_s_cleaned\.json +\| pinned +\| no +\|/);
    expect(r.stdout).toMatch(/\| oracle_original +\| original\/longmemeval_oracle\.json +\| no +\| no +\|/);
    expect(r.stdout.match(/\.json /g)).toHaveLength(6);
    const all = await rawragInProcess(['data', 'list', '--root', tempDir()]);
    expect(Math.max(...all.stdout.split('\n').map((l) => l.length))).toBeLessThanOrEqual(100);
    const urls = await rawragInProcess(['data', 'list', 'longmemeval', '--urls', '--root', tempDir()]);
    expect(urls.stdout).toContain('https://huggingface.co/datasets/xiaowu0162/longmemeval-cleaned/resolve/main/longmemeval_s_cleaned.json');
  });
});
