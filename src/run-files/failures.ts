/**
 * Why a run's items failed, grouped: items whose error has the same stage and the same message
 * (numbers, ids and quoted values masked) are one reason, counted, with a fix hint. Printed by the
 * run's summary, `rawrag show RUN --failures`, and `--retry-errors` for what still fails.
 */
export interface FailureGroup {
  stage: string;
  /** The first item's message of the group, as written (its first line). */
  reason: string;
  count: number;
  /** The first few item ids, in items.jsonl order. */
  examples: string[];
  hint: string;
}

type ErrorLike = { id?: unknown; error?: unknown };

const EXAMPLES = 3;

/** One line of a message with its varying parts masked, so the same failure on other items groups together. */
function shapeOf(message: string): string {
  return message
    .split('\n')[0]!
    .replace(/"[^"]*"|'[^']*'/g, '"…"')
    .replace(/\b[0-9a-f]{8,}\b/gi, 'H')
    .replace(/\d+(\.\d+)?/g, 'N')
    .slice(0, 200);
}

/** What to do about a failure, from its message: the common causes first, the item's log otherwise. */
export function fixHint(stage: string, message: string): string {
  const m = message.toLowerCase();
  if (/\b(401|403)\b|api key|unauthori[sz]ed|permission|forbidden/.test(m))
    return 'the provider refused the key: check the key (its environment variable) and the model name, then --retry-errors';
  if (/\b429\b|rate limit|too many requests|quota/.test(m))
    return 'rate-limited: lower the concurrency (--concurrency) or wait, then --retry-errors';
  if (/context length|maximum context|too many tokens|token limit|prompt is too long/.test(m))
    return "the request is longer than the model's context: fewer evidence tokens (--k, --max-evidence-tokens) or a model with a longer context";
  if (/econnrefused|enotfound|econnreset|socket hang up|fetch failed|timed? ?out|timeout|\b50[0-4]\b/.test(m))
    return 'the provider or memory service failed or did not answer: check it is up (its base URL), then --retry-errors';
  if (/empty (reply|answer|response)/.test(m)) return 'the model returned an empty reply: --retry-errors asks again';
  if (stage === 'judge' || /judge|label|verdict|parse|json/.test(m))
    return "the judge's reply could not be read: --retry-errors asks again; a judge model that never answers in the format needs another --judge";
  return "`rawrag show RUN ID` prints the failed item's log; --retry-errors redoes the failed items";
}

/** The failed items grouped by stage and message shape, most frequent first (ties: first seen). */
export function groupFailures(items: readonly ErrorLike[]): FailureGroup[] {
  const groups = new Map<string, FailureGroup>();
  for (const it of items) {
    const e = it.error as { stage?: unknown; message?: unknown } | null | undefined;
    if (!e) continue;
    const stage = typeof e.stage === 'string' ? e.stage : 'unknown';
    const message = typeof e.message === 'string' ? e.message : JSON.stringify(e);
    const key = `${stage}\u0000${shapeOf(message)}`;
    let g = groups.get(key);
    if (!g)
      groups.set(
        key,
        (g = { stage, reason: message.split('\n')[0]!.slice(0, 300), count: 0, examples: [], hint: fixHint(stage, message) }),
      );
    g.count++;
    if (g.examples.length < EXAMPLES) g.examples.push(String(it.id));
  }
  return [...groups.values()].sort((a, b) => b.count - a.count);
}

/** The groups as lines: `39 × read: 500 Internal Server Error (e.g. conv-26:q1, …) — fix: …`. */
export function renderFailures(groups: readonly FailureGroup[], limit = 5): string[] {
  const lines = groups
    .slice(0, limit)
    .map((g) => `  ${g.count} × ${g.stage}: ${g.reason} (e.g. ${g.examples.join(', ')})\n      fix: ${g.hint}`);
  if (groups.length > limit) lines.push(`  … and ${groups.length - limit} more reasons`);
  return lines;
}

/** Several runs' groups as one list (a grid's cells): the same stage and message shape add up. */
export function mergeFailureGroups(lists: ReadonlyArray<readonly FailureGroup[]>): FailureGroup[] {
  const out = new Map<string, FailureGroup>();
  for (const list of lists) {
    for (const g of list) {
      const key = `${g.stage}\u0000${shapeOf(g.reason)}`;
      const had = out.get(key);
      if (!had) out.set(key, { ...g, examples: [...g.examples] });
      else {
        had.count += g.count;
        for (const e of g.examples) if (had.examples.length < EXAMPLES) had.examples.push(e);
      }
    }
  }
  return [...out.values()].sort((a, b) => b.count - a.count);
}
