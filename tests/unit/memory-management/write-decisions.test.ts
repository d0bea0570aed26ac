import { describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { classifyDecisions, readDecisionLog, writeDecisionLog, type WriteDecision } from '../../../src/core/write-decisions.js';
import { tempDir } from '../../helpers/cli.js';

const d = (x: Partial<WriteDecision> & Pick<WriteDecision, 'operation'>): WriteDecision => ({
  episode: 'e1',
  memory_id: 'm1',
  old_text: null,
  new_text: null,
  ...x,
});

describe('write-decision log', () => {
  it('round-trips through the JSONL writer and reader', () => {
    const file = join(tempDir(), 'log.jsonl');
    const log = [
      d({ operation: 'ADD', new_text: 'likes tea' }),
      d({ operation: 'UPDATE', old_text: 'likes tea', new_text: 'likes coffee' }),
    ];
    writeDecisionLog(file, log);
    expect(readDecisionLog(file)).toEqual(log);
  });

  it('names the file and line of a bad line', () => {
    const file = join(tempDir(), 'bad.jsonl');
    writeFileSync(
      file,
      `${JSON.stringify(d({ operation: 'ADD', new_text: 'x' }))}\n{"episode":"e","operation":"MERGE","memory_id":null,"old_text":null,"new_text":null}\n`,
    );
    expect(() => readDecisionLog(file)).toThrow(/bad\.jsonl: line 2: operation/);
    writeFileSync(file, '{"episode":');
    expect(() => readDecisionLog(file)).toThrow(/line 1: not JSON/);
  });

  it('classifies repeated, malformed and no-op proposals; only the rest are effective mutations', () => {
    const c = classifyDecisions([
      d({ operation: 'ADD', new_text: 'likes tea' }),
      d({ operation: 'UPDATE', old_text: 'likes tea', new_text: 'likes coffee' }), // effective
      d({ operation: 'UPDATE', old_text: 'likes tea', new_text: 'likes coffee' }), // repeated
      d({ operation: 'UPDATE', old_text: 'Likes  coffee', new_text: 'likes coffee', memory_id: 'm2' }), // no-op
      d({ operation: 'UPDATE', memory_id: null, new_text: 'x' }), // malformed: no target
      d({ operation: 'DELETE', memory_id: 'm3', old_text: null }), // no-op: nothing stored
      d({ operation: 'DELETE', memory_id: 'm1', old_text: 'likes coffee' }), // effective
      d({ operation: 'UPDATE', old_text: 'a', new_text: 'b', memory_id: 'm4', applied: 'ADD' }), // add-only: not a mutation
      d({ operation: 'UPDATE', old_text: 'likes tea', new_text: 'likes coffee', episode: 'e2' }), // other episode: not repeated
    ]);
    expect(c.map((x) => x.class)).toEqual(['ok', 'ok', 'repeated', 'no-op', 'malformed', 'no-op', 'ok', 'ok', 'ok']);
    expect(c.map((x) => x.effectiveMutation)).toEqual([false, true, false, false, false, false, true, false, true]);
  });

  // Issue 34, problem 7: an UPDATE of an item never stored changed no stored text, as a DELETE of one does not.
  it('an UPDATE of an item never stored is a no-op, as a DELETE of one is', () => {
    const c = classifyDecisions([
      d({ operation: 'UPDATE', memory_id: 'ghost', old_text: null, new_text: 'likes tea' }),
      d({ operation: 'UPDATE', memory_id: 'ghost2', old_text: '  ', new_text: 'likes tea' }),
      d({ operation: 'DELETE', memory_id: 'ghost3', old_text: null }),
    ]);
    expect(c.map((x) => x.class)).toEqual(['no-op', 'no-op', 'no-op']);
    expect(c.map((x) => x.effectiveMutation)).toEqual([false, false, false]);
  });
});
