/**
 * The conformance suite every memory-service system passes (each registered `service` or
 * `sidecar` system, with its fixture in tests/helpers/service-fixtures.ts), through the real CLI
 * against its loopback peer and a loopback reader/judge. This half (the fast stage):
 * - a LoCoMo run completes with 0 errors, its evidence maps to source turns, and the peer saw the
 *   vendor's protocol (owners, roles, content, timestamps, batch sizes, waits, search depth);
 * - `--dry-run` counts exactly the adds the run sent; a second run sends no add;
 * - `rawrag stats` pairs it with RAW-RAG over the same questions, under its own name (one RAW-RAG
 *   baseline run, shared by every service), with its coverage row when it has coverage;
 * The other half, faults on adds, empty 200s, kill -9, blind searches, the store oracle on the
 * exported store and `rawrag memory purge`, runs in the slow stage
 * (tests/slow/memory-services-faults.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FakeApi } from '../helpers/fake-api.js';
import { tempDir, type CliResult } from '../helpers/cli.js';
import { rawragInProcess } from '../helpers/in-process.js';
import { evidenceReader, locomoRunArgs, loopbackEnv, readItems, statsPairs } from '../helpers/loopback-run.js';
import { SERVICE_FIXTURES } from '../helpers/service-fixtures.js';
import { cut, ds, LIMIT, serviceCases, serviceUnderTest, services } from '../helpers/memory-services-suite.js';

/** RAW-RAG over the same questions, run once: every service's stats check pairs its run with it. */
const BASELINE = join(tempDir('rawrag-svc-baseline-'), 'raw-rag');
const baselineApi = new FakeApi({ chat: evidenceReader(ds.questions) });
let baseline: CliResult;
const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

beforeAll(async () => {
  await baselineApi.start();
  const env = loopbackEnv({ openai: 'sk-test-SERVICES0123456789' });
  const cache = tempDir('rawrag-svc-baseline-cache-');
  baseline = await rawragInProcess(
    locomoRunArgs({ out: BASELINE, peer: baselineApi, chatOnly: true, cache, limit: LIMIT, data: cut.file, json: false }),
    env,
  );
}, 600_000);
afterAll(() => baselineApi.close());

it('every memory-service system has a conformance fixture', () => {
  expect(services.map((s) => s.name).filter((n) => !(n in SERVICE_FIXTURES))).toEqual([]);
  expect(services.length).toBeGreaterThanOrEqual(2);
});

describe.each(serviceCases)('memory service %s', (key) => {
  const { fixture, root, env, args, peer: started } = serviceUnderTest(key);

  it('answers every question with 0 errors, evidence from its memories, the vendor protocol on the wire; the dry run counts the adds; a second run adds nothing', async () => {
    const peer = started();
    const out = join(root, 'main');
    const dry = await rawragInProcess([...args(out), '--dry-run'], env);
    expect(dry.code, dry.stderr).toBe(0);
    const planned = Number(/ingest: (\d+) add calls/.exec(dry.stdout + dry.stderr)?.[1]);
    expect(peer.requests).toHaveLength(0);

    const r = await rawragInProcess(args(out), env);
    expect(r.code, r.stderr).toBe(0);
    const s = JSON.parse(r.stdout);
    expect(s.errors).toBe(0);
    expect(s.n).toBe(LIMIT);
    const items = readItems(out);
    const turnIds = new Set(ds.episodes.flatMap((e) => e.turns.map((t) => t.id)));
    for (const item of items) for (const t of item.evidence_turns) expect(turnIds.has(t)).toBe(true);
    const noCoverage = s.service?.no_coverage;
    if (noCoverage) expect(items.every((i) => i.coverage === null)).toBe(true);
    else expect(items.some((i) => (i.evidence_turns as string[]).length > 0)).toBe(true);
    const adds = peer.requests.filter((q) => peer.isAdd(q));
    expect(adds.length).toBe(planned);
    const owners = (s.service?.acknowledged?.owners as number) ?? 1;
    fixture.checkProtocol(peer, { dataset: ds, episodes: [...new Set(items.map((i) => i.episode as string))], questions: LIMIT });
    expect(owners).toBeGreaterThanOrEqual(1);
    expect(s.service.timing.add_to_ready_ms.n).toBe(owners);

    const sent = peer.requests.length;
    const again = await rawragInProcess(args(out), env);
    expect(again.code, again.stderr).toBe(0);
    expect(peer.requests.slice(sent).filter((q) => peer.isAdd(q))).toHaveLength(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ errors: 0, service: { this_run: { adds_sent: 0 } } });
  }, 600_000);

  it('rawrag stats pairs it with RAW-RAG over the same questions, under its own name, with its coverage row when it has coverage', async () => {
    expect(baseline.code, baseline.stderr).toBe(0);
    const out = join(root, 'main');
    const label = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')).system as string;
    const st = await rawragInProcess(['stats', BASELINE, out, '--out', join(root, 'stats')], env);
    expect(st.code, st.stderr).toBe(0);
    const pairs = statsPairs(join(root, 'stats', 'stats.json'));
    expect(pairs.find((p) => p.system_a === label && p.system_b === 'RAW-RAG/local')).toMatchObject({ n: LIMIT, excluded: 0 });
    expect(st.stdout).toMatch(new RegExp(`\\| ${escapeRe(label)} +\\| RAW-RAG/local +\\| +${LIMIT} \\| +0 \\|`));
    // The coverage × utilization row, for a system whose memories name their source turns.
    const covered = readItems(out).some((i) => i.coverage !== null);
    if (covered) expect(st.stdout).toMatch(new RegExp(`\\| ${escapeRe(label)} +\\| +\\d+ \\| +\\d+\\.\\d+ \\| +[\\d.–]+ W \\| +\\d+ \\|`));
  }, 600_000);
});
