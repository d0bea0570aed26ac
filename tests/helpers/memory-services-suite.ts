/**
 * What the memory-service conformance suite's two halves share (tests/e2e/memory-services.test.ts,
 * the runs and their statistics; tests/slow/memory-services-faults.test.ts, faults and kills): the
 * service systems, LoCoMo, and per service its loopback peer, reader/judge API, cache and the
 * command that runs it at the suite's size.
 */
import { afterAll, beforeAll } from 'vitest';
import { join } from 'node:path';
import { FakeApi } from './fake-api.js';
import { tempDir } from './cli.js';
import { rawragInProcess } from './in-process.js';
import { evidenceReader, ingestLog, locomoRunArgs, loopbackEnv } from './loopback-run.js';
import { SERVICE_FIXTURES, type ServicePeer } from './service-fixtures.js';
import { locomoEvidenceCut } from './locomo-cut.js';
import { listSystems } from '../../src/systems/registry.js';

/** conv-26's first questions: one episode. */
export const LIMIT = 12;
/**
 * The data every run of the suite reads: conv-26 cut to the sessions holding those questions'
 * evidence (4 of 19 sessions, 76 of 419 messages; tests/helpers/locomo-cut.ts), so that each of the
 * suite's runs ingests a quarter of the conversation, not all of it.
 */
export const cut = await locomoEvidenceCut([{ episode: 'conv-26', questions: LIMIT }]);
export const ds = cut.dataset;
export const services = listSystems().filter((s) => s.about?.kind === 'service' || s.about?.kind === 'sidecar');
/** Each service's fixture, and the fixtures of its variants (`letta mode=archival`: a key whose fixture names its system). */
export const serviceCases = Object.entries(SERVICE_FIXTURES)
  .filter(([key, f]) => services.some((s) => s.name === (f.system ?? key)))
  .map(([key]) => key);

/** One service's (or variant's: a `serviceCases` key) peer, API, folders and run command, started before its tests and closed after. */
export function serviceUnderTest(key: string) {
  const fixture = SERVICE_FIXTURES[key]!;
  const name = fixture.system ?? key;
  const api = new FakeApi({ chat: evidenceReader(ds.questions) });
  const cache = tempDir('rawrag-svc-cache-');
  const root = tempDir('rawrag-svc-runs-');
  const env = loopbackEnv({ openai: 'sk-test-SERVICES0123456789' }, { ...fixture.env });
  let peer: ServicePeer;
  const options = () => fixture.options(peer).flatMap((o) => ['-S', o]);
  const args = (dir: string, ...extra: string[]) =>
    locomoRunArgs({
      system: name,
      out: dir,
      peer: api,
      chatOnly: true,
      cache,
      limit: LIMIT,
      data: cut.file,
      extra: [...options(), ...extra],
    });
  beforeAll(async () => {
    await api.start();
    peer = await fixture.start();
  });
  afterAll(async () => {
    await api.close();
    await peer.close();
  });
  return {
    /** The `--system` value. */
    name,
    fixture,
    api,
    cache,
    root,
    env,
    /** The started peer (valid inside tests). */
    peer: () => peer,
    options,
    args,
    /** `rawrag memory purge` of every episode the runs in these folders (under root) ingested. */
    async purge(dirs: string[]): Promise<Array<{ code: number; stdout: string; stderr: string }>> {
      const results = [];
      for (const dir of dirs) {
        const episodes = [...new Set(ingestLog(join(root, dir)).flatMap((l) => (typeof l.episode === 'string' ? [l.episode] : [])))];
        for (const ep of episodes) results.push(await rawragInProcess(['memory', 'purge', join(root, dir), '--owner', ep], env));
      }
      return results;
    },
  };
}
