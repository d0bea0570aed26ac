/**
 * `rawrag memory show | purge` and `rawrag run --cleanup` for a memory service (the descriptor's
 * `store` capability): what the service acknowledged for a run (from its ingest log), and deleting
 * an owner's memories on the service, verified by listing them again. A purged owner is recorded,
 * so a later resume of the run adds its history again instead of trusting the old acknowledgements.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { RunConfig } from '../../config/schema.js';
import type { MemoryStoreAccess } from '../../core/system.js';
import { InputError } from '../../util/errors.js';
import { readJsonFile } from '../../util/fsx.js';
import { writeDecisions } from './decisions.js';
import { INGEST_LOG_FILE, IngestLog, type OwnerState } from './ingest-log.js';
import type { MemoryService } from './service.js';

function logOf(runDir: string): IngestLog {
  const path = join(resolve(runDir), INGEST_LOG_FILE);
  if (!existsSync(path)) throw new InputError('this run sent nothing to its memory service yet (no ingest log)', { file: path });
  return new IngestLog(resolve(runDir));
}

function configOf(runDir: string): RunConfig {
  return (readJsonFile(join(resolve(runDir), 'manifest.json')) as { config: RunConfig }).config;
}

/** The owners an `--owner` names: an owner id itself, or every owner (horizon) of an episode id. */
function ownersNamed(log: IngestLog, name: string): OwnerState[] {
  const live = log.liveOwners();
  const hit = live.filter((s) => s.owner === name || s.episode === name);
  if (hit.length === 0) {
    const list = live.slice(0, 8).map((s) => s.episode);
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

/**
 * The store capability of the memory-service system `system`. Reaching the service needs the run's
 * config (its URL), so only a run directory whose manifest names this system holds its store.
 */
export function serviceStore(system: string, make: (cfg: RunConfig) => MemoryService): MemoryStoreAccess {
  const purgeOwners = async (runDir: string, owners: OwnerState[]): Promise<string> => {
    const log = logOf(runDir);
    const service = make(configOf(runDir));
    const lines: string[] = [];
    for (const s of owners) {
      await service.deleteOwner(s.owner);
      const left = await service.list(s.owner);
      if (left !== null && left.length > 0)
        throw new InputError(`${service.system} still holds ${left.length} memories of '${s.owner}' after the delete`, {
          place: service.url,
        });
      log.append({ type: 'purged', owner: s.owner, at: new Date().toISOString() });
      lines.push(`purged ${s.owner} (episode ${s.episode}) on ${service.url}${left === null ? '' : ': verified, 0 memories left'}`);
    }
    writeDecisions(resolve(runDir), log);
    return lines.join('\n') || 'nothing to purge';
  };
  return {
    exists(runDir) {
      const manifest = join(resolve(runDir), 'manifest.json');
      if (!existsSync(manifest) || !existsSync(join(resolve(runDir), INGEST_LOG_FILE))) return false;
      return (readJsonFile(manifest) as { config?: { system?: string } }).config?.system === system;
    },
    show(runDir, opts) {
      const log = logOf(runDir);
      const owners = opts.owner ? ownersNamed(log, opts.owner) : log.liveOwners();
      if (opts.json)
        return JSON.stringify(
          owners.map((s) => ({
            owner: s.owner,
            episode: s.episode,
            scope: s.scope,
            complete: s.complete,
            adds: [...s.adds.values()].map((a) => ({ key: a.key, turns: a.turns, events: a.events, recovered: a.recovered ?? false })),
          })),
          null,
          2,
        );
      const out = [`${owners.length} owner(s) on the service (acknowledged adds, from ${log.path}):`];
      for (const s of owners) {
        const c = eventCounts(s);
        const recovered = [...s.adds.values()].filter((a) => a.recovered).length;
        out.push(
          `- ${s.owner} (episode ${s.episode}, ${s.scope} turns): ${s.adds.size} adds${s.complete ? '' : ' (incomplete)'}${recovered ? `, ${recovered} recovered` : ''}; events ADD ${c.ADD}, UPDATE ${c.UPDATE}, DELETE ${c.DELETE}, NONE ${c.NONE}`,
        );
        if (opts.all)
          for (const a of s.adds.values())
            for (const e of a.events ?? [])
              out.push(`    ${a.key} ${e.event} ${e.id ?? '-'}: ${e.memory ?? ''}${e.previous ? ` (was: ${e.previous})` : ''}`);
      }
      return out.join('\n');
    },
    async purge(runDir, owner) {
      return purgeOwners(runDir, ownersNamed(logOf(runDir), owner));
    },
    async purgeAll(runDir) {
      const path = join(resolve(runDir), INGEST_LOG_FILE);
      if (!existsSync(path)) return 'nothing to clean up (the run sent nothing to its memory service)';
      return purgeOwners(runDir, logOf(runDir).liveOwners());
    },
  };
}
