/**
 * The write-decision log: every operation a memory system proposed when writing (ADD / UPDATE /
 * DELETE / NONE), with the item and the texts, one JSON object per line. The built-in agentic
 * memory system records its own; an adapter for another system (Mem0's events) writes the same
 * format, and `rawrag memory audit` reads both (docs/agentic-memory.md#the-write-decision-log).
 *
 * A line needs five fields: `episode`, `operation`, `memory_id`, `old_text`, `new_text`. The others
 * are optional: `applied` (what the system really did, when it differs: add-only memory turns an
 * UPDATE into an ADD), `status` (`malformed` when the writer knows the proposal was unusable),
 * `effective` (the writer's own verdict on whether the stored text changed), `batch`, `seq`.
 * Which proposals were repeated, malformed or no-ops is decided by `classifyDecisions`, the same
 * way for every writer, so logs from different systems are audited alike.
 */
import { readFileSync } from 'node:fs';
import { appendRecordsToFile } from '../util/checked-write.js';
import { z } from 'zod';
import { InputError } from '../util/errors.js';
import { writeFileAtomic } from '../util/fsx.js';

export const OPERATIONS = ['ADD', 'UPDATE', 'DELETE', 'NONE'] as const;
export type Operation = (typeof OPERATIONS)[number];

/** The file name a run directory holds an imported (or adapter-written) decision log under. */
export const DECISION_LOG_FILE = 'write-decisions.jsonl';

export const WriteDecisionSchema = z
  .object({
    /** The conversation (episode id) the decision was made for. */
    episode: z.string().min(1),
    operation: z.enum(OPERATIONS),
    /** The item the operation targets: the new item for ADD, the existing one for UPDATE / DELETE; null when none was named. */
    memory_id: z.string().nullable(),
    /** The stored text before the operation (null: no such item, or ADD). */
    old_text: z.string().nullable(),
    /** The text proposed (null for DELETE and NONE). */
    new_text: z.string().nullable(),
    applied: z.enum(OPERATIONS).optional(),
    status: z.enum(['ok', 'malformed']).optional(),
    effective: z.boolean().optional(),
    batch: z.string().optional(),
    seq: z.number().int().nonnegative().optional(),
    /** Why the system did something other than the proposal (duplicate, low-confidence, add-only, no-target, ...). */
    reason: z.string().optional(),
    /**
     * What the line records: `proposal` (what a write LLM proposed; the default) or `event` (what a
     * service's reply said it did: Mem0's add events). The audit keeps the two apart (src/memory-audit/layers.ts).
     */
    layer: z.enum(['proposal', 'event']).optional(),
  })
  .strict();
export type WriteDecision = z.infer<typeof WriteDecisionSchema>;

/** One JSONL line per decision (the writer of adapters such as Mem0's; atomic: the whole file at once). */
export function writeDecisionLog(path: string, decisions: readonly WriteDecision[]): void {
  writeFileAtomic(path, decisions.map((d) => JSON.stringify(WriteDecisionSchema.parse(d)) + '\n').join(''));
}

/** Appends decisions as they are made (a writer that streams): all of them or none; a torn tail is repaired first. */
export function appendDecisions(path: string, decisions: readonly WriteDecision[]): void {
  appendRecordsToFile(
    path,
    decisions.map((d) => JSON.stringify(WriteDecisionSchema.parse(d))),
  );
}

/** Reads and validates a decision log; a bad line is an InputError naming the file and the line. */
export function readDecisionLog(path: string): WriteDecision[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new InputError(`cannot read the decision log (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`, { file: path });
  }
  const out: WriteDecision[] = [];
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (e) {
      throw new InputError(`not JSON (${(e as Error).message})`, { file: path, place: `line ${i + 1}` });
    }
    const parsed = WriteDecisionSchema.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new InputError(`${issue.path.join('.') || '(line)'}: ${issue.message}`, { file: path, place: `line ${i + 1}` });
    }
    out.push(parsed.data);
  });
  return out;
}

/** How a proposal counts: usable, or one of the three kinds the paper excludes from effective mutations. */
export type DecisionClass = 'ok' | 'repeated' | 'malformed' | 'no-op';

export interface ClassifiedDecision extends WriteDecision {
  class: DecisionClass;
  /** The stored text really changed by an UPDATE or DELETE (ADD and NONE are never mutations). */
  effectiveMutation: boolean;
}

const norm = (s: string | null) => (s ?? '').replace(/\s+/g, ' ').trim().toLowerCase();

/**
 * Classifies each decision in log order, per episode:
 * - malformed: the writer says so, or an UPDATE / DELETE names no item, or an UPDATE / ADD has no text;
 * - repeated: the same operation on the same item with the same text was proposed before in the episode;
 * - no-op: an UPDATE whose text equals the stored one; an UPDATE or a DELETE of an item with no stored
 *   text (`old_text` null: never stored), which changes no stored text;
 * - an UPDATE / DELETE that is none of these, was applied as proposed and that the writer does not
 *   call ineffective is an effective mutation.
 */
export function classifyDecisions(decisions: readonly WriteDecision[]): ClassifiedDecision[] {
  const seen = new Map<string, Set<string>>();
  return decisions.map((d) => {
    const keys = seen.get(d.episode) ?? new Set<string>();
    seen.set(d.episode, keys);
    const mutation = d.operation === 'UPDATE' || d.operation === 'DELETE';
    let cls: DecisionClass = 'ok';
    if (
      d.status === 'malformed' ||
      (mutation && (d.memory_id === null || d.memory_id === '')) ||
      ((d.operation === 'UPDATE' || d.operation === 'ADD') && norm(d.new_text) === '')
    )
      cls = 'malformed';
    else if (d.operation !== 'NONE') {
      const key = `${d.operation}\u0000${d.operation === 'ADD' ? '' : d.memory_id}\u0000${norm(d.new_text)}`;
      if (keys.has(key)) cls = 'repeated';
      else {
        keys.add(key);
        if (d.operation === 'UPDATE' && norm(d.old_text) === norm(d.new_text)) cls = 'no-op';
        else if (mutation && norm(d.old_text) === '') cls = 'no-op';
      }
    }
    const effectiveMutation = mutation && cls === 'ok' && (d.applied ?? d.operation) === d.operation && d.effective !== false;
    return { ...d, class: cls, effectiveMutation };
  });
}
