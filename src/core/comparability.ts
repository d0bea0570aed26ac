/**
 * When a run's figure may stand beside a published one: the one comparability rule that `rawrag
 * paper`, `rawrag stats` (its default baseline), the HTML report and a run's printed summary use.
 *
 * A figure *reproduces* an item only when it comes from a **complete** run of the item's
 * **setting**: the same data (benchmark variant, gold version, categories: the data half of the
 * manifest's setting), the whole question set, the same system, reader, retriever actually used,
 * judge protocol (model, runs, prompt), evidence display (dedup or not) and method values, and the
 * metric the item reports. A run of the setting that is not complete is *partial* ("partial (200 of
 * 1,540)"); a run that differs in any of these is *another setting* ("other setting (gold=audited)").
 * Among several complete runs of a setting, the newest is the one shown.
 *
 * Pure: it reads what a manifest says (the caller reads the file) and names no benchmark or system.
 */
import { BaseRunConfigSchema, type RunConfig } from '../config/schema.js';

/** What a run directory's manifest says, as far as the rule reads it (all optional: other tools write less). */
export interface ManifestView {
  benchmark?: string;
  system?: string;
  setting?: string;
  reference?: boolean;
  oracle?: boolean;
  status?: string;
  config?: Partial<RunConfig> & Record<string, unknown>;
  retriever?: { name?: string; stand_in?: boolean };
  questions?: { selected?: number; done?: number; errors?: number };
  /**
   * The data file: its sha256 and version, its load warnings, and `questions`: how many questions
   * the data held under the run's options, before --limit/--sample/--ids.
   */
  dataset?: {
    questions?: number;
    sha256?: string;
    version?: string;
    warnings?: Array<{ place?: string; message?: string; important?: boolean }>;
  };
  /** Set by `rawrag import`: the run holds another tool's answers. */
  imported_from?: unknown;
  finished_at?: string | null;
  updated_at?: string;
  created_at?: string;
}

/** How evidence shared by overlapping windows is shown: repeated once per window (the paper's display) or once. */
export type Display = 'repeated' | 'dedup';

/** The setting of a run, in the rule's terms. */
export interface RunSetting {
  benchmark: string;
  /** The data half of the setting (`locomo`, `locomo/gold=audited`, `memoryagentbench/splits=CR`). */
  data: string;
  /** The registered system (`config.system`). */
  system: string;
  /** An imported run (`rawrag import`): another tool's answers, named by the manifest's system label (`Memora`). */
  imported: string | null;
  reference: boolean;
  oracle: boolean;
  reader: string | null;
  /** The retriever actually used: the configured one, or the offline stand-in a remote one fell back to. */
  retriever: string;
  /** The evidence source's full name as the manifest records it (its identity: a store oracle's store and packing). */
  source: string;
  judge: { model: string | null; runs: number; prompt: string | null };
  display: Display;
  /** Method values away from the paper's defaults, as `key=value` (k=10, window=512, budget=5000, temperature=0.7, ...). */
  method: string[];
  status: string | null;
  questions: { selected: number; done: number; errors: number; total: number | null; subset: string | null };
  /** The data file as loaded: its sha256, and the important warnings its load gave (a changed copy, a partial release). */
  dataset: { sha256: string | null; warnings: string[] };
  /** The benchmark's protocol options as the run set them (`reading`, `mcqProtocol`: config.options). */
  options: Record<string, string>;
  /** When the run last finished or changed (ISO), for "the newest". */
  when: string;
}

const DEFAULTS = BaseRunConfigSchema.parse({ benchmark: 'any' });

/** The data half of a manifest setting: everything before the last `/` (the reader or who answered). */
export function dataOf(setting: string | undefined, benchmark: string): string {
  if (!setting) return benchmark;
  const cut = setting.lastIndexOf('/');
  return cut > 0 ? setting.slice(0, cut) : setting;
}

/**
 * The evidence display a config asks for. `assembly.dedup` absent means a run written before the
 * paper's display became the default, when the default showed a shared turn once.
 */
export function displayOf(cfg: { assembly?: { dedup?: boolean } } | undefined): Display {
  return cfg?.assembly?.dedup === false ? 'repeated' : 'dedup';
}

