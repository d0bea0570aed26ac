/** A partial BEAM checkout (conversation folders without their chat file): stop with the folder named, or -B skip-incomplete=true with a warning listing what was left out. */
import { describe, expect, it } from 'vitest';
import { cpSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { beam } from '../../../src/benchmarks/beam/index.js';
import { warningLines } from '../../../src/benchmarks/warnings.js';
import { ROOT, tempDir } from '../../helpers/cli.js';

/** A checkout of three copies of the real 100K/5 conversation, the second without chat files, the third without probing questions. */
function partialCheckout(): string {
  const root = tempDir('rawrag-beam-partial-');
  for (const id of ['1', '2', '3']) {
    mkdirSync(join(root, 'chats/100K'), { recursive: true });
    cpSync(join(ROOT, 'tests/fixtures/beam/100K/5'), join(root, 'chats/100K', id), { recursive: true });
  }
  rmSync(join(root, 'chats/100K/2/chat.json'));
  rmSync(join(root, 'chats/100K/2/chat_trunecated.json'));
  rmSync(join(root, 'chats/100K/3/probing_questions'), { recursive: true });
  return root;
}

describe('BEAM -B skip-incomplete=true', () => {
  it('without it: the first incomplete folder stops the load, the message says which and names the flag', async () => {
    const root = partialCheckout();
    await expect(beam.load({ path: root, options: {} })).rejects.toThrow(
      /chats\/100K\/2: no chat_trunecated\.json, chat\.json .*-B skip-incomplete=true/,
    );
  });

  it('with it: the complete conversations are read; one warning, shown on every run, lists the skipped ones and why', async () => {
    const ds = await beam.load({ path: partialCheckout(), options: { skipIncomplete: 'true' } });
    expect(ds.episodes.map((e) => e.id)).toEqual(['100K/1']);
    expect(ds.questions).toHaveLength(20);
    const w = ds.warnings.filter((x) => x.place === '-B skip-incomplete');
    expect(w).toHaveLength(1);
    expect(w[0]!.message).toMatch(
      /^2 of 3 conversation folders skipped as incomplete: 100K\/2 \(no chat_trunecated\.json.*\), 100K\/3 \(no probing_questions\/probing_questions\.json\)$/,
    );
    expect(warningLines('beam', ds.warnings, false).some((l) => l.includes('skipped as incomplete'))).toBe(true);
  });
});
