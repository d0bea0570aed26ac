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
import { findProtocol, namedJudgeProtocol, namedProtocols, protocolsFile } from './judge-protocols.js';

export interface JudgePromptRef {
  file: string;
  sha256: string;
  /** A named protocol (`--judge-prompt evermemos`): its whole definition, not only a prompt (src/reader-judge/judge-protocols.ts). */
  protocol?: string;
}

const SLOTS = ['{gold_answer}', '{generated_answer}'];

/**
 * What `--judge-prompt VALUE` names: `file:PATH` a prompt file; a name of the benchmark's protocol
 * list (`configs/prompts/<benchmark>-judge-protocols.json`) that protocol — null for the
 * benchmark's official one (nothing replaced); `strict` the bundled `<benchmark>-judge-strict.txt`
 * (rawrag's own); anything else a path.
 */
export function resolveJudgePrompt(value: string, benchmark: string): JudgePromptRef | null {
  if (value.startsWith('file:')) return promptFile(resolve(value.slice('file:'.length)));
  const bundled = fromRoot('configs', 'prompts', `${benchmark}-judge-${value}.txt`);
  const isName = !value.includes('/') && !value.includes('.');
  const named = isName ? findProtocol(benchmark, value) : null;
  if (named?.official) return null;
  // A named protocol that is more than another prompt (a system message, another reading, no JSON mode).
  if (named && !(existsSync(bundled) && named.system === null && named.parse === 'label-json-exact' && named.jsonMode)) {
    return { file: protocolsFile(benchmark)!, sha256: named.sha256, protocol: named.name };
  }
  if (isName && !existsSync(bundled) && !existsSync(resolve(value))) {
    const names = namedProtocols(benchmark).flatMap((p) => [p.name, ...p.aliases]);
    throw new InputError(
      `'${value}' is neither a judge protocol of ${benchmark}${names.length ? ` (${names.join(', ')})` : ''} nor a file (give a path, or file:PATH)`,
      { place: '--judge-prompt' },
    );
  }
  return promptFile(isName && existsSync(bundled) ? bundled : resolve(value));
}

function promptFile(file: string): JudgePromptRef {
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
export function judgeProtocolFor(base: JudgeProtocol, prompt: JudgePromptRef | null, benchmark?: string): JudgeProtocol {
  if (!prompt) return base;
  if (prompt.protocol) return namedFor(base, prompt, benchmark);
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

/** A recorded named protocol, checked unchanged since the run was configured. */
function namedFor(base: JudgeProtocol, prompt: JudgePromptRef, benchmark: string | undefined): JudgeProtocol {
  const bench = benchmark ?? base.id.split('-')[0]!;
  const p = findProtocol(bench, prompt.protocol!);
  if (!p) throw new InputError(`the run names judge protocol '${prompt.protocol}', which ${bench} no longer lists`, { file: prompt.file });
  if (p.sha256 !== prompt.sha256)
    throw new InputError(
      `judge protocol '${prompt.protocol}' changed since the run was configured (sha256 ${prompt.sha256.slice(0, 12)}...)`,
      {
        file: prompt.file,
      },
    );
  if (base.judge)
    throw new InputError(`the ${base.id} judge sends several requests per answer: --judge-prompt cannot replace it`, {
      place: '--judge-prompt',
    });
  return namedJudgeProtocol(base, p);
}
