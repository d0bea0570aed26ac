/**
 * Zep's LoCoMo protocol as rawrag follows it (the descriptor's `about.protocol`: `rawrag systems
 * zep`, each run's manifest `system_protocol`): the evaluation Zep published in reply to Mem0's
 * paper (getzep/zep-papers@4b7f26cc, kg_architecture_agent_memory/locomo_eval/), on either API:
 * Graphiti (graphiti-core, Zep's open-source engine, on an embedded Kuzu database, behind
 * integrations/sidecars/zep.py) or Zep's hosted API (client.ts).
 */
import type { VendorProtocol } from '../../core/system.js';

const PAPERS = 'getzep/zep-papers@4b7f26cc kg_architecture_agent_memory/locomo_eval';
const SDK = 'getzep/zep-python@a80dee37';

export const ZEP_PROTOCOL: VendorProtocol = {
  summary:
    "one graph per conversation; one episode per message, in order, `Speaker: text` (no image captions: the script's caption key never matches LoCoMo's), every message of a session at the session's date (created_at / reference_time), source `message`; each question searched verbatim twice: facts (edges) reranked by the cross-encoder and entities (nodes) by reciprocal rank fusion, 20 of each (-S top_k=40, split in half); the reader shown the facts, each dated by its valid_at (the script's event_time), then the entities as `name: summary`",
  sources: [
    `${PAPERS}/zep_locomo_ingestion.py L36-42 (a user and group per sample), L54-57 + L65 (the session date, ISO UTC, on every message), L59-63 ("{speaker}: {text}", the caption from blip_captions), one graph.add per message`,
    `${PAPERS}/zep_locomo_search.py L15-37 (the FACTS and ENTITIES template: "- {fact} (event_time: {valid_at})", "- {name}: {summary}"), L67-68 (nodes rrf limit 20, edges cross_encoder limit 20)`,
    `${PAPERS}/zep_locomo_responses.py L63-66 (gpt-4o-mini, temperature 0, answers the template); README (75.14 ± 0.17 %)`,
    'getzep/zep@7de18dfa benchmarks/locomo/ingestion.py L75-135, evaluation.py L128-143 (Zep\'s later v2 benchmark: an ontology set first, "{speaker} ({role}): {content}", nodes 5 + edges 15, both cross_encoder) — not followed: the reply to Mem0\'s paper is the run practitioners cite',
    "mem0ai/mem0@b3ede5b7c evaluation/src/zep/add.py L29-67, search.py L57-61 (Mem0's run of Zep: the date inside the text, conversation 0 only) — not followed",
    'graphiti-core 0.31.2: Graphiti.add_episode (synchronous: returns when extraction is done), Graphiti.search_ with SearchConfig (EdgeReranker.cross_encoder, NodeReranker.rrf, bm25 + cosine_similarity), KuzuDriver(db=path), OpenAIGenericClient, OpenAIEmbedder, OpenAIRerankerClient',
    `${SDK} src/zep_cloud/graph/raw_client.py L517-575 (POST graph: data, type, created_at, graph_id, metadata), L971-1003 (POST graph/create), L1305-1390 (POST graph/search: query, graph_id, scope, reranker, limit), L1500-1521 (DELETE graph/{graph_id}); graph/episode/raw_client.py (GET graph/episodes/{uuid}, GET graph/episodes/graph/{graph_id}?lastn); graph/edge and graph/node raw_client.py (POST graph/edge/graph/{graph_id}, POST graph/node/graph/{graph_id}: limit, uuid_cursor); core/client_wrapper.py (Authorization: Api-Key)`,
  ],
  deviations: [
    "the reader is the benchmark's own reader prompt (the paper's protocol), not Zep's FACTS and ENTITIES template: facts are shown as dated memories (valid_at as the date), then entities as `name: summary`; the judge is the benchmark's",
    "api=graphiti is Zep's open-source engine, not the hosted service the script ran: graphiti-core on an embedded Kuzu database (one database per conversation; graphiti-core 0.31.2 cannot give a Kuzu episode a group id, so each conversation's episodes are in its database's default group), its LLM, embedder and cross-encoder on the configured OpenAI-compatible endpoint; runs are labelled \"Graphiti (Zep's open-source engine)\"",
    "api=graphiti: the library's LLM client is OpenAIGenericClient (chat completions with json_schema, which any OpenAI-compatible server answers) rather than its default OpenAIClient (OpenAI's Responses API); its models are the clients' defaults (gpt-4.1-mini for the LLM and the cross-encoder, text-embedding-3-small) unless GRAPHITI_LLM_MODEL, GRAPHITI_SMALL_MODEL, GRAPHITI_RERANKER_MODEL, GRAPHITI_EMBEDDING_MODEL say otherwise",
    "api=graphiti: the sidecar creates Kuzu's full-text indexes once per database through the driver's own maintenance operation (graphiti-core 0.31.2's KuzuDriver.build_indices_and_constraints does nothing, and every search queries those indexes)",
    "api=graphiti: the library is fed when rawrag says the conversation's last add was sent (/ready), one add_episode per message in order, as the script's loop; each add carries one message (-S batch=1)",
    "api=cloud: each graph is named after rawrag's owner id (rawrag-<run>-<episode>) and created before its first add, where the script made a user and a group per sample; every episode carries rawrag's metadata (rawrag_add, turn_ids, session, date) so that facts map back to their messages and a lost reply is found, not sent twice",
    'api=cloud: rawrag waits until every episode of a conversation is processed (GET graph/episodes/graph/{id}) before its first question; the script searched right after adding, without waiting',
  ],
};
