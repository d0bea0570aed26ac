/**
 * `--judge-prompt FILE`: the benchmark's judge with another prompt — same reply parsing, JSON mode,
 * runs and cache — so the same answers can be scored under a stricter (or any) prompt and the two
 * judges compared (`rawrag judge --rejudge`, `rawrag stats`). The file's text (minus one final
 * newline) is one user message with Python-format slots `{question}`, `{gold_answer}`,
 * `{generated_answer}`; its sha256 is part of the run's config, so another text is another run.
 */
import { readFileSync, existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { JudgeProtocol } from '../core/protocol.js';
import { InputError } from '../util/errors.js';
import { sha256Hex } from '../util/fsx.js';
import { fromRoot } from '../util/paths.js';

export interface JudgePromptRef {
  file: string;
  sha256: string;
}

const SLOTS = ['{gold_answer}', '{generated_answer}'];

/** A prompt file named on the command line: a path, or `strict` for the bundled `<benchmark>-judge-strict.txt` (rawrag's own). */
export function resolveJudgePrompt(value: string, benchmark: string): JudgePromptRef {
  const bundled = fromRoot('configs', 'prompts', `${benchmark}-judge-${value}.txt`);
  const file = !value.includes('/') && !value.includes('.') && existsSync(bundled) ? bundled : resolve(value);
  const text = readPrompt(file);
  const missing = SLOTS.filter((s) => !text.includes(s));
  if (missing.length) throw new InputError(`judge prompt has no ${missing.join(' or ')} slot`, { file });
  return { file, sha256: sha256Hex(text) };
}

function readPrompt(file: string): string {
  try {
    return readFileSync(file, 'utf8').replace(/\n$/, '');
  } catch (e) {
    throw new InputError(`cannot read the judge prompt (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`, { file });
  }
}

/** The protocol with the prompt replaced where the protocol allows it (LoCoMo: not for adversarial questions). */
export function judgeProtocolFor(base: JudgeProtocol, prompt: JudgePromptRef | null): JudgeProtocol {
  if (!prompt) return base;
  if (base.judge)
    throw new InputError(`the ${base.id} judge sends several requests per answer: --judge-prompt cannot replace it`, {
      place: '--judge-prompt',
    });
  const text = readPrompt(prompt.file);
  if (sha256Hex(text) !== prompt.sha256) {
    throw new InputError(`the judge prompt changed since the run was configured (sha256 ${prompt.sha256.slice(0, 12)}...)`, {
      file: prompt.file,
    });
  }
  const fill = (values: Record<string, string>) => text.replace(/\{(\w+)\}/g, (m, k: string) => values[k] ?? m);
  return {
    ...base,
    id: `${base.id}+prompt:${prompt.sha256.slice(0, 12)}`,
    source: `${prompt.file} (sha256 ${prompt.sha256}); parsed as ${base.id}`,
    render(q, answer) {
      const official = base.render(q, answer);
      if (official === null || (base.customPromptApplies && !base.customPromptApplies(q))) return official;
      return [{ role: 'user', content: fill({ question: q.text, gold_answer: q.gold, generated_answer: answer }) }];
    },
  };
}
