/**
 * `--dry-run` for a memory service: the add calls and messages ingest would send (one owner per
 * episode and visibility horizon, in the very calls a run plans) and the searches, with nothing
 * sent. The service's own LLM work is billed by the service, so no dollar figure is claimed.
 */
import type { EstimateInput, SystemEstimate } from '../../core/system.js';
import { countTokens } from '../../retrieval/tokenizer.js';
import { ownerOf, planAdds } from './plan.js';
import type { ServiceSettings } from './config.js';
import { memoryHeader } from './source.js';

/** A memory line's typical length in cl100k tokens (Mem0 facts are one sentence): the evidence estimate. */
const EST_MEMORY_TOKENS = 24;

export function estimateService<S, M>(system: string, settings: ServiceSettings, input: EstimateInput<S, M>): SystemEstimate<M> {
  const owners = new Set<string>();
  let calls = 0;
  let messages = 0;
  let searches = 0;
  const evidenceTokens = new Map<string, number>();
  const header = countTokens(memoryHeader(system));
  for (const { ep, questions } of input.groups) {
    const owner = ownerOf('<run>', ep);
    if (!owners.has(owner)) {
      owners.add(owner);
      const plan = planAdds(ep, owner, settings.batch);
      calls += plan.length;
      messages += plan.reduce((s, c) => s + c.messages.length, 0);
    }
    searches += questions.length;
    for (const q of questions) evidenceTokens.set(q.id, header + settings.limit * EST_MEMORY_TOKENS);
  }
  const line = `${system} ingest: ${calls} add calls carrying ${messages} messages for ${owners.size} owners (batch ${settings.batch}), then ${searches} searches (limit ${settings.limit}) at ${settings.url ?? '(no --url given)'}; a resumed run sends only the adds not yet acknowledged. The service's own LLM cost is billed by the service and is not in the total below.`;
  return {
    rows: [],
    evidenceTokens,
    ingest: { cost_usd: 0, lines: [line], data: { add_calls: calls, messages, owners: owners.size, searches } },
    ...(settings.url ? {} : { notes: [`no ${system} URL given: a real run would stop`] }),
  };
}
