/**
 * `rawrag protocol [benchmark]`: what a run sends per role (reader, judge) — model, temperature,
 * max_tokens, response format, prompt files and their upstream source — and the denominator rule,
 * read from the same protocol objects and config resolution a run uses, so the printout cannot
 * drift from what is sent. Diff it against the paper or the upstream code.
 */
import { namedProtocols, protocolFiles } from '../../reader-judge/judge-protocols.js';
import { printOut } from '../../util/stdout.js';
import { Command } from 'commander';
import { getSystem, RunConfigSchema, systemOf } from '../../systems/registry.js';
import type { VendorProtocol } from '../../core/system.js';
import { systemOptionLayer } from '../system-options.js';
import { readConfigFile, resolveConfig, mergeLayers } from '../../config/load.js';
import type { RunConfig } from '../../config/schema.js';
import type { Benchmark } from '../../core/benchmark.js';
import { effectivePolicy } from '../../pipeline/plan.js';
import { getBenchmark, listBenchmarks } from '../../benchmarks/registry.js';
import type { Question } from '../../core/schema.js';
import type { RoleCard } from '../../core/protocol.js';
import { markdownTable } from '../../util/table.js';
import { addReaderOptions, addSystemOptionFlag, withOfficialJudge, withPromptHash } from '../options.js';
import { protocolDeviations, readReaderTemplate } from '../../reader-judge/reader-override.js';
import type { PartialConfig } from '../../config/load.js';
import { resolve } from 'node:path';
import { displayPath } from '../../util/paths.js';
import { UsageError } from '../../util/errors.js';

export interface RoleProtocol {
  model: string;
  temperature: number;
  max_tokens: string;
  response_format: 'text' | 'json_object';
  prompts: string[];
  source_note: string;
  upstream: string;
  upstream_model: string | null;
}

export interface BenchmarkProtocol {
  benchmark: string;
  title: string;
  reader: RoleProtocol;
  judge: RoleProtocol | null;
  judge_runs: number;
  evidence: string;
  denominator: string;
  headline: string;
  /** Where this config departs from the protocol (--temperature, --max-tokens, --reader-prompt, a config file); empty = none. */
  deviations: string[];
  /** The named judge protocols `--judge-prompt NAME` and the judge-prompt sweep accept (configs/prompts/<benchmark>-judge-protocols.json). */
  judge_protocols?: Array<{
    name: string;
    aliases: string[];
    official: boolean;
    files: string[];
    response_format: 'text' | 'json_object';
    reading: string;
    sha256: string;
    source: string;
  }>;
  /** The system under test when it is not the paper's method: its effective options and its vendor's protocol. */
  system?: { name: string; label: string; options: Record<string, unknown>; protocol: VendorProtocol | null };
}

/** The system a config runs, when it has options or a vendor protocol of its own. */
export function describeSystem(cfg: RunConfig): BenchmarkProtocol['system'] {
  const s = systemOf(cfg);
  if (!s.config && !s.about?.protocol) return undefined;
  const options = s.config
    ? ((cfg[s.config.key] as Record<string, unknown> | undefined) ?? (s.config.schema.parse({}) as Record<string, unknown>))
    : {};
  return { name: s.name, label: s.about?.label ?? s.name, options, protocol: s.about?.protocol ?? null };
}

/** A stand-in question for protocols whose budget is the same for every question. */
const ANY_QUESTION = {
  id: 'q',
  episode: 'e',
  type: '',
  typeId: null,
  text: '',
  gold: '',
  acceptable: [],
  questionDate: null,
  evidence: [],
  options: null,
  visibleTurns: null,
} as Question;

function tokens(v: number | null): string {
  return v === null ? 'none (not sent)' : String(v);
}

