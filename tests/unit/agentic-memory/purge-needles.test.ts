/** Issue 42 item 5: the purge's byte check searches only the owner's own text, and a full disk is the user's (exit 2, the file named). */
import { describe, expect, it } from 'vitest';
import { diskFailure, needlesOf, ownNeedles, replyValues } from '../../../src/systems/agentic-memory/purge.js';
import { InputError } from '../../../src/util/errors.js';

describe('memory purge needles', () => {
  it("a reply's keys (rawrag's own schema) are never needles; its values are", () => {
    const reply = JSON.stringify([{ memory_type: 'semantic', content: 'Caroline moved to Berlin for a job.', source_turns: ['D7:1'] }]);
    const needles = needlesOf(replyValues(reply));
    expect(needles).toContain('Caroline moved to Berlin for a job.');
    expect(needles).not.toContain('source_turns');
    expect(replyValues('not json at all, just text')).toEqual(['not json at all, just text']);
  });

  it('a piece another kept row holds is not searched for (shared text is not the owner own)', () => {
    const { own, shared } = ownNeedles(
      ['Caroline moved to Berlin', 'Melanie paints landscapes'],
      [Buffer.from('x Melanie paints landscapes x')],
    );
    expect(own).toEqual(['Caroline moved to Berlin']);
    expect(shared).toBe(1);
  });

  it('SQLITE_FULL becomes an input error naming the file; other errors are not', () => {
    const full = Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
    const e = diskFailure(full, '/no/such/dir/responses.sqlite');
    expect(e).toBeInstanceOf(InputError);
    expect(e!.message).toMatch(/^\/no\/such\/dir\/responses\.sqlite: no space left on device \(SQLITE_FULL: database or disk is full\)/);
    expect(diskFailure(Object.assign(new Error('busy'), { code: 'SQLITE_BUSY' }), '/x')).toBeNull();
  });
});
