/** The lines a memory-service run adds to its printed summary (read from summary.json's `service`). */
import { addOnlyVerdict } from '../../core/add-only.js';

interface ServiceSummary {
  system: string;
  url: string;
  acknowledged: {
    adds: number;
    recovered: number;
    reported?: number;
    owners: number;
    complete: number;
    events: Record<string, number>;
  } | null;
  this_run: { adds_sent: number; adds_skipped: number; adds_recovered: number; messages_sent: number; searches: number };
  timing?: { add_to_ready_ms: { n: number; p50: number; p95: number } | null; search_ms: { n: number; p50: number; p95: number } | null };
  empty_searches?: number;
  no_coverage?: string;
  probe?: { version: string | null; add_only: boolean | null; notes: string[] };
}

/** Most searches returning nothing looks exactly like a weak system, but is usually a wrong owner, filter, version or URL. */
export function emptySearchWarning(s: Pick<ServiceSummary, 'system' | 'this_run' | 'empty_searches'>): string | null {
  const n = s.this_run.searches;
  const empty = s.empty_searches ?? 0;
  if (n === 0 || empty * 2 <= n) return null;
  return `WARNING: ${empty} of ${n} searches (${((100 * empty) / n).toFixed(1)} %) returned no memory from ${s.system}. A wrong owner field, filter, API version or URL looks exactly like a weak system: check rawrag memory show, and the service's own listing, before reading these figures.`;
}

export function serviceSummaryLines(summary: Record<string, unknown>): string[] {
  const s = summary.service as ServiceSummary | undefined;
  if (!s) return [];
  const a = s.acknowledged;
  const ev = a
    ? Object.entries(a.events)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')
    : 'none';
  const out = [
    `${s.system} at ${s.url}: ${a ? `${a.adds} adds acknowledged for ${a.owners} owners (${a.complete} complete${a.recovered ? `, ${a.recovered} recovered after a lost reply` : ''})` : 'nothing added'}; events ${ev}`,
    `this run: ${s.this_run.adds_sent} add calls sent (${s.this_run.messages_sent} messages), ${s.this_run.adds_skipped} already acknowledged and not sent, ${s.this_run.searches} searches`,
  ];
  const r = s.timing?.add_to_ready_ms;
  const q = s.timing?.search_ms;
  if (r || q)
    out.push(
      `timing: ${r ? `first add to searchable per owner p50 ${(r.p50 / 1000).toFixed(1)} s, p95 ${(r.p95 / 1000).toFixed(1)} s (${r.n} owners)` : 'no owner ingested'}${q ? `; search p50 ${q.p50} ms, p95 ${q.p95} ms (${q.n} calls)` : ''}`,
    );
  if (s.no_coverage) out.push(`coverage: absent (${s.no_coverage})`);
  const addOnly = a
    ? addOnlyVerdict({ system: s.system, probe: s.probe ?? null, adds: a.reported ?? a.adds - a.recovered, events: a.events })
    : null;
  if (addOnly) out.push(`ADD-ONLY: ${addOnly.statement}; rawrag memory audit says what can be audited`);
  const warning = emptySearchWarning(s);
  if (warning) out.push(warning);
  return out;
}
