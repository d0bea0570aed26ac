/**
 * The answers `rawrag calibrate-judge` gives the judge, each a question of its own in the run
 * directory (`<question id>~<kind>`): the gold answer itself (should be accepted), the
 * rule-based specific-but-wrong and vague-but-topical perturbations of it (should be rejected;
 * src/calibrate/perturb.ts), and a user's labelled answers (`--labels`: JSON lines {id, answer,
 * label}). The probes are answers in the sense of `rawrag judge`, so the judge stage is exactly
 * the one `run` applies.
 */
import { readFileSync } from 'node:fs';
import type { Dataset, Question } from '../core/schema.js';
import type { AnswersFile } from '../pipeline/judge-answers.js';
import { InputError } from '../util/errors.js';
import { hashOf } from '../util/hash.js';
import { perturb } from './perturb.js';

export const PROBE_KINDS = ['gold', 'specific', 'vague', 'label'] as const;
export type ProbeKind = (typeof PROBE_KINDS)[number];

export interface Probe {
  id: string;
  /** The question it answers. */
  of: string;
  kind: ProbeKind;
  answer: string;
  rules: string[];
  /** --labels: the user's verdict (1 = correct); null for generated probes. */
  label: number | null;
  /** --labels: the line it came from. */
  line: number | null;
}

export interface Label {
  id: string;
  answer: string;
  label: number;
  line: number;
}

const LABEL_VALUES: Record<string, number> = { correct: 1, wrong: 0, true: 1, false: 0, '1': 1, '0': 0, yes: 1, no: 0 };

/** `{id, answer, label}` JSON lines; label CORRECT/WRONG, true/false or 1/0; anything else is an input error naming the line. */
export function readLabels(file: string): Label[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new InputError(`cannot read the labels file (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`, { file });
  }
  const out: Label[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    if (!line) return;
    const place = `line ${i + 1}`;
    let v: { id?: unknown; answer?: unknown; label?: unknown };
    try {
      v = JSON.parse(line);
    } catch (e) {
      throw new InputError(`not valid JSON (${(e as Error).message})`, { file, place });
    }
    if (!v || typeof v !== 'object' || Array.isArray(v))
      throw new InputError('each line must be a JSON object {"id", "answer", "label"}', { file, place });
    if (typeof v.id !== 'string' || !v.id) throw new InputError('"id" must be a question id (a string)', { file, place });
    if (typeof v.answer !== 'string') throw new InputError(`"answer" of '${v.id}' must be a string`, { file, place });
    const label = LABEL_VALUES[String(v.label).toLowerCase()];
    if (label === undefined)
      throw new InputError(`"label" of '${v.id}' must be CORRECT or WRONG (or true/false, 1/0), got ${JSON.stringify(v.label)}`, {
        file,
        place,
      });
    out.push({ id: v.id, answer: v.answer, label, line: i + 1 });
  });
  if (out.length === 0) throw new InputError('no labelled answers in the file', { file });
  return out;
}

/**
 * Probes for the selected questions (gold + perturbations) and for every labelled answer (its
 * question may lie beyond --limit; an id the data does not have is an input error).
 */
export function buildProbes(
  dataset: Dataset,
  selected: Question[],
  seed: number,
  labels: { file: string; labels: Label[] } | null,
): Probe[] {
  const episodes = new Map(dataset.episodes.map((e) => [e.id, e]));
  const byType = new Map<string, Question[]>();
  for (const q of dataset.questions) byType.set(q.type, [...(byType.get(q.type) ?? []), q]);
  const probes: Probe[] = [];
  for (const q of selected) {
    probes.push({ id: `${q.id}~gold`, of: q.id, kind: 'gold', answer: q.gold, rules: [], label: null, line: null });
    for (const p of perturb(q, episodes.get(q.episode)!, byType.get(q.type) ?? [], seed)) {
      probes.push({ id: `${q.id}~${p.kind}`, of: q.id, kind: p.kind, answer: p.answer, rules: p.rules, label: null, line: null });
    }
  }
  if (labels) {
    const known = new Set(dataset.questions.map((q) => q.id));
    for (const l of labels.labels) {
      if (!known.has(l.id))
        throw new InputError(`unknown question id '${l.id}' (ids as items.jsonl names them, e.g. conv-26:q0)`, {
          file: labels.file,
          place: `line ${l.line}`,
        });
      probes.push({ id: `${l.id}~label-${l.line}`, of: l.id, kind: 'label', answer: l.answer, rules: [], label: l.label, line: l.line });
    }
  }
  return probes;
}

/** The probes as `rawrag judge` answers, and the probe questions the run asks. */
export function probeAnswers(probes: Probe[], dataset: Dataset): { answers: AnswersFile; questions: (selected: Question[]) => Question[] } {
  const byId: AnswersFile['byId'] = new Map(probes.map((p, i) => [p.id, { answer: p.answer, evidence: null, line: i + 1 }]));
  const file = 'judge-calibration-probes';
  const answers: AnswersFile = {
    file,
    sha256: hashOf(probes, 64),
    byId,
    ids: { file, entries: probes.map((p, i) => ({ id: p.id, line: i + 1 })) },
  };
  const questions = new Map(dataset.questions.map((q) => [q.id, q]));
  return {
    answers,
    questions: () =>
      probes.map((p) => {
        const q = questions.get(p.of)!;
        // A probe is judged against the run's gold only: the other gold version is not asked for.
        const { gold: _gold, ...meta } = q.meta ?? {};
        return { ...q, id: p.id, meta: { ...meta, calibration: { kind: p.kind, of: p.of, rules: p.rules, label: p.label } } };
      }),
  };
}
