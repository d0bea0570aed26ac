/**
 * A service whose search takes no owner (memU-server's retrieve) holds one episode at a time: the
 * shared layer opens, answers and releases (purges) one episode after another, so no search ever
 * sees two conversations' memories; a resumed run first clears what another episode left behind
 * (a killed run). A test-only plug-in over rawrag's own protocol declares the capability.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { join } from 'node:path';
import { z } from 'zod';
import { FakeApi } from '../../helpers/fake-api.js';
import { FakeProtocolService } from '../../helpers/fake-protocol-service.js';
import { tempDir } from '../../helpers/cli.js';
import { registerSystem, RunConfigSchema, unregisterSystem } from '../../../src/systems/registry.js';
import { serviceSystem } from '../../../src/systems/memory-service/plugin.js';
import { serviceSettingsShape, type ServiceSettings } from '../../../src/systems/memory-service/config.js';
import { HttpMemoryService } from '../../../src/systems/http/client.js';
import { IngestLog } from '../../../src/systems/memory-service/ingest-log.js';
import { executeRun } from '../../../src/pipeline/run.js';
import { RunDir } from '../../../src/run-files/run-dir.js';
import type { TransportOptions } from '../../../src/providers/transport.js';

const Schema = z
  .object({ ...serviceSettingsShape({ keyEnv: 'ONE_AT_A_TIME_KEY', batch: 'session', top_k: 5, owners: 'per-episode' }) })
  .strict();
const oneAtATime = serviceSystem<ServiceSettings>({
  name: 'one-at-a-time',
  section: 'oneAtATime',
  description: 'a service holding one owner at a time (test)',
  about: { label: 'OneAtATime', kind: 'service' },
  schema: Schema as unknown as z.ZodType<ServiceSettings>,
  connect: (cfg, key, t) => new HttpMemoryService(cfg.url!, 'OneAtATime', key, t),
  oneEpisodeAtATime: () => true,
});

/** The owners holding memories whenever a search arrives. */
class WatchedService extends FakeProtocolService {
  readonly heldAtSearch: number[] = [];
  protected override route(r: Parameters<FakeProtocolService['route']>[0]): [number, unknown] {
    if (r.path === '/search') this.heldAtSearch.push([...this.owners.values()].filter((m) => m.length > 0).length);
    return super.route(r);
  }
}

let api: FakeApi;
let service: WatchedService;
let transport: Partial<TransportOptions>;
let root: string;
const quiet = { log: () => {} };

beforeAll(async () => {
  registerSystem(oneAtATime);
  api = await new FakeApi().start();
  service = await new WatchedService().start();
  root = tempDir();
  transport = {
    cacheDir: join(root, 'cache'),
    env: { OPENAI_API_KEY: 'sk-test-one', OPENAI_BASE_URL: `${api.url}/v1`, RAWRAG_RETRY_BASE_MS: '1' },
  };
});
afterAll(async () => {
  unregisterSystem(oneAtATime.name);
  await api.close();
  await service.close();
});

const cfgOf = () =>
  RunConfigSchema.parse({
    benchmark: 'locomo',
    system: 'one-at-a-time',
    sample: 6,
    seed: 2,
    reader: { model: 'gpt-4o-mini' },
    oneAtATime: { url: service.url },
  });

it('ingests, answers and clears one episode after another: every search sees exactly one owner', async () => {
  const out = join(root, 'run');
  const run = await executeRun({ cfg: cfgOf(), out, transport }, quiet);
  expect(run.manifest.status).toBe('complete');
  const items = new RunDir(out).readItems();
  expect(items.every((i) => i.error === null)).toBe(true);
  expect(new Set(items.map((i) => i.episode)).size).toBeGreaterThan(1);
  expect(service.heldAtSearch.length).toBe(items.length);
  expect(new Set(service.heldAtSearch)).toEqual(new Set([1]));
  // Released when answered: nothing is left on the service, and the log says each owner was purged.
  expect(service.totalHeld()).toBe(0);
  const log = new IngestLog(out);
  expect(log.liveOwners()).toEqual([]);
  expect(log.all().filter((l) => l.type === 'purged').length).toBe(new Set(items.map((i) => i.episode)).size);
});

it('an episode that failed half-way leaves memories behind: the next episode clears them before it adds', async () => {
  const out = join(root, 'failed');
  const firstEpisode = new RunDir(join(root, 'run')).readItems()[0]!.episode;
  // The failed episode's second add is refused for good: its first add's memories stay on the service.
  service.inject({
    kind: 'status',
    status: 400,
    times: Infinity,
    match: (r) => r.path === '/add' && String(r.body?.owner).endsWith(`-${firstEpisode}`) && String(r.body?.add_id).endsWith('#1'),
  });
  const searchesBefore = service.heldAtSearch.length;
  const run = await executeRun({ cfg: cfgOf(), out, transport }, quiet);
  service.faults.length = 0;
  const items = new RunDir(out).readItems();
  expect(items.filter((i) => i.error !== null).every((i) => i.episode === firstEpisode)).toBe(true);
  expect(items.some((i) => i.error !== null)).toBe(true);
  // Its failed items make the run incomplete (a resume with --retry-errors redoes them).
  expect(run.manifest.status).toBe('incomplete');
  expect(new Set(service.heldAtSearch.slice(searchesBefore))).toEqual(new Set([1]));
  const log = new IngestLog(out);
  const begun = log.all().find((l) => l.type === 'begin' && l.episode === firstEpisode);
  const failedOwner = begun?.type === 'begin' ? begun.owner : '';
  expect(log.all().some((l) => l.type === 'purged' && l.owner === failedOwner)).toBe(true);
  expect(service.totalHeld()).toBe(0);
});