/** `key=value` for each method value of a config that differs from the paper's defaults (the shared config's defaults). */
export function methodDifferences(cfg: Partial<RunConfig> | undefined): string[] {
  const out: string[] = [];
  const c = cfg ?? {};
  const differs = (name: string, value: unknown, dflt: unknown) => {
    if (value !== undefined && value !== null && JSON.stringify(value) !== JSON.stringify(dflt)) out.push(`${name}=${String(value)}`);
  };
  differs('window', c.chunking?.size, DEFAULTS.chunking.size);
  differs('stride', c.chunking?.stride, c.chunking?.size !== undefined ? c.chunking.size - 32 : DEFAULTS.chunking.stride);
  differs('candidates', c.retrieval?.candidates, DEFAULTS.retrieval.candidates);
  differs('k', c.retrieval?.k, DEFAULTS.retrieval.k);
  differs('rerank', c.retrieval?.rerank, DEFAULTS.retrieval.rerank);
  differs('expand', c.assembly?.expand, null);
  differs('order', c.assembly?.order, null);
  if (c.assembly?.maxEvidenceTokens) out.push(`budget=${c.assembly.maxEvidenceTokens}`);
  differs('temperature', c.reader?.temperature, DEFAULTS.reader.temperature);
  differs('max_tokens', c.reader?.maxTokens, null);
  if (c.reader?.promptFile) out.push(`reader prompt=${c.reader.promptFile}`);
  return out;
}

/** Reads a manifest into the rule's terms (null when it says too little to be a run of anything). */
export function runSetting(m: ManifestView): RunSetting | null {
  if (!m.benchmark || !m.system) return null;
  const cfg = m.config ?? {};
  const standIn = m.retriever?.stand_in === true || (m.retriever?.name ?? '').startsWith('local');
  const configured = cfg.retrieval?.retriever ?? 'local';
  const q = m.questions ?? {};
  const subset = subsetOf(cfg);
  const selected = q.selected ?? 0;
  return {
    benchmark: m.benchmark,
    data: dataOf(m.setting, m.benchmark),
    system: m.imported_from ? m.system : typeof cfg.system === 'string' ? cfg.system : m.system,
    imported: m.imported_from ? m.system : null,
    reference: m.reference === true,
    oracle: m.oracle === true,
    reader: cfg.reader?.model ?? null,
    // A remote retriever that fell back to the offline stand-in ran the stand-in.
    retriever: standIn && !configured.startsWith('local') ? (m.retriever?.name ?? 'local') : configured,
    source: m.retriever?.name ?? '',
    judge: { model: cfg.judge?.model ?? null, runs: cfg.judge?.runs ?? DEFAULTS.judge.runs, prompt: cfg.judge?.prompt?.file ?? null },
    display: displayOf(cfg),
    method: methodDifferences(cfg),
    status: m.status ?? null,
    questions: {
      selected,
      done: q.done ?? 0,
      errors: q.errors ?? 0,
      total: typeof m.dataset?.questions === 'number' ? m.dataset.questions : subset === null ? selected : null,
      subset,
    },
    dataset: {
      sha256: typeof m.dataset?.sha256 === 'string' ? m.dataset.sha256 : null,
      warnings: (m.dataset?.warnings ?? [])
        .filter((w) => w?.important === true)
        .map((w) => `${w.place ? `${w.place}: ` : ''}${w.message ?? ''}`),
    },
    options: Object.fromEntries(
      Object.entries((cfg.options ?? {}) as Record<string, unknown>)
        .filter(([, v]) => v !== undefined && v !== null)
        .map(([k, v]) => [k, String(v)]),
    ),
    when: m.finished_at ?? m.updated_at ?? m.created_at ?? '',
  };
}

/** `--limit 200`, `--sample 300`, `--ids FILE`, or null for the whole question set. */
function subsetOf(cfg: Partial<RunConfig>): string | null {
  if (cfg.ids) return `--ids ${cfg.ids}`;
  if (cfg.sample) return `--sample ${cfg.sample}`;
  if (cfg.limit) return `--limit ${cfg.limit}`;
  return null;
}

