/**
 * `rawrag memory show | purge`, `rawrag run --cleanup` and the store oracle's export for a memory
 * service (the descriptor's `store` and `exportStore` capabilities): what the service acknowledged
 * for a run (from its ingest log), deleting an owner's memories on the service (verified by listing
 * again, waiting for queued deletes), and the run's complete store as snapshotted when each owner
 * was ready.
 */
import { readRunManifest } from '../../run-files/record.js';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { RunConfig } from '../../config/schema.js';
import type { StoreRecord } from '../../core/store-record.js';
import type { MemoryStoreAccess } from '../../core/system.js';
import { InputError } from '../../util/errors.js';
import { INGEST_LOG_FILE, IngestLog, type OwnerState } from './ingest-log.js';
import { purgeOwner } from './purge.js';
import type { MemoryService } from './service.js';
import type { ServiceSettings } from './config.js';
import { readSnapshots } from './snapshot.js';

function logOf(runDir: string): IngestLog {
  const path = join(resolve(runDir), INGEST_LOG_FILE);
  if (!existsSync(path)) throw new InputError('this run sent nothing to its memory service yet (no ingest log)', { file: path });
  return new IngestLog(resolve(runDir));
}

function configOf(runDir: string): RunConfig {
  return (readRunManifest(resolve(runDir)).manifest as unknown as { config: RunConfig }).config;
}

/** The owners an `--owner` names: an owner id itself, or every owner (speaker, horizon) of an episode id. */
function ownersNamed(log: IngestLog, name: string): OwnerState[] {
  const live = log.liveOwners();
  const hit = live.filter((s) => s.owner === name || s.episode === name);
  if (hit.length === 0) {
    const list = [...new Set(live.map((s) => s.episode))].slice(0, 8);
    throw new InputError(
      `owner '${name}' holds nothing of this run on the service (episodes: ${list.join(', ') || 'none'}${live.length > 8 ? ', ...' : ''})`,
      {
        file: log.path,
        place: '--owner',
      },
    );
  }
  return hit;
}

function eventCounts(s: OwnerState): Record<string, number> {
  const c: Record<string, number> = { ADD: 0, UPDATE: 0, DELETE: 0, NONE: 0 };
  for (const a of s.adds.values()) for (const e of a.events ?? []) c[e.event] = (c[e.event] ?? 0) + 1;
  return c;
}

function showOwners(log: IngestLog, owners: OwnerState[], opts: { all?: boolean; json?: boolean }): string {
  if (opts.json)
    return JSON.stringify(
      owners.map((s) => ({
        owner: s.owner,
        episode: s.episode,
        scope: s.scope,
        complete: s.complete,
        ready_ms: s.readyMs,
        adds: [...s.adds.values()].map((a) => ({
          key: a.key,
          turns: a.turns,
          events: a.events,
          recovered: a.recovered ?? false,
          unread: a.unread ?? [],
        })),
      })),
      null,
      2,
    );
  const out = [`${owners.length} owner(s) on the service (acknowledged adds, from ${log.path}):`];
  for (const s of owners) {
    const c = eventCounts(s);
    const recovered = [...s.adds.values()].filter((a) => a.recovered).length;
    const ready = s.readyMs !== null ? `, searchable ${(s.readyMs / 1000).toFixed(1)} s after its first add` : '';
    out.push(
      `- ${s.owner} (episode ${s.episode}, ${s.scope} turns): ${s.adds.size} adds${s.complete ? '' : ' (incomplete)'}${recovered ? `, ${recovered} recovered` : ''}${ready}; events ADD ${c.ADD}, UPDATE ${c.UPDATE}, DELETE ${c.DELETE}, NONE ${c.NONE}`,
    );
    if (opts.all)
      for (const a of s.adds.values())
        for (const e of a.events ?? [])
          out.push(`    ${a.key} ${e.event} ${e.id ?? '-'}: ${e.memory ?? ''}${e.previous ? ` (was: ${e.previous})` : ''}`);
  }
  return out.join('\n');
}

/**
 * The store capability of the memory-service system `system`. Reaching the service needs the run's
 * config (its URL; `overrides` from `rawrag memory -S`), so only a run directory whose manifest
 * names this system holds its store.
 */
export function serviceStore(
  system: string,
  make: (cfg: RunConfig) => Promise<{ service: MemoryService; settings: ServiceSettings }>,
): MemoryStoreAccess & { exportStore(runDir: string): StoreRecord[] } {
  const purgeOwners = async (runDir: string, owners: OwnerState[], cfg: RunConfig): Promise<string> => {
    const log = logOf(runDir);
    const { service, settings } = await make(cfg);
    const lines: string[] = [];
    try {
      for (const s of owners) {
        const { verified, removed } = await purgeOwner(service, log, s.owner, settings.deleteTimeout * 1000, resolve(runDir));
        lines.push(
          `purged ${s.owner} (episode ${s.episode}) on ${service.url}${verified ? ': verified, 0 memories left' : ' (the service cannot list: not verified)'}`,
          ...removed.map((r) => `  removed: ${r}`),
        );
      }
    } finally {
      await service.close?.();
    }
    return lines.join('\n') || 'nothing to purge';
  };
  return {
    exists(runDir) {
      const manifest = join(resolve(runDir), 'manifest.json');
      if (!existsSync(manifest) || !existsSync(join(resolve(runDir), INGEST_LOG_FILE))) return false;
      return (readRunManifest(resolve(runDir)).manifest as { config?: { system?: string } }).config?.system === system;
    },
    show(runDir, opts) {
      const log = logOf(runDir);
      return showOwners(log, opts.owner ? ownersNamed(log, opts.owner) : log.liveOwners(), opts);
    },
    async purge(runDir, owner, opts) {
      return purgeOwners(runDir, ownersNamed(logOf(runDir), owner), opts.config ?? configOf(runDir));
    },
    async purgeAll(runDir, opts) {
      const path = join(resolve(runDir), INGEST_LOG_FILE);
      if (!existsSync(path)) return 'nothing to clean up (the run sent nothing to its memory service)';
      return purgeOwners(runDir, logOf(runDir).liveOwners(), opts?.config ?? configOf(runDir));
    },
    exportStore(runDir) {
      return readSnapshots(resolve(runDir), logOf(runDir), system);
    },
  };
}
