import { parseYaml } from '../util/yaml.js';
import { InputError, formatPath } from '../util/errors.js';
import { parseJsonText } from '../util/fsx.js';
import { decodeUtf8 } from '../util/text.js';
import { readFileSync } from 'node:fs';
import { CREDENTIALS_IN_URL, urlCredentialsIn } from '../util/url-credentials.js';
import type { z } from 'zod';
import type { RunConfig } from './schema.js';

export type PartialConfig = { [key: string]: unknown };

/** Reads a JSON or YAML config file (by extension; YAML is a superset, so anything else is YAML). */
export function readConfigFile(path: string): PartialConfig {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (e) {
    throw new InputError(`cannot read config file (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`, { file: path });
  }
  // Strict UTF-8 and a leading BOM dropped, as for every data file.
  const text = decodeUtf8(bytes, path);
  let value: unknown;
  if (path.endsWith('.json')) value = parseJsonText(text, path);
  else {
    try {
      value = parseYaml(text);
    } catch (e) {
      throw new InputError(`invalid YAML (${(e as Error).message.split('\n')[0]})`, { file: path });
    }
  }
  if (value === null || value === undefined) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw new InputError('a config file must hold an object', { file: path });
  return value as PartialConfig;
}

/** Deep merge: later layers win; objects merge key by key, everything else is replaced. */
export function mergeLayers(...layers: PartialConfig[]): PartialConfig {
  const out: PartialConfig = {};
  for (const layer of layers) {
    for (const [k, v] of Object.entries(layer)) {
      if (v === undefined) continue;
      const prev = Object.hasOwn(out, k) ? out[k] : undefined;
      const value =
        v && typeof v === 'object' && !Array.isArray(v) && prev && typeof prev === 'object' && !Array.isArray(prev)
          ? mergeLayers(prev as PartialConfig, v as PartialConfig)
          : v;
      // Defined, not assigned: a `__proto__` key stays an own (unknown, refused) key instead of
      // becoming the object's prototype, whose values the schema would read as if they were set.
      Object.defineProperty(out, k, { value, enumerable: true, writable: true, configurable: true });
    }
  }
  return out;
}

/**
 * Validates a merged config against `schema` (the run config with every system's section:
 * src/systems/registry.ts `RunConfigSchema`); `source` names where it came from for error messages.
 */
export function resolveConfig(merged: PartialConfig, source: string, schema: z.ZodType<RunConfig>): RunConfig {
  // A window size without a stride keeps the paper's 32-token overlap, from a file as from flags.
  const chunking = merged.chunking as PartialConfig | undefined;
  if (chunking && typeof chunking.size === 'number' && chunking.stride === undefined) {
    merged = { ...merged, chunking: { ...chunking, stride: Math.max(1, chunking.size - 32) } };
  }
  // A URL with a password in it, wherever the config came from (a file, flags, a recorded manifest): refused, never recorded.
  const secret = urlCredentialsIn(merged);
  if (secret) throw new InputError(CREDENTIALS_IN_URL, { file: source, place: formatPath(secret) });
  const parsed = schema.safeParse(merged);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new InputError(issue.message, { file: source, place: formatPath(issue.path) });
  }
  return withoutNoOps(parsed.data);
}

/**
 * Values that mean "nothing": a reader named `none` is no reader (retrieval only; no request ever
 * goes to a model called "none"), and one epoch is the default, so neither changes the config's
 * hash or run id. A judge named `none` stays: it is a predict-only run, another configuration.
 */
function withoutNoOps(cfg: RunConfig): RunConfig {
  let out = cfg;
  if (typeof cfg.reader?.model === 'string' && cfg.reader.model.trim().toLowerCase() === NO_MODEL)
    out = { ...out, reader: { ...out.reader, model: null } };
  if (typeof out.judge?.model === 'string' && out.judge.model.trim().toLowerCase() === NO_MODEL)
    out = { ...out, judge: { ...out.judge, model: NO_MODEL } };
  if (out.epochs === 1) {
    const { epochs: _one, ...rest } = out;
    out = rest as RunConfig;
  }
  return out;
}

/** The model name that means "no model": `--reader none` (retrieval only), `--judge none` (answers, no verdicts). */
export const NO_MODEL = 'none';
