/**
 * The official MemoryAgentBench prompt texts (configs/prompts/memoryagentbench-*.txt, sources in
 * memoryagentbench-SOURCE.md) and the two bits of Python semantics needed to fill them exactly:
 * `str.format` and `repr` of a list of strings (the official judges format Python lists).
 */
import { promptFile } from '../../scoring/prompts.js';
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

