/**
 * `--dry-run` for a memory service: the add calls and messages ingest would send (the very owners
 * and calls a run plans: one owner per episode and visibility horizon, or one per speaker) and the
 * searches, with nothing sent. The service's own LLM work is billed by the service, so no dollar
 * figure is claimed.
 */
import type { CaptionPolicy, EstimateInput, SystemEstimate } from '../../core/system.js';
import { countTokens } from '../../retrieval/tokenizer.js';
import { planEpisode } from './plan.js';
import type { ServiceSettings } from './config.js';
import { memoryHeader } from './search.js';

/** A memory line's typical length in cl100k tokens (Mem0 facts are one sentence): the evidence estimate. */
const EST_MEMORY_TOKENS = 24;

export function estimateService<S, M>(
  system: string,
  settings: ServiceSettings,
  input: EstimateInput<S, M>,
  captions: CaptionPolicy = 'all',
): SystemEstimate<M> {
  const owners = new Set<string>();
  let calls = 0;
  let messages = 0;
  let searches = 0;
  const evidenceTokens = new Map<string, number>();
  for (const { ep, questions } of input.groups) {
    const plan = planEpisode(ep, '<run>', settings, captions);
    for (const o of plan.owners) {
      if (owners.has(o.owner)) continue;
      owners.add(o.owner);
      calls += o.calls.length;
      messages += o.calls.reduce((s, c) => s + c.messages.length, 0);
    }
    searches += questions.length * plan.owners.length;
    const tokens = plan.owners.reduce((s, o) => s + countTokens(memoryHeader(system, o.speaker)) + settings.top_k * EST_MEMORY_TOKENS, 0);
    for (const q of questions) evidenceTokens.set(q.id, tokens);
  }
  const line = `${system} ingest: ${calls} add calls carrying ${messages} messages for ${owners.size} owners (${settings.owners}, batch ${settings.batch}), then ${searches} searches (top ${settings.top_k} each) at ${settings.url ?? '(no url given)'}; a resumed run sends only the adds not yet acknowledged. The service's own LLM cost is billed by the service and is not in the total below.`;
  return {
    rows: [],
    evidenceTokens,
    ingest: { cost_usd: 0, lines: [line], data: { add_calls: calls, messages, owners: owners.size, searches } },
    ...(settings.url ? {} : { notes: [`no ${system} URL given (-S url=URL): a real run would stop`] }),
  };
}
