/**
 * Reaching each endpoint once before a run spends anything: `GET {base}/models` (free at every
 * provider rawrag speaks to; Anthropic and Cohere under `/v1/models`). A connection that fails or a
 * key the server refuses stops the run here, instead of costing a retry budget per question; a
 * model list, when the server gives one, confirms the model names. Any other answer (404 from a
 * server without the route, 5xx) counts as reached: the run's own retries deal with it.
 */
import type { ModelEntry } from '../providers/models.js';
import type { Endpoint } from '../providers/session.js';
import { endpointId } from '../providers/provenance.js';

export interface ReachResult {
  /** Why the endpoint cannot be used (null: reached). */
  problem: string | null;
  /** The model ids the endpoint lists (`models/` prefixes dropped); null when it gave none. */
  models: string[] | null;
}

/** Where an endpoint lists its models, and the headers that carry its key. */
function listRequest(protocol: ModelEntry['protocol'], ep: Endpoint): { url: string; headers: Record<string, string> } {
  const keyed = ep.apiKey !== 'EMPTY';
  if (protocol === 'anthropic')
    return {
      url: `${ep.baseUrl}/v1/models`,
      // The API takes the key as `x-api-key`; newer SDKs send it as a bearer token: both, to the same host.
      headers: { 'anthropic-version': '2023-06-01', ...(keyed ? { 'x-api-key': ep.apiKey, authorization: `Bearer ${ep.apiKey}` } : {}) },
    };
  const url = protocol === 'cohere' ? `${ep.baseUrl}/v1/models` : `${ep.baseUrl}/models`;
  return { url, headers: keyed ? { authorization: `Bearer ${ep.apiKey}` } : {} };
}

/** The ids a `/models` reply lists: OpenAI `data[].id`, Anthropic `data[].id`, Cohere `models[].name`. */
export function listedIds(body: unknown): string[] | null {
  const b = body as { data?: Array<{ id?: unknown }>; models?: Array<{ name?: unknown; id?: unknown }> } | null;
  const rows = Array.isArray(b?.data) ? b.data : Array.isArray(b?.models) ? b.models : null;
  if (!rows) return null;
  const ids = rows
    .map((r) => (r as { id?: unknown; name?: unknown }).id ?? (r as { name?: unknown }).name)
    .filter((x): x is string => typeof x === 'string')
    .map((x) => x.replace(/^models\//, ''));
  return ids.length > 0 ? ids : null;
}

/**
 * The endpoints a command has reached, by endpoint (protocol, base URL, key): a command that runs
 * several pre-flights (`rawrag judge` over a grid's runs, a judge-prompt sweep) hands each the
 * same map, so each endpoint is reached once per command.
 */
export type ReachedEndpoints = Map<string, ReachResult>;

export async function reachEndpoint(
  protocol: ModelEntry['protocol'],
  ep: Endpoint,
  keyEnv: string | null,
  timeoutMs: number,
): Promise<ReachResult> {
  const { url, headers } = listRequest(protocol, ep);
  const where = endpointId(ep.baseUrl);
  let res: Response;
  try {
    res = await fetch(url, { headers, signal: AbortSignal.timeout(timeoutMs) });
  } catch (e) {
    const err = e as { name?: string; message?: string; cause?: { code?: string; message?: string } };
    const why =
      err.name === 'TimeoutError'
        ? `no answer within ${Math.round(timeoutMs / 1000)} s`
        : (err.cause?.code ?? err.cause?.message ?? err.message);
    return { problem: `cannot reach ${where} (${why})`, models: null };
  }
  if (res.status === 401 || res.status === 403) {
    await res.body?.cancel();
    return { problem: `${where} refused the key${keyEnv ? ` in ${keyEnv}` : ''} (HTTP ${res.status})`, models: null };
  }
  if (!res.ok) {
    await res.body?.cancel();
    return { problem: null, models: null };
  }
  try {
    return { problem: null, models: listedIds(await res.json()) };
  } catch {
    return { problem: null, models: null };
  }
}
