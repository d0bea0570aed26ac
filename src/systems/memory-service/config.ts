/**
 * The settings every memory-service system shares (each system's config section extends them, and
 * each key is an `-S key=value` option): where the service is, which environment variable holds its
 * key (the key itself never enters a config, a manifest or a log), whose store each owner is, how
 * many memories a search returns, how many turns one add carries, how many requests may be in
 * flight, and how long to wait for a memory to become searchable or a delete to be done. Each
 * system gives its own defaults: its vendor's protocol.
 */
import { z } from 'zod';

export type OwnerScheme = 'per-episode' | 'per-speaker';

export interface ServiceDefaults {
  keyEnv: string;
  batch: 'session' | 'episode' | number;
  top_k: number;
  owners: OwnerScheme;
}

export function serviceSettingsShape(d: ServiceDefaults) {
  return {
    url: z.string().url().nullable().default(null).describe("the service's base URL (required), e.g. http://127.0.0.1:8080"),
    keyEnv: z
      .string()
      .min(1)
      .default(d.keyEnv)
      .describe("environment variable holding the service's key (unset = no key); the key is never written anywhere"),
    owners: z
      .enum(['per-episode', 'per-speaker'])
      .default(d.owners)
      .describe(
        "per-speaker: one store per speaker of a two-person conversation, each turn added to both with mirrored roles, both searched (Mem0's and MemOS's own evaluations); per-episode: one store per episode",
      ),
    top_k: z.number().int().positive().default(d.top_k).describe('memories a search returns, per owner searched'),
    batch: z
      .union([z.literal('session'), z.literal('episode'), z.number().int().positive()])
      .default(d.batch)
      .describe("turns per add call, or 'session' (one add per session), or 'episode' (the whole visible history in one add)"),
    concurrency: z
      .number()
      .int()
      .positive()
      .default(4)
      .describe('requests to the service in flight at once (adds of different owners, searches)'),
    readyTimeout: z
      .number()
      .positive()
      .default(600)
      .describe("seconds to wait after an owner's last add until its memories are searchable (flush, scheduler wait, task polling)"),
    deleteTimeout: z
      .number()
      .positive()
      .default(120)
      .describe('seconds a purge waits for a queued delete to empty the owner (listing again with backoff)'),
  };
}

export interface ServiceSettings {
  url: string | null;
  keyEnv: string;
  owners: OwnerScheme;
  top_k: number;
  batch: 'session' | 'episode' | number;
  concurrency: number;
  readyTimeout: number;
  deleteTimeout: number;
}
