/**
 * Named judge protocols (`--judge-prompt NAME`, the judge-prompt sweep): a benchmark's list in
 * `configs/prompts/<benchmark>-judge-protocols.json`, each a whole protocol — its messages (verbatim
 * data files), JSON mode, how the reply is read and what an unreadable reply counts as. Protocols
 * equal in every part (texts compared byte for byte) are one protocol under several names: the
 * first listed is its name, the others its aliases. The names are data, never code: which vendor's
 * evaluation script a protocol comes from is in the file's `source`.
 */
import { existsSync, readFileSync } from 'node:fs';
import type { ChatMessage, JudgeProtocol } from '../core/protocol.js';
import type { Question } from '../core/schema.js';
import { InputError } from '../util/errors.js';
import { sha256Hex } from '../util/fsx.js';
import { fromRoot } from '../util/paths.js';

/** How a protocol reads the judge's reply (named after what it does, as its source does it). */
export type ParseRule = 'label-json-exact' | 'label-json-repair-exact' | 'label-extract-else-wrong' | 'label-regex-casefold';
const RULES: ParseRule[] = ['label-json-exact', 'label-json-repair-exact', 'label-extract-else-wrong', 'label-regex-casefold'];

export interface NamedProtocol {
  name: string;
  /** Other names of the same protocol (identical texts, JSON mode and reading). */
  aliases: string[];
  /** The benchmark's own judge: no override needed (the run's judge as the benchmark defines it). */
  official: boolean;
  system: string | null;
  user: string;
  /** Slot in the template -> what fills it (`question`, `gold`, `answer`). */
  slots: Record<string, 'question' | 'gold' | 'answer'>;
  jsonMode: boolean;
  parse: ParseRule;
  source: string;
  /** sha256 over everything that defines the protocol (texts, slots, JSON mode, reading). */
  sha256: string;
}

interface RawEntry {
  name: string;
  official?: boolean;
  system?: string;
  user: string;
  slots: Record<string, string>;
  json_mode: boolean;
  parse: string;
  source: string;
}

/** The registry file of a benchmark (null when it has none). */
export function protocolsFile(benchmark: string): string | null {
  const file = fromRoot('configs', 'prompts', `${benchmark}-judge-protocols.json`);
  return existsSync(file) ? file : null;
}

const promptText = (name: string) => readFileSync(fromRoot('configs', 'prompts', name), 'utf8').replace(/\n$/, '');

/** The benchmark's named protocols, aliases merged (empty when it has no registry). */
export function namedProtocols(benchmark: string): NamedProtocol[] {
  const file = protocolsFile(benchmark);
  if (!file) return [];
  let raw: { protocols?: RawEntry[] };
  try {
    raw = JSON.parse(readFileSync(file, 'utf8')) as { protocols?: RawEntry[] };
  } catch (e) {
    throw new InputError(`not valid JSON (${(e as Error).message})`, { file });
  }
  const out: NamedProtocol[] = [];
  for (const [i, e] of (raw.protocols ?? []).entries()) {
    if (!RULES.includes(e.parse as ParseRule))
      throw new InputError(`protocols[${i}].parse '${e.parse}' is not one of ${RULES.join(', ')}`, { file });
    const system = e.system ? promptText(e.system) : null;
    const user = promptText(e.user);
    const slots = e.slots as NamedProtocol['slots'];
    const sha256 = sha256Hex(JSON.stringify({ system, user, slots, json_mode: e.json_mode, parse: e.parse }));
    const same = out.find((p) => p.sha256 === sha256);
    if (same) {
      same.aliases.push(e.name);
      same.official ||= Boolean(e.official);
      continue;
    }
    out.push({
      name: e.name,
      aliases: [],
      official: Boolean(e.official),
      system,
      user,
      slots,
      jsonMode: e.json_mode,
      parse: e.parse as ParseRule,
      source: e.source,
      sha256,
    });
  }
  // The benchmark's name is an alias of its official protocol.
  const official = out.find((p) => p.official);
  if (official && !official.aliases.includes(benchmark)) official.aliases.push(benchmark);
  return out;
}

/** The protocol a name (or alias) stands for; null when the benchmark has no such name. */
export function findProtocol(benchmark: string, name: string): NamedProtocol | null {
  return namedProtocols(benchmark).find((p) => p.name === name || p.aliases.includes(name)) ?? null;
}