/** What an item of a publication was measured on. Absent fields take the paper's defaults. */
export interface SettingSpec {
  benchmark: string;
  /** The data half of the setting; default the benchmark's default release (its bare name). */
  data?: string;
  /** Which system: the paper's method (`reference`), a system by name, any oracle, or an imported run's system label (any case). */
  system: { reference: true } | { name: string } | { oracle: true } | { imported: string };
  /** The reader; `any` where the publication does not name it (the figure is then labelled with the run's). */
  reader: string | null | 'any';
  /** The retriever actually used; `any` for systems that retrieve on their own. */
  retriever: string | 'any';
  /** The official judge model of the benchmark (null: unknown, not compared), judged `runs` times with its own prompt. */
  judge?: { model: string | null; runs: number } | 'any';
  /** Default `repeated` (the paper's display); `any` where the display cannot matter. */
  display?: Display | 'any';
  /** Method values the item uses away from the paper's defaults (`budget=5000`), or `any` (an ablation variant's own values). */
  method?: string[] | 'any';
  /** Method keys not compared here (`budget`: an oracle's budget has its own default, checked through `extra`). */
  ignore?: string[];
  /** The question subset the item is measured on (`--limit 110`); default the whole set. */
  subset?: string | null;
  /** Further values the item needs, as `label` (what differs when it fails) and a test on the run's config and setting (an oracle's store). */
  extra?: Array<{ label: string; holds(cfg: Record<string, unknown>, run: RunSetting): boolean }>;
  /**
   * The data the publication measured on, for runs of its data half: the release's sha256 (a run of
   * another file is other data) and its question count (a file of fewer questions is other data);
   * `unnamed`: the publication does not say which data it measured on, so no run can be the same data.
   */
  release?: { sha256?: string | null; questions?: number | null; unnamed?: string };
  /**
   * The benchmark's protocol options (not part of the data: the reader template, the multiple-choice
   * protocol) with the publication's values, by option key (`flag`: how the user gives it, `-B reading`);
   * `null`: any value. A run that set another value is another setting (`-B reading=direct`).
   */
  protocol?: Record<string, { flag: string; value: string | null }>;
}

/** The conditions a run must meet to reproduce an item, in the order a failure is named. */
export type Condition = 'data' | 'system' | 'setting' | 'split';

/** How one run stands against an item's setting. */
export interface Verdict {
  /** The data, system and setting match (whatever the run's completeness). */
  sameSetting: boolean;
  /** The conditions that fail, in the order data, system, setting, split (the first names the status). */
  fails: Condition[];
  /** Every question of the setting answered without a failure, status complete. */
  complete: boolean;
  /** The setting's differences, as short phrases (`gold=audited`, `reader gpt-4.1-mini`, `deduplicated display`). */
  differences: string[];
  /**
   * Each failing condition's phrase, joined: `other data (233 questions, not the release's 1,540)`,
   * `other system (agentic-memory)`, `other setting (gold=audited)`, `partial (200 of 1,540)`; null when it reproduces.
   */
  label: string | null;
}

const n = (x: number) => x.toLocaleString('en-US');

/** Completeness alone: is every question of the set (or of the item's subset) answered, none failed, status complete? */
export function completeness(r: RunSetting, subset: string | null = null): { complete: boolean; label: string | null } {
  const { selected, done, errors, total } = r.questions;
  if (r.questions.subset !== subset) {
    if (r.questions.subset === null) return { complete: false, label: `other question set (all ${n(selected)}, not ${subset})` };
    return {
      complete: false,
      label: `partial (${total === null ? `${n(selected)} questions, ${r.questions.subset}` : `${n(selected)} of ${n(total)}`})`,
    };
  }
  if (r.status !== 'complete' || done < selected)
    return { complete: false, label: `incomplete (${r.status ?? 'no status'}: ${n(done)} of ${n(selected)} done)` };
  if (errors > 0) return { complete: false, label: `partial (${n(selected - errors)} of ${n(selected)} answered, ${n(errors)} failed)` };
  return { complete: true, label: null };
}

/** The data condition: the release's file (sha256), all of it (question count), loaded without an important warning. */
function dataDifferences(spec: SettingSpec, r: RunSetting): string[] {
  const d: string[] = [];
  const rel = spec.release ?? {};
  if (rel.unnamed) d.push(rel.unnamed);
  // Another data variant (gold, split, size) is already another setting: the release describes the default one.
  if (r.data !== (spec.data ?? spec.benchmark)) return d;
  if (rel.sha256 && r.dataset.sha256 !== rel.sha256)
    d.push(
      r.dataset.sha256 === null
        ? 'no sha256 of the data recorded'
        : `sha256 ${r.dataset.sha256.slice(0, 12)}… is not the pinned release's ${rel.sha256.slice(0, 12)}…`,
    );
  if (typeof rel.questions === 'number' && r.questions.total !== null && r.questions.total !== rel.questions)
    d.push(`${n(r.questions.total)} questions, not the release's ${n(rel.questions)}`);
  for (const w of r.dataset.warnings) d.push(`the data warned: ${w}`);
  return d;
}

