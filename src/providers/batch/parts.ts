/**
 * Batch input files: one JSONL line per deferred request ({custom_id, method, url, body}), the
 * custom_id being the request's response-cache key. Requests are grouped by endpoint and model
 * (a batch serves one model) and split at the provider's per-batch limits on requests and bytes.
 * The order is the keys' order, so the same pending requests always make the same parts (and the
 * same part hashes, which is how a restarted run recognises batches it already submitted).
 */
import { sha256Hex } from '../../util/fsx.js';
import type { DeferredRequest } from './defer.js';

export interface BatchLine {
  custom_id: string;
  method: 'POST';
  url: string;
  body: unknown;
}

export interface PartPlan {
  /** Hash of the part's custom_ids: its identity in batches.json and in the batch's metadata. */
  hash: string;
  baseUrl: string;
  /** Registry model name and the role whose endpoint settings reach it. */
  model: string;
  role: DeferredRequest['role'];
  url: string;
  requests: DeferredRequest[];
  /** The JSONL input file's text. */
  jsonl: string;
  bytes: number;
}

export interface BatchLimits {
  requests: number;
  bytes: number;
}

export function batchLine(r: DeferredRequest): BatchLine {
  return { custom_id: r.key, method: 'POST', url: r.url, body: r.body };
}

export function partHash(keys: readonly string[]): string {
  return sha256Hex([...keys].sort().join('\n')).slice(0, 24);
}

/** Splits requests into batch parts within `limitsFor(model)`, grouped by endpoint, model and url. */
export function planParts(requests: readonly DeferredRequest[], limitsFor: (model: string) => BatchLimits): PartPlan[] {
  const groups = new Map<string, DeferredRequest[]>();
  const seen = new Set<string>();
  for (const r of [...requests].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))) {
    if (seen.has(r.key)) continue;
    seen.add(r.key);
    const g = `${r.baseUrl}\u0000${r.model}\u0000${r.url}`;
    let list = groups.get(g);
    if (!list) groups.set(g, (list = []));
    list.push(r);
  }
  const parts: PartPlan[] = [];
  for (const list of [...groups.keys()].sort().map((g) => groups.get(g)!)) {
    const limits = limitsFor(list[0]!.model);
    let cur: { requests: DeferredRequest[]; lines: string[]; bytes: number } = { requests: [], lines: [], bytes: 0 };
    const flush = () => {
      if (cur.requests.length === 0) return;
      const first = cur.requests[0]!;
      const jsonl = cur.lines.join('');
      parts.push({
        hash: partHash(cur.requests.map((r) => r.key)),
        baseUrl: first.baseUrl,
        model: first.model,
        role: first.role,
        url: first.url,
        requests: cur.requests,
        jsonl,
        bytes: cur.bytes,
      });
      cur = { requests: [], lines: [], bytes: 0 };
    };
    for (const r of list) {
      const line = JSON.stringify(batchLine(r)) + '\n';
      const bytes = Buffer.byteLength(line, 'utf8');
      if (bytes > limits.bytes)
        throw new Error(`request ${r.key.slice(0, 12)} alone is ${bytes} bytes, over the batch limit of ${limits.bytes}`);
      if (cur.requests.length >= limits.requests || cur.bytes + bytes > limits.bytes) flush();
      cur.requests.push(r);
      cur.lines.push(line);
      cur.bytes += bytes;
    }
    flush();
  }
  return parts;
}
