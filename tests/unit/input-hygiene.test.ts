/**
 * Input hygiene (issue 20, item 9): strict UTF-8 naming the byte offset, a BOM dropped by every
 * loader, numeric LoCoMo session dates refused with their place, whitespace-only API keys missing.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeUtf8, firstInvalidUtf8, readTextFile } from '../../src/util/text.js';
import { getBenchmark } from '../../src/benchmarks/registry.js';
import { ProviderSession } from '../../src/providers/session.js';
import { ROOT, tempDir } from '../helpers/cli.js';

const dir = tempDir();
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const locomoOne = JSON.stringify(JSON.parse(readFileSync(join(ROOT, 'datasets/locomo/locomo10.json'), 'utf8')).slice(0, 1));
const lmeSample = readFileSync(join(ROOT, 'tests/fixtures/longmemeval/longmemeval_s_cleaned.sample.json'));

function file(name: string, bytes: Buffer | string): string {
  const p = join(dir, name);
  writeFileSync(p, bytes);
  return p;
}

describe('strict UTF-8', () => {
  it('finds the first invalid byte', () => {
    expect(firstInvalidUtf8(Buffer.from('héllo ✓ 😀'))).toBe(-1);
    expect(firstInvalidUtf8(Buffer.from([0x61, 0x62, 0xff, 0x63]))).toBe(2);
    expect(firstInvalidUtf8(Buffer.from([0x61, 0xc3, 0x28]))).toBe(1); // a lead byte without its continuation
    expect(firstInvalidUtf8(Buffer.from([0x61, 0xc0, 0xaf]))).toBe(1); // overlong
    expect(firstInvalidUtf8(Buffer.from([0x61, 0xed, 0xa0, 0x80]))).toBe(1); // a surrogate
    expect(firstInvalidUtf8(Buffer.from([0x61, 0xe2, 0x9c]))).toBe(1); // truncated at the end
  });

  it('names the file and the byte offset instead of replacing the byte', () => {
    expect(() => decodeUtf8(Buffer.from([0x7b, 0x7d, 0x20, 0xe9, 0x20]), 'x.json')).toThrow(
      /^x\.json: byte 3: not valid UTF-8: byte 3 \(0xe9/,
    );
    expect(readTextFile(file('bom.txt', Buffer.concat([BOM, Buffer.from('hi')])))).toBe('hi');
  });

  it('LoCoMo: invalid byte -> file and offset; BOM -> loads as without it', async () => {
    const locomo = getBenchmark('locomo');
    const at = locomoOne.indexOf('Caroline') + 2;
    const bad = Buffer.from(locomoOne);
    bad[at] = 0xff;
    const badPath = file('locomo-bad.json', bad);
    await expect(locomo.load({ path: badPath, options: {} })).rejects.toThrow(new RegExp(`locomo-bad\\.json: byte ${at}: not valid UTF-8`));
    const plain = await locomo.load({ path: file('locomo-plain.json', locomoOne), options: {} });
    const bom = await locomo.load({ path: file('locomo-bom.json', Buffer.concat([BOM, Buffer.from(locomoOne)])), options: {} });
    expect(bom.questions).toEqual(plain.questions);
    expect(bom.episodes).toEqual(plain.episodes);
  });

  it('LongMemEval: invalid byte -> file and offset (streamed); BOM -> loads', async () => {
    const lme = getBenchmark('longmemeval');
    const bad = Buffer.from(lmeSample);
    const at = bad.indexOf('"content"', 5000) + 12;
    bad[at] = 0xc0;
    await expect(lme.load({ path: file('lme-bad.json', bad), options: {} })).rejects.toThrow(
      new RegExp(`lme-bad\\.json: byte ${at}: not valid UTF-8`),
    );
    const ds = await lme.load({ path: file('lme-bom.json', Buffer.concat([BOM, lmeSample])), options: {} });
    expect(ds.questions).toHaveLength(2);
  });
});

describe('LoCoMo session dates', () => {
  it('a numeric date is an input error naming its place, not `unknown`', async () => {
    const data = JSON.parse(locomoOne);
    data[0].conversation.session_2_date_time = 1683504000;
    await expect(getBenchmark('locomo').load({ path: file('locomo-numdate.json', JSON.stringify(data)), options: {} })).rejects.toThrow(
      /locomo-numdate\.json: \[0\]\.conversation\.session_2_date_time: session date must be text .*got number 1683504000/,
    );
  });
});

describe('API keys', () => {
  it('a key of only whitespace counts as missing', () => {
    const s = new ProviderSession({ cacheDir: dir, env: { OPENAI_API_KEY: '   \n' } });
    const a = s.availability(s.model('gpt-4o-mini', 'reader'), 'reader');
    expect(a).toEqual({ ok: false, reason: expect.stringMatching(/needs OPENAI_API_KEY/) });
    const ok = new ProviderSession({ cacheDir: dir, env: { OPENAI_API_KEY: ' sk-real-0123456789\n' } });
    const b = ok.availability(ok.model('gpt-4o-mini', 'reader'), 'reader');
    expect(b.ok && b.endpoint.apiKey).toBe('sk-real-0123456789');
  });
});
