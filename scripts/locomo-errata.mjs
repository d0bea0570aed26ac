#!/usr/bin/env node
/**
 * Builds datasets/locomo/gold-errata.json from a public audit of LoCoMo's ground truth:
 * dial481/locomo-audit (CC BY-NC 4.0), file errors.json, read from a checkout of that repository.
 *
 *   node scripts/locomo-errata.mjs <audit checkout>/errors.json datasets/locomo/locomo10.json <commit> > datasets/locomo/gold-errata.json
 *
 * The audit names questions `locomo_<sample index>_qa<index in the sample's qa list>`; rawrag names
 * them `<sample_id>:q<index>`. Every entry is checked against the LoCoMo file (question text and
 * original answer must match) before it is written. The audit's own kinds are kept; WRONG_CITATION
 * entries (answer right, evidence wrong) correct the evidence only, as the audit says they do not
 * affect the answer.
 */
import { readFileSync } from 'node:fs';

const [auditFile, locomoFile, commit] = process.argv.slice(2);
if (!auditFile || !locomoFile || !commit) {
  process.stderr.write('usage: node scripts/locomo-errata.mjs <errors.json> <locomo10.json> <audit commit>\n');
  process.exit(1);
}
const audit = JSON.parse(readFileSync(auditFile, 'utf8'));
const data = JSON.parse(readFileSync(locomoFile, 'utf8'));
const entries = [];
for (const e of audit) {
  const m = /^locomo_(\d+)_qa(\d+)$/.exec(e.question_id);
  if (!m) throw new Error(`unexpected question_id ${e.question_id}`);
  const sample = data[Number(m[1])];
  const qa = sample?.qa[Number(m[2])];
  if (!qa || qa.question !== e.question || String(qa.answer) !== String(e.golden_answer)) {
    throw new Error(`${e.question_id}: question or answer differs from ${locomoFile}`);
  }
  const affectsAnswer = e.error_type !== 'WRONG_CITATION';
  entries.push({
    id: `${sample.sample_id}:q${m[2]}`,
    category: qa.category,
    question: qa.question,
    original_answer: String(qa.answer),
    corrected_answer: affectsAnswer ? String(e.correct_answer) : String(qa.answer),
    original_evidence: qa.evidence,
    corrected_evidence: e.correct_evidence,
    error_kind: e.error_type,
    affects_answer: affectsAnswer,
    source: `errors.json ${e.question_id}`,
  });
}
const sha = (await import('node:crypto')).createHash('sha256').update(readFileSync(locomoFile)).digest('hex');
const out = {
  format: 'rawrag-locomo-gold-errata-v1',
  source: {
    name: 'LoCoMo ground-truth audit',
    repository: 'https://github.com/dial481/locomo-audit',
    commit,
    file: 'errors.json',
    licence: 'CC BY-NC 4.0 (https://creativecommons.org/licenses/by-nc/4.0/)',
    attribution:
      'dial481/locomo-audit, "LoCoMo Benchmark Audit" (AUDIT_REPORT.md), derived from LoCoMo by Maharana et al. (snap-research/locomo, CC BY-NC 4.0)',
    changes:
      "question ids renamed to rawrag ids; the audit's reasoning and cited-evidence fields dropped; WRONG_CITATION entries keep the original answer (the audit classes them as not affecting the answer)",
  },
  data_sha256: sha,
  errata: entries,
};
process.stdout.write(JSON.stringify(out, null, 1) + '\n');
