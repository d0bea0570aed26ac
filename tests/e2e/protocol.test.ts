/**
 * `rawrag protocol`: what a run sends per role, pinned per benchmark to the upstream settings listed
 * in each configs/prompts/<benchmark>-SOURCE.md ("Call settings (upstream)"), except the deliberate
 * deviations, which must be named in docs/faithfulness.md. Also the per-question reader budgets.
 */
import { describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../helpers/cli.js';
import { rawragInProcess } from '../helpers/in-process.js';
import { describeProtocol, renderProtocol, type RoleProtocol } from '../../src/cli/commands/protocol.js';
import { withOfficialJudge } from '../../src/cli/options.js';
import { resolveConfig } from '../../src/config/load.js';
import { RunConfigSchema } from '../../src/systems/registry.js';
import { getBenchmark, listBenchmarks } from '../../src/benchmarks/registry.js';
import type { Question } from '../../src/core/schema.js';
import { readerMaxTokens } from '../../src/core/protocol.js';

interface UpstreamRow {
  role: string;
  model: string;
  temperature: string;
  max_tokens: string;
  response_format: string;
}

/** The "Call settings (upstream)" table of a SOURCE note. */
function upstreamSettings(benchmark: string): UpstreamRow[] {
  const text = readFileSync(join(ROOT, 'configs/prompts', `${benchmark}-SOURCE.md`), 'utf8');
  const section = text.slice(text.indexOf('## Call settings (upstream)'));
  expect(section.length, `${benchmark}-SOURCE.md has a Call settings section`).toBeGreaterThan(30);
  return section
    .split('\n')
    .filter((l) => /^\| (reader|judge) \|/.test(l))
    .map((l) => {
      const c = l.split(' | ').map((x) => x.replace(/^\| /, '').trim());
      return { role: c[0]!, model: c[1]!, temperature: c[2]!, max_tokens: c[3]!, response_format: c[4]! };
    });
}

/** Where rawrag deliberately sends something else than the upstream (each is in docs/faithfulness.md). */
const DEVIATIONS: Record<string, Array<{ role: string; field: keyof UpstreamRow; doc: string }>> = {
  memoryagentbench: [{ role: 'reader', field: 'temperature', doc: 'temperature 0.7' }],
  personamem: [{ role: 'reader', field: 'temperature', doc: 'PersonaMem-v2 reader temperature' }],
};

const protocolOf = (name: string) =>
  describeProtocol(getBenchmark(name), withOfficialJudge(resolveConfig({ benchmark: name }, 'test', RunConfigSchema)));

function asRow(role: string, r: RoleProtocol): UpstreamRow {
  return {
    role,
    model: r.upstream_model ?? '(the model under test)',
    temperature: String(r.temperature),
    max_tokens: r.max_tokens,
    response_format: r.response_format,
  };
}

const faithfulness = readFileSync(join(ROOT, 'docs/faithfulness.md'), 'utf8');

describe('rawrag protocol agrees with the upstream call settings in the SOURCE notes', () => {
  for (const b of listBenchmarks()) {
    it(b.name, () => {
      const p = protocolOf(b.name);
      const upstream = upstreamSettings(b.name);
      expect(upstream.map((u) => u.role)).toEqual(p.judge ? ['reader', 'judge'] : ['reader']);
      for (const u of upstream) {
        const mine = asRow(u.role, u.role === 'reader' ? p.reader : p.judge!);
        const allowed = (DEVIATIONS[b.name] ?? []).filter((d) => d.role === u.role);
        for (const field of ['model', 'temperature', 'max_tokens', 'response_format'] as const) {
          const deviation = allowed.find((d) => d.field === field);
          if (deviation) {
            expect(mine[field], `${b.name} ${u.role} ${field} deviates`).not.toBe(u[field]);
            expect(faithfulness, `docs/faithfulness.md names ${deviation.doc}`).toContain(deviation.doc);
          } else {
            expect(mine[field], `${b.name} ${u.role} ${field}`).toBe(u[field]);
          }
        }
      }
      // The judge a run uses by default is the upstream's judge.
      if (p.judge) expect(p.judge.model).toBe(p.judge.upstream_model);
      // Every prompt file named exists and its SOURCE note cites it.
      const note = readFileSync(join(ROOT, p.reader.source_note), 'utf8');
      for (const f of [...p.reader.prompts, ...(p.judge?.prompts ?? [])]) {
        if (f.includes('<') || f.endsWith('*')) continue;
        expect(existsSync(join(ROOT, f)), f).toBe(true);
        expect(note, `${p.reader.source_note} cites ${f}`).toContain(f.slice('configs/prompts/'.length));
      }
      expect(faithfulness).toContain(`## ${b.name}`);
      expect(renderProtocol(p)).toContain(`docs/faithfulness.md#${b.name}`);
    });
  }

  it('pins the official values themselves (a changed SOURCE note cannot move them silently)', async () => {
    expect(protocolOf('locomo').judge).toMatchObject({
      model: 'gpt-4o-mini',
      temperature: 0,
      max_tokens: 'none (not sent)',
      response_format: 'json_object',
    });
    expect(protocolOf('locomo').reader).toMatchObject({ temperature: 0, max_tokens: 'none (not sent)' });
    expect(protocolOf('longmemeval').judge).toMatchObject({ model: 'gpt-4o-2024-08-06', max_tokens: '10', response_format: 'text' });
    expect(protocolOf('meme').judge).toMatchObject({ model: 'gpt-4o', response_format: 'json_object' });
    expect(protocolOf('meme').reader.max_tokens).toBe('500');
    expect(protocolOf('memoryagentbench').judge!.model).toBe('gpt-4o');
    expect(protocolOf('beam').judge).toMatchObject({ model: 'gpt-4.1-mini', max_tokens: 'none (not sent)' });
    expect(protocolOf('beam').reader.max_tokens).toBe('none (not sent)');
    expect(protocolOf('personamem').judge).toBeNull();
    expect(protocolOf('personamem').evidence).toBe('windows expanded to whole turns, chronological order');
  });

  it('shows a config override instead of the official value', async () => {
    const cfg = withOfficialJudge(
      resolveConfig({ benchmark: 'beam', reader: { maxTokens: 512 }, judge: { model: 'gpt-4o-mini' } }, 'x', RunConfigSchema),
    );
    const p = describeProtocol(getBenchmark('beam'), cfg);
    expect(p.reader.max_tokens).toBe('512 (config override)');
    expect(p.judge!.model).toBe('gpt-4o-mini');
    expect(p.judge!.upstream_model).toBe('gpt-4.1-mini');
  });
});

describe('the reader budget a run sends, per question', () => {
  const q = (meta: Record<string, unknown>, type = 'x'): Question =>
    ({
      id: 'q',
      episode: 'e',
      type,
      typeId: null,
      text: '',
      gold: '',
      acceptable: [],
      questionDate: null,
      evidence: [],
      options: ['a', 'b', 'c', 'd'],
      visibleTurns: null,
      meta,
    }) as Question;
  const budget = (name: string, question: Question, setting: number | 'none' | null = null) =>
    readerMaxTokens(setting, getBenchmark(name).scoring!.reader, question);

  it('follows each upstream', async () => {
    expect(budget('locomo', q({}))).toBeNull();
    expect(budget('beam', q({}))).toBeNull();
    expect(budget('meme', q({}))).toBe(500);
    expect(budget('longmemeval', q({ reading: 'con' }))).toBe(800);
    expect(budget('longmemeval', q({ reading: 'direct' }))).toBe(500);
    expect(budget('personamem', q({ protocol: 'verl', correct_letters: ['a'] }))).toBe(1024);
    expect(budget('personamem', q({ protocol: 'frontier', correct_letters: ['A'] }))).toBeNull();
    const mab: Record<string, number> = {
      factconsolidation_sh_262k: 10,
      icl_banking77_5900shot_balance: 20,
      eventqa_full: 40,
      ruler_qa1_197K: 50,
      'longmemeval_s*': 50,
      recsys_redial_full: 300,
      infbench_sum_eng_shots2: 1200,
      detective_qa: 2000,
      // not in the catalogue: by its template family
      factconsolidation_mh_1m: 10,
    };
    for (const [source, n] of Object.entries(mab)) expect(budget('memoryagentbench', q({ source }), null), source).toBe(n);
  });

  it('a config number or none overrides it', async () => {
    expect(budget('meme', q({}), 'none')).toBeNull();
    expect(budget('locomo', q({}), 300)).toBe(300);
    expect(budget('memoryagentbench', q({ source: 'detective_qa' }), 'none')).toBeNull();
  });
});

describe('rawrag protocol on the command line', () => {
  it('prints all six, one benchmark, and JSON', async () => {
    const all = await rawragInProcess(['protocol']);
    expect(all.code, all.stderr).toBe(0);
    for (const b of listBenchmarks()) expect(all.stdout).toContain(`${b.name} — `);
    const one = await rawragInProcess(['protocol', 'longmemeval', '--json']);
    expect(one.code).toBe(0);
    const [p] = JSON.parse(one.stdout);
    expect(p.judge.model).toBe('gpt-4o-2024-08-06');
    expect((await rawragInProcess(['protocol', 'nope'])).code).toBe(2);
  });

  it('with configs/paper.yaml, the official judges stay', async () => {
    const r = await rawragInProcess(['protocol', '--config', 'configs/paper.yaml', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const judges = Object.fromEntries(
      (JSON.parse(r.stdout) as Array<{ benchmark: string; judge: { model: string } | null }>).map((p) => [
        p.benchmark,
        p.judge?.model ?? null,
      ]),
    );
    expect(judges).toEqual({
      locomo: 'gpt-4o-mini',
      longmemeval: 'gpt-4o-2024-08-06',
      beam: 'gpt-4.1-mini',
      meme: 'gpt-4o',
      personamem: null,
      memoryagentbench: 'gpt-4o',
    });
  });
});
