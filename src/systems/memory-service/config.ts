/**
 * The settings every memory-service system shares (each system's config section extends them):
 * where the service is, which environment variable holds its key (the key itself never enters a
 * config, a manifest or a log), how many memories a search returns, how many turns one add
 * carries, and how many requests may be in flight at once.
 */
import { z } from 'zod';
import type { SystemOption } from '../../core/system.js';
import { positiveInt } from '../../util/flags.js';

export function serviceSettingsShape(defaults: { keyEnv: string; batch: 'session' | number }) {
  return {
    /** The service's base URL; null = not given (the run stops, naming the flag). */
    url: z.string().url().nullable().default(null),
    /** Environment variable read for the service's key (an unset one = no key: a local server without auth). */
    keyEnv: z.string().min(1).default(defaults.keyEnv),
    /** Memories a search returns, shown to the reader (Mem0's own evaluation uses 10). */
    limit: z.number().int().positive().default(10),
    /** Turns per add call: a number, or 'session' (one add per session). Mem0's evaluation adds 2 messages at a time. */
    batch: z.union([z.literal('session'), z.number().int().positive()]).default(defaults.batch),
    /** Requests to the service in flight at once (adds of different owners, searches). */
    concurrency: z.number().int().positive().default(4),
  };
}

export interface ServiceSettings {
  url: string | null;
  keyEnv: string;
  limit: number;
  batch: 'session' | number;
  concurrency: number;
}

function batchRule(value: string): 'session' | number {
  return value.trim() === 'session' ? 'session' : positiveInt(value);
}

/**
 * The flags every memory-service system has for the shared settings, `--<prefix>-key | -limit |
 * -concurrency` and its batch flag. The key flag puts the key in this process's environment: the config
 * records only the variable it is read from.
 */
export function serviceOptions(
  prefix: string,
  section: string,
  o: { keyEnv: string; keyHelp: string; batchFlag: string; batchHelp: string },
): SystemOption[] {
  return [
    {
      flags: `--${prefix}-key <key>`,
      description: `${o.keyHelp} (better: set ${o.keyEnv}); kept in memory only, never written`,
      parse: (value: string) => {
        process.env[o.keyEnv] = value;
        return o.keyEnv;
      },
      config: [section, 'keyEnv'],
    },
    {
      flags: `--${prefix}-limit <n>`,
      description: 'memories a search returns (default 10)',
      parse: positiveInt,
      config: [section, 'limit'],
    },
    { flags: `${o.batchFlag} <n>`, description: o.batchHelp, parse: batchRule, config: [section, 'batch'] },
    {
      flags: `--${prefix}-concurrency <n>`,
      description: 'requests to the service in flight at once (default 4)',
      parse: positiveInt,
      config: [section, 'concurrency'],
    },
  ];
}