/** The protocol a run of `b` with `cfg` follows, per role. */
export function describeProtocol(b: Benchmark, cfg: RunConfig): BenchmarkProtocol {
  const scoring = b.scoring;
  const card = scoring?.card;
  if (!scoring || !card) throw new Error(`${b.name} has no protocol card`);
  const readerCard: RoleCard = card.reader;
  const readerBudget =
    cfg.reader.maxTokens === 'none'
      ? tokens(null)
      : typeof cfg.reader.maxTokens === 'number'
        ? `${cfg.reader.maxTokens} (config override)`
        : (readerCard.maxTokensRule ?? tokens(scoring.reader.maxTokens?.(ANY_QUESTION) ?? null));
  const role = (c: RoleCard, model: string, temperature: number, maxTokens: string, json: boolean, upstream: string): RoleProtocol => ({
    model,
    temperature,
    max_tokens: maxTokens,
    response_format: json ? 'json_object' : 'text',
    prompts: c.prompts.map((p) => `configs/prompts/${p}${p.includes('<') || p.endsWith('*') ? '' : '.txt'}`),
    source_note: `configs/prompts/${c.sourceNote}`,
    upstream,
    upstream_model: c.upstreamModel,
  });
  const judge = scoring.judge;
  const policy = effectivePolicy(b, cfg);
  const reader = role(
    readerCard,
    cfg.reader.model ?? '(yours: --reader MODEL)',
    cfg.reader.temperature,
    readerBudget,
    false,
    scoring.reader.source,
  );
  if (cfg.reader.promptFile) {
    reader.prompts = [displayPath(cfg.reader.promptFile)];
    reader.upstream = `user template (sha256 ${cfg.reader.promptSha256 ?? '?'}) in place of ${scoring.reader.source}`;
  }
  return {
    benchmark: b.name,
    title: b.title,
    reader,
    judge:
      judge && card.judge
        ? role(
            card.judge,
            cfg.judge.model!,
            cfg.judge.temperature,
            card.judge.maxTokensRule ?? tokens(judge.maxTokens ?? null),
            judge.jsonMode === true,
            judge.source,
          )
        : null,
    judge_runs: judge ? cfg.judge.runs : 0,
    evidence: `${policy.expandToTurns ? 'windows expanded to whole turns' : 'the selected windows themselves'}, ${policy.order} order`,
    denominator: card.denominator,
    headline: card.headline,
    deviations: protocolDeviations(cfg),
    ...(describeSystem(cfg) ? { system: describeSystem(cfg) } : {}),
  };
}

function renderSystem(s: NonNullable<BenchmarkProtocol['system']>): string[] {
  const out = [
    '',
    `system: ${s.label} (--system ${s.name}); options: ${Object.entries(s.options)
      .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
      .join(' ')}`,
  ];
  if (s.protocol) {
    out.push(`vendor protocol: ${s.protocol.summary}`, ...s.protocol.sources.map((x) => `  follows ${x}`));
    out.push(...(s.protocol.deviations.length ? s.protocol.deviations.map((d) => `VENDOR DEVIATION: ${d}`) : ['vendor deviations: none']));
  }
  return out;
}

export function renderProtocol(p: BenchmarkProtocol): string {
  const roles: Array<[string, RoleProtocol | null]> = [
    ['reader', p.reader],
    ['judge', p.judge],
  ];
  // A '|' inside a value would split a Markdown cell.
  const cell = (v: string | number) => String(v).replace(/\|/g, '\\|');
  const field = (name: string, get: (r: RoleProtocol) => string | number) => [
    name,
    ...roles.map(([, r]) => (r ? cell(get(r)) : '— (no LLM judge)')),
  ];
  const rows = [
    field('model', (r) => r.model),
    field('upstream model', (r) => r.upstream_model ?? '(the model under test)'),
    field('temperature', (r) => r.temperature),
    field('max_tokens', (r) => r.max_tokens),
    field('response format', (r) => r.response_format),
    field('prompt files', (r) => r.prompts.join(', ')),
    field('upstream source', (r) => r.upstream),
    field('source note', (r) => r.source_note),
  ];
  return [
    `${p.benchmark} — ${p.title}`,
    '',
    markdownTable(['', 'reader', 'judge'], rows, ['l', 'l', 'l']),
    '',
    `judge runs: ${p.judge ? `${p.judge_runs} per answer, item score = their mean` : 'none'}`,
    `evidence: ${p.evidence}`,
    `headline: ${p.headline}`,
    `denominator: ${p.denominator}`,
    `deliberate deviations from the upstream: docs/faithfulness.md#${p.benchmark}`,
    ...p.deviations.map((d) => `DEVIATION (this config): ${d}`),
    ...(p.judge_protocols?.length ? renderJudgeProtocols(p.judge_protocols) : []),
    ...(p.system ? renderSystem(p.system) : []),
  ].join('\n');
}

