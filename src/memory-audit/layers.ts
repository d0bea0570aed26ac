/**
 * The write audit in three layers, each over its own denominator, so that no figure is read against
 * another layer's:
 * 1. **proposals** — what the write LLM proposed (ADD / UPDATE / DELETE / NONE; NONE always part of
 *    it): the paper's audit (UPDATE+DELETE 4.39 % of Mem0's LoCoMo proposals). Only a proposal log
 *    has it (the agentic memory's own, or one imported with `--proposals`).
 * 2. **returned events** — what a service's add replies said it did. NONE is counted only when the
 *    service returned any: Mem0 before 2.0 only logs its LLM's NONE, so over its events the share of
 *    UPDATE+DELETE is that of the non-NONE proposals (the paper's LoCoMo figures give ~20 %, not
 *    4.39 %); the paper's row is re-based the same way beside it.
 * 3. **effective changes** — what changed in the store: new memories, and UPDATEs / DELETEs that
 *    really changed a stored text (not repeated, not malformed, not a no-op, carried out as
 *    proposed), from the events where there are any, else from the proposals.
 * A service that returns only ADD is add-only: its mutation shares are 0 % by construction, and the
 * audit says so (the service's word when its probe gave one, else "only ADD returned in N adds").
 */
import { classifyDecisions, OPERATIONS, type Operation, type WriteDecision } from '../core/write-decisions.js';
import { markdownTable, pct } from '../util/table.js';
import { addOnlyVerdict, type AddOnlyVerdict } from '../core/add-only.js';
import type { DecisionSource } from './sources.js';
import { auditDecisions, PAPER_AUDITS, renderAudit, type Interval, type WriteAudit } from './write-audit.js';

export interface EventLayer {
  file: string;
  /** The denominator: events returned. */
  events: number;
  operations: Record<Operation, number>;
  /** The service returned NONE events (else NONE is no part of this layer). */
  has_none: boolean;
  mutations: number;
  mutation_rate: number;
  per_episode: { median: Interval; mean: Interval };
  /** The paper's Mem0 figures re-based as events (NONE left out), when it reports this benchmark. */
  paper: { events: number; operations: Partial<Record<Operation, number>>; mutation_rate: number } | null;
}

export interface EffectiveLayer {
  /** Which layer it is derived from. */
  from: 'events' | 'proposals';
  /** The denominator: changes to the store. */
  changes: number;
  added: number;
  updated: number;
  deleted: number;
  /** (updated + deleted) / changes. */
  mutation_rate: number;
  /** (updated + deleted) / the source layer's denominator (the paper's 1.90 % is over its proposals). */
  of_source: number;
  /** UPDATE / DELETE of the source layer that changed nothing, by why. */
  not_effective: { repeated: number; malformed: number; 'no-op': number; 'not carried out': number };
  paper_of_source: number | null;
}

export interface LayeredAudit extends WriteAudit {
  /** Which layer the headline fields (`decisions`, `operations`, `proposed_mutation_rate`, ...) describe. */
  layer: 'proposals' | 'events';
  layers: { proposals: WriteAudit | null; events: EventLayer | null; effective: EffectiveLayer };
  add_only: AddOnlyVerdict | null;
  /** The service's own notes (its probe): what its figures mean. */
  notes: string[];
}

const zeroOps = (): Record<Operation, number> => ({ ADD: 0, UPDATE: 0, DELETE: 0, NONE: 0 });
const count = (ds: readonly WriteDecision[]) => {
  const ops = zeroOps();
  for (const d of ds) ops[d.operation]++;
  return ops;
};

function eventLayer(file: string, ds: WriteDecision[], base: WriteAudit): EventLayer {
  const operations = count(ds);
  const mutations = operations.UPDATE + operations.DELETE;
  const p = base.benchmark ? PAPER_AUDITS[base.benchmark] : undefined;
  const kept = p ? 1 - (p.operations.NONE ?? 0) : 0;
  return {
    file,
    events: ds.length,
    operations,
    has_none: operations.NONE > 0,
    mutations,
    mutation_rate: ds.length ? mutations / ds.length : 0,
    per_episode: base.per_episode.proposed,
    paper:
      p && kept > 0
        ? {
            events: Math.round(p.decisions * kept),
            operations: Object.fromEntries(
              (['ADD', 'UPDATE', 'DELETE'] as const)
                .filter((op) => p.operations[op] !== undefined)
                .map((op) => [op, p.operations[op]! / kept]),
            ),
            mutation_rate: p.proposed_mutation_rate / kept,
          }
        : null,
  };
}

