/**
 * `rawrag data pull memoryagentbench`: the declared files (four split Parquet files and
 * entity2id.json, pinned to HF revision 7ea0669 with sha256) against a loopback server standing in
 * for the dataset host. The stand-in serves files that are not the release, so every pinned
 * checksum must refuse them.
 */
import { createServer, type Server } from 'node:http';
import { existsSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { tempDir } from '../helpers/cli.js';
import { rawragInProcess } from '../helpers/in-process.js';
import { DOWNLOAD_FILES } from '../../src/benchmarks/memoryagentbench/index.js';

const REV = '7ea066982b140a19337e17e60d45d4076e042faf';
let server: Server;
let base = '';
const paths: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    paths.push(req.url ?? '');
    const body = Buffer.from('not the release\n');
    res.writeHead(200, { 'Content-Length': body.length }).end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mab`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('memoryagentbench downloads', () => {
  test('four split files and entity2id.json, at the pinned revision, each with a sha256', () => {
    expect(DOWNLOAD_FILES.map((f) => f.path)).toEqual([
      'datasets/memoryagentbench/Accurate_Retrieval-00000-of-00001.parquet',
      'datasets/memoryagentbench/Test_Time_Learning-00000-of-00001.parquet',
      'datasets/memoryagentbench/Long_Range_Understanding-00000-of-00001.parquet',
      'datasets/memoryagentbench/Conflict_Resolution-00000-of-00001.parquet',
      'datasets/memoryagentbench/entity2id.json',
    ]);
    for (const f of DOWNLOAD_FILES) {
      expect(f.url.startsWith(`https://huggingface.co/datasets/ai-hyz/MemoryAgentBench/resolve/${REV}/`)).toBe(true);
      expect(f.sha256).toMatch(/^[0-9a-f]{64}$/);
    }
    expect(DOWNLOAD_FILES[4]!.url).toBe(`https://huggingface.co/datasets/ai-hyz/MemoryAgentBench/resolve/${REV}/entity2id.json`);
  });

  test('a file that does not match its pinned checksum is refused and removed', async () => {
    const root = tempDir();
    const r = await rawragInProcess(['data', 'pull', 'memoryagentbench', '--base-url', base, '--root', root]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(
      /Accurate_Retrieval-00000-of-00001\.parquet: checksum mismatch: sha256 [0-9a-f]{64} does not match the pinned 56c3cd80/,
    );
    expect(paths).toContain('/mab/Accurate_Retrieval-00000-of-00001.parquet');
    expect(existsSync(join(root, 'datasets/memoryagentbench/Accurate_Retrieval-00000-of-00001.parquet'))).toBe(false);
    expect(existsSync(join(root, 'datasets/memoryagentbench/Accurate_Retrieval-00000-of-00001.parquet.part'))).toBe(false);
  });
});