/** The benchmark's named judge protocols, pinned by sha256 (src/reader-judge/judge-protocols.ts). */
function withJudgeProtocols(p: BenchmarkProtocol): BenchmarkProtocol {
  const list = namedProtocols(p.benchmark);
  if (list.length === 0) return p;
  const file = (name: string) => `configs/prompts/${name}`;
  return {
    ...p,
    judge_protocols: list.map((x) => ({
      name: x.name,
      aliases: x.aliases,
      official: x.official,
      files: protocolFiles(p.benchmark, x.name).map(file),
      response_format: x.jsonMode ? 'json_object' : 'text',
      reading: x.parse,
      sha256: x.sha256,
      source: x.source,
    })),
  };
}

function renderJudgeProtocols(list: NonNullable<BenchmarkProtocol['judge_protocols']>): string[] {
  return [
    '',
    'judge protocols (--judge-prompt NAME; a comma list with --rejudge is a sweep; sources: configs/prompts/judge-protocols-SOURCE.md):',
    markdownTable(
      ['name', 'aliases', 'messages', 'response format', 'reply read by', 'sha256', 'source'],
      list.map((x) => [
        `${x.name}${x.official ? ' (official)' : ''}`,
        x.aliases.join(', ') || '—',
        x.files.join(' + '),
        x.response_format,
        x.reading,
        x.sha256.slice(0, 12),
        x.source.replace(/\|/g, '\\|'),
      ]),
    ),
  ];
}

export function protocolCommand(): Command {
  const cmd = new Command('protocol')
    .description(
      'Print the official protocol a run follows, per role: model, temperature, max_tokens, response format, prompt files and their upstream source, and the denominator rule',
    )
    .argument(
      '[benchmark]',
      `${listBenchmarks()
        .map((b) => b.name)
        .join(' | ')} (default: all six)`,
    )
    .option('-c, --config <file>', 'show what a run with this config file would send')
    .option('--system <name>', 'also the system under test: its options and its vendor protocol (see rawrag systems)')
    .option('--json', 'print JSON instead of tables');
  addReaderOptions(cmd);
  addSystemOptionFlag(cmd);
  return cmd.action(
    (
      benchmark: string | undefined,
      opts: {
        config?: string;
        json?: boolean;
        temperature?: number;
        maxTokens?: number | 'none';
        readerPrompt?: string;
        system?: string;
        systemOption?: string[];
      },
    ) => {
      const file = opts.config ? readConfigFile(opts.config) : {};
      const flags: PartialConfig = opts.system ? { system: getSystem(opts.system).name } : {};
      const systemName = (flags.system ?? file.system) as string | undefined;
      if (opts.systemOption?.length && !systemName) throw new UsageError('-S needs --system NAME (or a config that names one)');
      const sLayer = systemName ? systemOptionLayer(getSystem(systemName), opts.systemOption ?? []).layer : {};
      const reader: PartialConfig = {};
      if (opts.temperature !== undefined) reader.temperature = opts.temperature;
      if (opts.maxTokens !== undefined) reader.maxTokens = opts.maxTokens;
      if (opts.readerPrompt !== undefined) {
        const t = readReaderTemplate(resolve(opts.readerPrompt));
        Object.assign(reader, { promptFile: t.file, promptSha256: t.sha256 });
      }
      if (Object.keys(reader).length) flags.reader = reader;
      const names = benchmark ? [getBenchmark(benchmark).name] : listBenchmarks().map((b) => b.name);
      const out = names.map((name) => {
        const cfg = withPromptHash(
          withOfficialJudge(
            resolveConfig(mergeLayers(file, sLayer, flags, { benchmark: name }), opts.config ?? 'defaults', RunConfigSchema),
          ),
        );
        return withJudgeProtocols(describeProtocol(getBenchmark(name), cfg));
      });
      printOut((opts.json ? JSON.stringify(out, null, 2) : out.map(renderProtocol).join('\n\n')) + '\n');
    },
  );
}