function effectiveLayer(from: 'events' | 'proposals', ds: WriteDecision[], benchmark: string | null): EffectiveLayer {
  let added = 0;
  let updated = 0;
  let deleted = 0;
  const not = { repeated: 0, malformed: 0, 'no-op': 0, 'not carried out': 0 };
  for (const d of classifyDecisions(ds)) {
    if ((d.applied ?? d.operation) === 'ADD' && d.class !== 'malformed') added++;
    if (d.operation !== 'UPDATE' && d.operation !== 'DELETE') continue;
    if (d.effectiveMutation) d.operation === 'UPDATE' ? updated++ : deleted++;
    else if (d.class !== 'ok') not[d.class]++;
    else not['not carried out']++;
  }
  const changes = added + updated + deleted;
  const p = benchmark ? PAPER_AUDITS[benchmark] : undefined;
  const kept = p ? 1 - (p.operations.NONE ?? 0) : 0;
  return {
    from,
    changes,
    added,
    updated,
    deleted,
    mutation_rate: changes ? (updated + deleted) / changes : 0,
    of_source: ds.length ? (updated + deleted) / ds.length : 0,
    not_effective: not,
    paper_of_source: p ? (from === 'proposals' ? p.effective_mutation_rate : kept > 0 ? p.effective_mutation_rate / kept : null) : null,
  };
}

export function auditLayers(src: DecisionSource, opts: { resamples?: number; seed?: number | string } = {}): LayeredAudit {
  const meta = { source: src.source, benchmark: src.benchmark, system: src.system };
  const proposals = src.proposals ? auditDecisions(src.proposals.decisions, meta, opts) : null;
  const eventsBase = src.events ? auditDecisions(src.events.decisions, meta, opts) : null;
  const events = src.events && eventsBase ? eventLayer(src.events.file, src.events.decisions, eventsBase) : null;
  const effective = src.events
    ? effectiveLayer('events', src.events.decisions, src.benchmark)
    : effectiveLayer('proposals', src.proposals?.decisions ?? [], src.benchmark);
  const head = proposals ?? eventsBase ?? auditDecisions([], meta, opts);
  const name = src.service?.system ?? src.system ?? 'this system';
  const add_only = events
    ? addOnlyVerdict({
        system: name,
        probe: src.service?.probe ?? null,
        adds: src.service?.adds ?? new Set(src.events!.decisions.map((d) => d.batch ?? '')).size,
        events: events.operations,
      })
    : null;
  return {
    ...head,
    layer: proposals ? 'proposals' : 'events',
    layers: { proposals, events, effective },
    add_only,
    notes: src.service?.probe?.notes ?? [],
  };
}

const ci = (i: Interval) => `${pct(i.value)} [${pct(i.ci_low)}, ${pct(i.ci_high)}]`;
const share = (k: number, n: number) => (n ? pct(k / n) : '—');

function renderEvents(a: LayeredAudit, e: EventLayer): string[] {
  const none = (k: number) => (e.has_none ? share(k, e.events) : '—');
  const rows: Array<Array<string | number>> = [
    [
      a.system ?? 'this log',
      e.events,
      share(e.operations.ADD, e.events),
      share(e.operations.UPDATE, e.events),
      share(e.operations.DELETE, e.events),
      none(e.operations.NONE),
      pct(e.mutation_rate),
      ci(e.per_episode.median),
      ci(e.per_episode.mean),
    ],
  ];
  if (e.paper)
    rows.push([
      'Mem0 (paper), NONE left out',
      e.paper.events,
      ...(['ADD', 'UPDATE', 'DELETE'] as const).map((op) => (e.paper!.operations[op] === undefined ? '—' : pct(e.paper!.operations[op]))),
      '—',
      pct(e.paper.mutation_rate),
      '—',
      '—',
    ]);
  return [
    `2. Returned events — what the service's add replies said it did; denominator: the ${e.events} events returned (${e.file})`,
    '',
    markdownTable(
      [
        'system',
        'events',
        'ADD %',
        'UPDATE %',
        'DELETE %',
        'NONE %',
        'UPDATE+DELETE %',
        'per-episode median % [95% CI]',
        'per-episode mean % [95% CI]',
      ],
      rows,
    ),
    '',
    e.has_none
      ? `NONE: ${e.operations.NONE} returned by the service, counted in this layer`
      : `NONE: not returned by this service (none of its ${e.events} events): not part of this layer; a proposal's NONE is counted in layer 1 only`,
  ];
}

