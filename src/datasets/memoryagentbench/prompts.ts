/**
 * The official MemoryAgentBench prompt texts (configs/prompts/memoryagentbench-*.txt, sources in
 * memoryagentbench-SOURCE.md) and the two bits of Python semantics needed to fill them exactly:
 * `str.format` and `repr` of a list of strings (the official judges format Python lists).
 */
import { promptFile } from '../../eval/prompts.js';
import type { TemplateFamily } from './sources.js';

export function promptText(name: string): string {
  return promptFile(`memoryagentbench-${name}`);
}

export const SYSTEM_PROMPT = () => promptText('system');

export function queryTemplate(family: TemplateFamily): string {
  return promptText(`query-${family.replace(/_/g, '-')}`);
}

/**
 * Python `str.format`: `{name}` / `{}` (positional, in order) replaced, `{{` and `}}` unescaped.
 * Values are inserted as given (no re-scanning), as Python does.
 */
export function pyFormat(template: string, args: Record<string, string> | string[]): string {
  let auto = 0;
  return template.replace(/\{\{|\}\}|\{([^{}]*)\}/g, (m, field: string | undefined) => {
    if (m === '{{') return '{';
    if (m === '}}') return '}';
    if (Array.isArray(args)) {
      const i = field === '' ? auto++ : Number(field);
      if (!Number.isInteger(i) || i >= args.length) throw new Error(`template field {${field}} has no value`);
      return args[i]!;
    }
    const v = args[field!];
    if (v === undefined) throw new Error(`template field {${field}} has no value`);
    return v;
  });
}

/** Python `repr(str)`: single quotes unless the text has `'` and no `"`; escapes as CPython. */
export function pyReprString(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (ch === '\\') out += '\\\\';
    else if (ch === quote) out += '\\' + ch;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (ch !== ' ' && /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/u.test(ch)) {
      if (cp < 0x100) out += '\\x' + cp.toString(16).padStart(2, '0');
      else if (cp < 0x10000) out += '\\u' + cp.toString(16).padStart(4, '0');
      else out += '\\U' + cp.toString(16).padStart(8, '0');
    } else out += ch;
  }
  return out + quote;
}

/** Python `str(list)` for a (possibly nested) list of strings. */
export function pyReprList(value: unknown): string {
  if (Array.isArray(value)) return '[' + value.map(pyReprList).join(', ') + ']';
  return pyReprString(String(value));
}