/** The setting condition: reader, retriever, judge protocol, display, method values and the benchmark's protocol options. */
function settingDifferences(spec: SettingSpec, r: RunSetting, cfg: Record<string, unknown>): string[] {
  const d: string[] = [];
  if (r.benchmark !== spec.benchmark) d.push(`benchmark ${r.benchmark}`);
  const data = spec.data ?? spec.benchmark;
  if (r.data !== data) d.push(r.data.startsWith(`${r.benchmark}/`) ? r.data.slice(r.benchmark.length + 1) : `data ${r.data}`);
  if (spec.reader !== 'any' && r.reader !== spec.reader) d.push(r.reader === null ? 'no reader (coverage only)' : `reader ${r.reader}`);
  if (spec.retriever !== 'any' && r.retriever !== spec.retriever) d.push(`retriever ${r.retriever}`);
  const judge = spec.judge ?? 'any';
  if (judge !== 'any' && r.reader !== null) {
    if (judge.model !== null && r.judge.model !== judge.model) d.push(`judge ${r.judge.model}`);
    if (r.judge.runs !== judge.runs) d.push(`judge runs ${r.judge.runs}`);
    if (r.judge.prompt !== null) d.push(`judge prompt ${r.judge.prompt}`);
  }
  const display = spec.display ?? 'repeated';
  if (display !== 'any' && r.display !== display) d.push(r.display === 'dedup' ? 'deduplicated display' : 'repeated display (no dedup)');
  if (spec.method !== 'any') {
    const want = new Set(spec.method ?? []);
    const ignored = (m: string) => (spec.ignore ?? []).some((k) => m.startsWith(`${k}=`));
    for (const m of r.method) if (!want.has(m) && !ignored(m)) d.push(m);
    for (const m of want) if (!r.method.includes(m)) d.push(`without ${m}`);
  }
  for (const [key, p] of Object.entries(spec.protocol ?? {})) {
    const v = r.options[key];
    if (v !== undefined && v !== (p.value ?? v)) d.push(`${p.flag}=${v}`);
  }
  for (const e of spec.extra ?? []) if (!e.holds(cfg, r)) d.push(e.label);
  return d;
}

/** Whether a run is of the item's system. */
export function systemMatches(sys: SettingSpec['system'], r: RunSetting): boolean {
  if ('reference' in sys) return r.reference;
  if ('oracle' in sys) return r.oracle;
  if ('imported' in sys) return r.imported !== null && r.imported.toLowerCase() === sys.imported.toLowerCase();
  return r.imported === null && r.system === sys.name;
}

/** The rule: how a run stands against an item's setting. */
export function judgeRun(spec: SettingSpec, r: RunSetting, cfg: Record<string, unknown> = {}): Verdict {
  const sys = spec.system;
  const system = systemMatches(sys, r) ? [] : [r.system];
  const groups: Array<[Condition, string, string[]]> = [
    ['data', 'other data', dataDifferences(spec, r)],
    ['system', 'other system', system],
    ['setting', 'other setting', settingDifferences(spec, r, cfg)],
  ];
  const failing = groups.filter(([, , d]) => d.length > 0);
  const done = completeness(r, spec.subset ?? null);
  const fails: Condition[] = [...failing.map(([c]) => c), ...(done.complete ? [] : (['split'] as const))];
  const labels = [...failing.map(([, name, d]) => `${name} (${d.join(', ')})`), ...(done.label ? [done.label] : [])];
  return {
    sameSetting: failing.length === 0,
    fails,
    complete: done.complete,
    differences: failing.flatMap(([, , d]) => d),
    label: labels.length ? labels.join('; ') : null,
  };
}

/** Complete before not, then the newest (ISO times compare as text), then the directory for a stable order. */
export function byPreference<T extends { setting: RunSetting; verdict: Verdict; dir: string }>(a: T, b: T): number {
  return (
    Number(b.verdict.complete) - Number(a.verdict.complete) ||
    (a.setting.when < b.setting.when ? 1 : a.setting.when > b.setting.when ? -1 : 0) ||
    (a.dir < b.dir ? -1 : a.dir > b.dir ? 1 : 0)
  );
}

/**
 * The runs of an item: the one that reproduces it (a complete run of its setting, the newest if
 * several), and the others worth showing beside it — partial runs of the setting first, then runs
 * of other settings — each with its label. `candidates` are the runs the caller considers
 * related (same benchmark and system, say).
 */
export function rankRuns<T extends { setting: RunSetting; dir: string; cfg?: Record<string, unknown> }>(
  spec: SettingSpec,
  candidates: T[],
): { reproducing: (T & { verdict: Verdict }) | null; others: Array<T & { verdict: Verdict }> } {
  const judged = candidates.map((c) => ({ ...c, verdict: judgeRun(spec, c.setting, c.cfg ?? {}) }));
  const same = judged.filter((c) => c.verdict.sameSetting).sort(byPreference);
  const reproducing = same.find((c) => c.verdict.complete) ?? null;
  const others = [...same.filter((c) => c !== reproducing), ...judged.filter((c) => !c.verdict.sameSetting).sort(byPreference)];
  return { reproducing, others };
}
