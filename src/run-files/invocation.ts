/**
 * What a command was given besides the run's config, recorded so that `rawrag resume DIR` (or
 * `rawrag run --out DIR` alone) goes on with no flag restated: the options typed (endpoints,
 * concurrency, timeouts, the cost cap, --batch, --shard, ...) and the working folder relative paths
 * were typed in. Never a secret: options named like one (`--mem0-key`, `-S x.token=...`) and values
 * shaped like a key are left out; keys come from the environment (or `.env`) each time.
 */
import type { Command } from 'commander';
import { Secrets } from '../providers/secrets.js';

export interface Invocation {
  /** The working folder the command ran in (relative paths in the config and options are its). */
  cwd: string;
  /** The options typed on the command line (commander's keys), as parsed. */
  options: Record<string, unknown>;
}

/** Options that are never recorded: one-shot actions, and where the run lives (the resume names it). */
const NOT_RECORDED = new Set(['out', 'dryRun', 'retryErrors', 'forceResume', 'json', 'verbose', 'progress']);
const SECRET_NAME = /key|token|secret|password|passwd|credential/i;

function secretFree(value: unknown, secrets: Secrets): boolean {
  if (typeof value === 'string') return secrets.scrub(value) === value && !/^[a-z]+:\/\/[^/@\s]*:[^/@\s]*@/i.test(value);
  if (Array.isArray(value)) return value.every((v) => secretFree(v, secrets));
  return true;
}

/** The `-S key=value` / `-B key=value` pairs whose key does not name a secret. */
function withoutSecretPairs(value: unknown): unknown {
  if (!Array.isArray(value)) return value;
  return value.filter((v) => typeof v !== 'string' || !SECRET_NAME.test(v.split('=')[0] ?? ''));
}

/** The command's typed options, without secrets. */
export function invocationOf(cmd: Command): Invocation {
  const secrets = new Secrets();
  for (const [k, v] of Object.entries(process.env)) if (SECRET_NAME.test(k)) secrets.add(v);
  const options: Record<string, unknown> = {};
  for (const [key, raw] of Object.entries(cmd.opts())) {
    if (cmd.getOptionValueSource(key) !== 'cli' || NOT_RECORDED.has(key) || SECRET_NAME.test(key)) continue;
    const value = withoutSecretPairs(raw);
    if (secretFree(value, secrets)) options[key] = value;
  }
  return { cwd: process.cwd(), options };
}

/**
 * Puts recorded options back on a command, under the ones typed now (a changed endpoint given
 * again wins). Returns the keys set.
 */
export function applyInvocation(cmd: Command, inv: Invocation | undefined): string[] {
  if (!inv) return [];
  const set: string[] = [];
  for (const [key, value] of Object.entries(inv.options)) {
    if (cmd.getOptionValueSource(key) === 'cli') continue;
    cmd.setOptionValueWithSource(key, value, 'config');
    set.push(key);
  }
  return set;
}

/** Options recorded for a set folder: the same on every machine of a sharded grid, so without `shard`. */
export function withoutShard(inv: Invocation): Invocation {
  const { shard: _shard, ...options } = inv.options;
  return { ...inv, options };
}

/** This command's invocation: what a resume re-applied, under what was typed now. */
export function invocationFor(cmd: Command, recorded: Invocation | undefined): Invocation {
  const now = invocationOf(cmd);
  return { cwd: recorded?.cwd ?? now.cwd, options: { ...recorded?.options, ...now.options } };
}
