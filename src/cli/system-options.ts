/**
 * `-S key=value` (repeatable): a system's own options, declared by the system itself (the zod schema
 * of its config section, src/core/system.ts), in the convention inspect_ai uses for its `-M` / `-T`
 * arguments, so `rawrag run --help` does not grow with every system. A value is read as a YAML
 * scalar (`-S top_k=30` is a number, `-S owners=per-speaker` a string, `-S types=[episodic]` a list);
 * a dotted key sets a nested value. The system's schema validates them when the run config is
 * composed; an error names `-S key`. Keys never travel this way: they are read from the environment
 * variable the system names.
 */
import { InvalidArgumentError } from 'commander';
import { mergeLayers, type PartialConfig } from '../config/load.js';
import type { SystemDescriptor } from '../core/system.js';
import { UsageError } from '../util/errors.js';
import { parseYaml } from '../util/yaml.js';

/** Commander's collector for `-S`: checks the `key=value` shape, keeps the pairs in order. */
export function collectSystemOption(value: string, previous: string[] = []): string[] {
  const eq = value.indexOf('=');
  if (eq <= 0 || !/^[A-Za-z_][\w-]*(\.[A-Za-z_][\w-]*)*$/.test(value.slice(0, eq).trim()))
    throw new InvalidArgumentError(`'${value}' is not key=value (e.g. -S url=http://127.0.0.1:8080).`);
  const reserved = objectMachineryIn(value.slice(0, eq).trim());
  if (reserved)
    throw new InvalidArgumentError(`'${reserved}' is not an option name (it would reach past the options into the config object).`);
  return [...previous, value];
}

/**
 * `__proto__`, `constructor`, `prototype`: names that, set on a plain object, change its prototype
 * (`-S '__proto__={"items":50}'` would set an inherited `items` the unknown-key check never sees).
 */
function objectMachineryIn(key: string): string | null {
  return key.split('.').find((p) => p === '__proto__' || p === 'constructor' || p === 'prototype') ?? null;
}

/** Option names that look like a secret: refused, with the environment variable to use instead. */
const SECRET_KEY = /(^|_|\b)(key|api[_-]?key|token|secret|password)$/i;

export interface SystemOptionLayer {
  /** `{section: {...}}` to merge over the config file, below nothing else. */
  layer: PartialConfig;
  /** The config paths `-S` set, each with the key as typed: errors on them are blamed on `-S key`. */
  paths: Array<{ path: string[]; key: string }>;
}

/** The config layer `-S` pairs give for `system`. */
export function systemOptionLayer(
  system: SystemDescriptor,
  pairs: readonly string[],
  /** A grid's cell: only the options `system` declares apply to it (the others are other cells' systems'). */
  o: { onlyDeclared?: boolean } = {},
): SystemOptionLayer {
  const out: SystemOptionLayer = { layer: {}, paths: [] };
  if (pairs.length === 0) return out;
  const section = system.config?.key;
  if (!section) {
    if (o.onlyDeclared) return out;
    throw new UsageError(`-S: system '${system.name}' has no options (rawrag systems ${system.name})`);
  }
  const declared = new Set(declaredOptions(system));
  const root: PartialConfig = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    const key = pair.slice(0, eq).trim();
    if (o.onlyDeclared && !declared.has(key.split('.')[0]!)) continue;
    if (SECRET_KEY.test(key)) {
      const env = system.about?.env?.map((e) => e.name).join(' or ');
      throw new UsageError(
        `-S ${key}: keys are never given as options (they would land in the manifest); set ${env ?? "the system's key variable"} in the environment`,
      );
    }
    const reserved = objectMachineryIn(key);
    if (reserved) throw new UsageError(`-S ${key}: '${reserved}' is not an option name`);
    const path = key.split('.');
    let node = root;
    for (const p of path.slice(0, -1)) {
      const next = node[p];
      node = (node[p] = next && typeof next === 'object' && !Array.isArray(next) ? next : {}) as PartialConfig;
    }
    node[path[path.length - 1]!] = scalar(pair.slice(eq + 1), key);
    out.paths.push({ path: [section, ...path], key });
  }
  out.layer = { [section]: root };
  return out;
}

/** A value as YAML reads it; an empty value is the empty string, and a YAML error names the key. */
function scalar(text: string, key: string): unknown {
  if (text.trim() === '') return '';
  try {
    const v = parseYaml(text);
    // A bare URL or path reads as a string already; `null` / `~` stay null (an option's "none").
    return v;
  } catch (e) {
    throw new UsageError(`-S ${key}: '${text}' is not a value (${(e as Error).message.split('\n')[0]})`);
  }
}

/** The `-S` key an error at `path` belongs to (the longest `-S` path it falls under), if any. */
export function optionKeyAt(paths: SystemOptionLayer['paths'], path: ReadonlyArray<PropertyKey>): string | null {
  const p = path.map(String);
  let best: { key: string; len: number } | null = null;
  for (const o of paths) {
    const n = Math.min(o.path.length, p.length);
    if (o.path.slice(0, n).every((x, i) => x === p[i]) && n >= 2 && (!best || n > best.len)) best = { key: o.key, len: n };
  }
  return best?.key ?? null;
}

/** The option names a system declares (top-level keys of its section), for "unknown option" errors. */
export function declaredOptions(system: SystemDescriptor): string[] {
  const shape = (system.config?.schema as unknown as { shape?: Record<string, unknown> } | undefined)?.shape;
  return shape ? Object.keys(shape) : [];
}

/**
 * `rawrag judge --rejudge RUN -S key=value`: a judge runs no system, so `-S` cannot change one; it is
 * a check that the run was made with these options (scripts pass one `-S` list to every command).
 * An option the run did not record, or recorded otherwise, is refused rather than silently ignored.
 */
export function checkRecordedSystemOptions(
  system: SystemDescriptor,
  recorded: PartialConfig,
  pairs: readonly string[],
  runDir: string,
): void {
  if (pairs.length === 0) return;
  const { layer, paths } = systemOptionLayer(system, pairs); // refuses a system without options
  const section = system.config!.key;
  const declared = new Set(declaredOptions(system));
  const schema = system.config!.schema;
  const before = schema.safeParse(recorded[section] ?? {});
  const after = schema.safeParse(mergeLayers({ [section]: recorded[section] ?? {} }, layer)[section]);
  for (const { path, key } of paths)
    if (!declared.has(path[1]!))
      throw new UsageError(`-S ${key}: '${system.name}' has no such option (its options: ${[...declared].join(', ')})`);
  if (!after.success) {
    const issue = after.error.issues[0];
    const key = optionKeyAt(paths, [section, ...(issue?.path ?? [])]) ?? paths[0]!.key;
    throw new UsageError(`-S ${key}: ${issue?.message ?? 'not a valid value'}`);
  }
  for (const { path, key } of paths) {
    const was = before.success ? valueAt(before.data, path.slice(1)) : valueAt(recorded[section], path.slice(1));
    const now = valueAt(after.data, path.slice(1));
    if (JSON.stringify(was) !== JSON.stringify(now))
      throw new UsageError(
        `-S ${key}: ${runDir} ran ${system.name} with ${key}=${JSON.stringify(was) ?? 'unset'}; a judge re-scores its answers and cannot change how the system ran (rawrag run ... -S ${key}=... makes a new run)`,
      );
  }
}

function valueAt(node: unknown, path: readonly string[]): unknown {
  let v = node;
  for (const p of path) v = v && typeof v === 'object' ? (v as Record<string, unknown>)[p] : undefined;
  return v;
}
