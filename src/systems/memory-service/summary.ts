/** The lines a memory-service run adds to its printed summary (read from summary.json's `service`). */
export function serviceSummaryLines(summary: Record<string, unknown>): string[] {
  const s = summary.service as
    | {
        system: string;
        url: string;
        acknowledged: { adds: number; recovered: number; owners: number; complete: number; events: Record<string, number> } | null;
        this_run: { adds_sent: number; adds_skipped: number; adds_recovered: number; messages_sent: number; searches: number };
      }
    | undefined;
  if (!s) return [];
  const a = s.acknowledged;
  const ev = a
    ? Object.entries(a.events)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')
    : 'none';
  return [
    `${s.system} at ${s.url}: ${a ? `${a.adds} adds acknowledged for ${a.owners} owners (${a.complete} complete${a.recovered ? `, ${a.recovered} recovered after a lost reply` : ''})` : 'nothing added'}; events ${ev}`,
    `this run: ${s.this_run.adds_sent} add calls sent (${s.this_run.messages_sent} messages), ${s.this_run.adds_skipped} already acknowledged and not sent, ${s.this_run.searches} searches`,
  ];
}
