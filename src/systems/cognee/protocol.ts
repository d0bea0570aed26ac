/**
 * Cognee's LoCoMo protocol as rawrag declares it (the descriptor's `about.protocol`: `rawrag systems
 * cognee`, each run's manifest `system_protocol`). Cognee publishes no LoCoMo (or LongMemEval) runner
 * (its CLI's LongMemEval adapter is usable "once registered", and none is), so this protocol is
 * rawrag's own, built from the library's documented workflow (add, cognify, search) and the one
 * conversational ingest Cognee's authors wrote (BEAM: a dataset per conversation, each session added
 * and cognified).
 */
import type { VendorProtocol } from '../../core/system.js';

const REPO = 'topoteretes/cognee@a8f9760b (read at 1.5.2; run here: cognee 1.6.5 from the package index)';

export const COGNEE_PROTOCOL: VendorProtocol = {
  summary:
    "rawrag's own (Cognee publishes no LoCoMo runner): one dataset per conversation; one text document per session, added in order with cognee.add (a first line naming the session and its date, then one paragraph per turn, `Speaker: text`, an image as ` [image: caption]`); cognee.cognify(datasets=[it]) once after the last session (Cognee's chunking, LLM graph extraction, chunk summaries and embeddings; the wait is the awaited call); each question cognee.search(question, query_type=SearchType.CHUNKS, datasets=[it], top_k=15): the passages themselves, read by the benchmark's own reader",
  sources: [
    `${REPO} README L118 (pip install cognee), cognee/__init__.py (add, cognify, search, datasets, prune)`,
    `${REPO} cognee/api/v1/search/search.py L41-49 (search: query_type, datasets, top_k 15 by default; SearchType.CHUNKS "raw text segments that match the query semantically")`,
    `${REPO} cognee/eval_framework/beam/local_ingest.py L165-171, L194-236 (BEAM: prune, then per conversation each session added to one dataset and cognified)`,
    `${REPO} cognee/cli/commands/eval_command.py L29-30 (a LongMemEval adapter "once registered": none is)`,
    "cognee 1.6.5: infrastructure/databases/graph/get_graph_engine.py (GRAPH_DATABASE_PROVIDER=turso: a local Turso file through SQLAlchemy), graph/ladybug/adapter.py + cognee_db_workers/_kuzu_helpers.py load_json_extension (LOAD EXTENSION JSON, then the bundled binary, then INSTALL from the extension server), api/v1/datasets/datasets.py (empty_dataset: the dataset's nodes, edges, databases and documents)",
  ],
  deviations: [
    "the protocol is rawrag's, not Cognee's authors' (they published none for LoCoMo): one dataset per conversation, one document per session with its date in the text, cognify after all sessions, chunk retrieval",
    "search is SearchType.CHUNKS (retrieval only), not Cognee's default HYBRID_COMPLETION (which answers with its own LLM): the benchmark's reader answers from the passages, as for every system; -S search_type=CHUNKS_LEXICAL or SUMMARIES chooses another retrieval-only type. The graph cognify builds is stored (and counted by `rawrag memory show`) but CHUNKS does not read it",
    "graph store: Cognee's default Ladybug (Kuzu) database, whose adapter loads Ladybug's JSON extension: the binary cognee 1.6.5 bundles (cognee_db_workers/ladybug_extensions/), so nothing is downloaded (the 1.5.2 reading feared an INSTALL from the extension server); -S graph=turso keeps the graph in a local Turso file instead (runs labelled \"Cognee (Turso graph)\"); relational SQLite and vector LanceDB are Cognee's defaults, all under the sidecar's state folder",
    "the library's LLM and embedding models are its defaults (LLM_MODEL, EMBEDDING_MODEL unset) on the configured OpenAI-compatible endpoint, unless COGNEE_LLM_MODEL / COGNEE_EMBEDDING_MODEL say otherwise",
    "the library is fed when rawrag says the conversation's last add was sent (/ready): each session's document added in order, then one cognify",
    'a chunk maps back to the turns whose lines it contains (coverage); chunk scores are the vector distances Cognee returns (lower is closer)',
  ],
};