/** Python str.format / f-string slots filled in one pass (the texts have no other braces). */
function fill(template: string, slots: NamedProtocol['slots'], q: Question, answer: string): string {
  const value = { question: q.text, gold: q.gold, answer };
  return template.replace(/\{(\w+)\}/g, (m, k: string) => (slots[k] ? value[slots[k]] : m));
}

/** The label of a JSON object reply; throws when there is none. */
function labelOf(json: string): string {
  const obj = JSON.parse(json) as unknown;
  if (!obj || typeof obj !== 'object' || !('label' in obj)) throw new Error('no "label" in the reply');
  const label = (obj as { label: unknown }).label;
  return typeof label === 'string' ? label : JSON.stringify(label);
}

/** The first balanced {...} of a text (a lenient reading, as json_repair finds the object in prose). */
function firstObject(text: string): string | null {
  const start = text.indexOf('{');
  if (start === -1) return null;
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i]!;
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return text.slice(start, i + 1);
  }
  return null;
}

/** Verdict (1/0) from a reply by the protocol's rule; throws when the rule calls the reply unreadable (an item error). */
export function readVerdict(rule: ParseRule, reply: string): number {
  const fail = (why: string): never => {
    throw new Error(`judge reply unreadable (${why}): ${JSON.stringify(reply.slice(0, 200))}`);
  };
  switch (rule) {
    case 'label-json-exact': {
      let label: string;
      try {
        label = labelOf(reply);
      } catch (e) {
        return fail((e as Error).message);
      }
      return label === 'CORRECT' ? 1 : 0;
    }
    case 'label-json-repair-exact': {
      const obj = firstObject(reply);
      if (!obj) return fail('no JSON object');
      try {
        return labelOf(obj) === 'CORRECT' ? 1 : 0;
      } catch (e) {
        return fail((e as Error).message);
      }
    }
    case 'label-extract-else-wrong': {
      // Never an error: an empty or unreadable reply counts WRONG, as its source counts it.
      if (!reply) return 0;
      const block = /```(?:json)?\s*(\{[^`]*\})\s*```/s.exec(reply);
      const object = /\{[^{}]*"label"\s*:\s*"[^"]*"[^{}]*\}/.exec(reply);
      const json = block ? block[1]!.trim() : object ? object[0] : reply.trim();
      try {
        const label = (JSON.parse(json) as { label?: unknown })?.label;
        if (typeof label !== 'string' || label === '') return 0;
        return label.trim().toUpperCase() === 'CORRECT' ? 1 : 0;
      } catch {
        return 0;
      }
    }
    case 'label-regex-casefold': {
      const m = /\{\s*"label"\s*:\s*["']([^"']*)["']\s*\}/.exec(reply);
      if (!m) return fail('no {"label": ...} object');
      let label: string;
      try {
        label = labelOf(m[0]);
      } catch (e) {
        return fail((e as Error).message);
      }
      return label.trim().toLowerCase() === 'correct' ? 1 : 0;
    }
  }
}

/** The benchmark's judge protocol with a named protocol in its place (where the base allows another prompt). */
export function namedJudgeProtocol(base: JudgeProtocol, p: NamedProtocol): JudgeProtocol {
  if (p.official) return base;
  return {
    ...base,
    id: `${base.id}+prompt:${p.name}`,
    source: `${p.source} (protocol sha256 ${p.sha256})`,
    jsonMode: p.jsonMode,
    render(q, answer) {
      const official = base.render(q, answer);
      if (official === null || (base.customPromptApplies && !base.customPromptApplies(q))) return official;
      const messages: ChatMessage[] = [];
      if (p.system !== null) messages.push({ role: 'system', content: fill(p.system, p.slots, q, answer) });
      messages.push({ role: 'user', content: fill(p.user, p.slots, q, answer) });
      return messages;
    },
    parse(reply, q) {
      // Questions the named protocol does not judge (LoCoMo's adversarial category) keep the base reading.
      if (base.customPromptApplies && !base.customPromptApplies(q)) return base.parse(reply, q);
      return readVerdict(p.parse, reply);
    },
  };
}

/** The data files a named protocol's messages come from (system first), as its registry lists them. */
export function protocolFiles(benchmark: string, name: string): string[] {
  const file = protocolsFile(benchmark);
  if (!file) return [];
  const raw = JSON.parse(readFileSync(file, 'utf8')) as { protocols?: RawEntry[] };
  const e = (raw.protocols ?? []).find((x) => x.name === name);
  return e ? [...(e.system ? [e.system] : []), e.user] : [];
}