function renderEffective(a: LayeredAudit, f: EffectiveLayer): string[] {
  const n = f.changes;
  const over = f.from === 'events' ? 'events' : 'proposals';
  const rows: Array<Array<string | number>> = [
    [a.system ?? 'this log', n, share(f.added, n), share(f.updated, n), share(f.deleted, n), pct(f.mutation_rate), pct(f.of_source)],
  ];
  if (f.paper_of_source !== null)
    rows.push([`Mem0 (paper)${f.from === 'events' ? ', NONE left out' : ''}`, '—', '—', '—', '—', '—', pct(f.paper_of_source)]);
  const x = f.not_effective;
  return [
    `3. Effective changes — what changed in the store, from the ${over}; denominator: the ${n} changes (new memories, and UPDATE / DELETE that changed a stored text)`,
    '',
    markdownTable(
      [
        'system',
        'changes',
        'new memory %',
        'effective UPDATE %',
        'effective DELETE %',
        'UPDATE+DELETE % of changes',
        `effective UPDATE+DELETE % of ${over}`,
      ],
      rows,
    ),
    '',
    `UPDATE / DELETE that changed nothing: ${x.repeated} repeated, ${x.malformed} malformed, ${x['no-op']} no-op, ${x['not carried out']} not carried out as proposed`,
  ];
}

/** The three layers as text: what each can see, its table over its own denominator, and what the service's figures mean. */
export function renderLayers(a: LayeredAudit, opts: { episodes?: boolean } = {}): string {
  const { proposals, events, effective } = a.layers;
  const who = a.system ?? 'this system';
  const out = [`Write-decision audit — ${[a.system, a.benchmark].filter(Boolean).join(' on ') || a.source} (${a.source})`, ''];
  out.push(
    "Three layers, each over its own denominator: 1. proposals (what the write LLM proposed, NONE included: the paper's audit), 2. returned events (what the service's replies said it did), 3. effective changes (what changed in the store).",
  );
  if (a.add_only) out.push('', `ADD-ONLY: ${a.add_only.statement}.`);
  for (const n of a.notes) out.push(`NOTE: ${n}`);
  out.push('');
  if (proposals) {
    const table = renderAudit(proposals, { episodes: false }).split('\n').slice(2);
    out.push(`1. Proposals — what the write LLM proposed; denominator: the ${proposals.decisions} proposals`, '', ...table);
  } else
    out.push(
      `1. Proposals — none for this run: ${who} returned events, not its LLM's proposals. The paper's audit counts proposals; give them with --proposals FILE (a decision log, one proposal a line), or audit a system that records its own (--system agentic-memory).`,
    );
  out.push('');
  if (events) out.push(...renderEvents(a, events));
  else
    out.push(
      `2. Returned events — none: ${who} returns no events; its proposals and what its store did with them (\`applied\`) are layers 1 and 3.`,
    );
  out.push('', ...renderEffective(a, effective));
  if (opts.episodes !== false && a.episodes_table.length) {
    out.push(
      '',
      `Per episode (${a.layer}):`,
      '',
      markdownTable(
        [
          'episode',
          a.layer === 'proposals' ? 'proposals' : 'events',
          'ADD',
          'UPDATE',
          'DELETE',
          'NONE',
          'UPDATE+DELETE %',
          'effective UPDATE+DELETE %',
        ],
        a.episodes_table.map((e) => [
          e.episode,
          e.decisions,
          ...OPERATIONS.map((op) => (op === 'NONE' && a.layer === 'events' && !events?.has_none ? '—' : e.operations[op])),
          pct(e.proposed_mutation_rate),
          pct(e.effective_mutation_rate),
        ]),
      ),
    );
  }
  return out.join('\n');
}
