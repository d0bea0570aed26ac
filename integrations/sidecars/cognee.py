"""
Cognee behind rawrag's memory protocol: `python3 integrations/sidecars/cognee.py --port PORT`
(then `rawrag run locomo --system cognee -S url=http://127.0.0.1:PORT`; without `-S url=` rawrag
starts it for you after `rawrag systems install cognee`).

Library: `cognee` from the package index (with its `turso` extra), its stores embedded on disk under
the sidecar's state folder (`<state>/cognee/`): relational SQLite, vector LanceDB, and the graph in
Cognee's default Ladybug (Kuzu) database. Ladybug's JSON extension, which the adapter loads when it
opens a database, is the binary cognee 1.6.5 bundles (cognee_db_workers/ladybug_extensions/): no
download. `--graph turso` keeps the graph in a local Turso (SQLite-format) file instead
(`GRAPH_DATABASE_PROVIDER=turso`; runs labelled "Cognee (Turso graph)"). Cognee's backend access
control is on (its default for these stores): every dataset has its own vector and graph databases.

Cognee publishes no LoCoMo runner, so rawrag declares its own protocol (src/systems/cognee/protocol.ts):
- one dataset per conversation (the owner), named after the owner id;
- one text document per session, `cognee.add(text, dataset_name=...)`, in order: a first line naming
  the session and its date, then one paragraph per turn, `Speaker: text` (an image as
  ` [image: caption]`);
- `cognee.cognify(datasets=[...])` once, after the conversation's last session (its own chunking,
  LLM graph extraction and chunk summaries, embeddings): the wait is the awaited call;
- each question `cognee.search(question, query_type=SearchType.CHUNKS, datasets=[...], top_k=limit)`:
  the chunks (passages) themselves, for rawrag's common reader (`--search-type` chooses another
  retrieval-only type: CHUNKS_LEXICAL, SUMMARIES).

The LLM and embeddings go to the OpenAI-compatible endpoint in LLM_ENDPOINT / EMBEDDING_ENDPOINT
(else OPENAI_BASE_URL), keys LLM_API_KEY / EMBEDDING_API_KEY (else OPENAI_API_KEY); models are the
library's defaults unless `--llm-model` / COGNEE_LLM_MODEL, `--embedding-model` /
COGNEE_EMBEDDING_MODEL say otherwise. Telemetry off, LiteLLM's local model-cost map, no `.env` file
read (COGNEE_ENV_FILE names an empty one in the state folder).

Coverage: a chunk maps back to the turns whose lines it contains (each turn is one line of its
session's document).
"""
from __future__ import annotations

import asyncio
import hashlib
import os
import re
import shutil
import sys
import threading
from typing import Any, Optional

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.append(_HERE)
from rawrag_sidecar import Adapter, Owner, main, memory  # noqa: E402

sys.path.remove(_HERE)

SEARCH_TYPES = ("CHUNKS", "CHUNKS_LEXICAL", "SUMMARIES")


def line_of(turn: dict) -> str:
    """A turn as one line of its session's document: `Speaker: text`, an image as ` [image: caption]`."""
    return f"{turn['speaker']}: {turn['text']}" + "".join(f" [image: {c}]" for c in turn.get("captions") or [])


def document_of(turns: list[dict]) -> str:
    """One session as the text document added to Cognee: its name and date first, then a paragraph per turn."""
    first = turns[0]
    head = f"Conversation session {first['session']}" + (f", {first['date']}" if first["date"] else "") + "."
    return "\n\n".join([head, *[line_of(t) for t in turns]])


def held(id: str, text: str, turns: list[dict], score: Optional[float] = None) -> dict:
    """A protocol memory from a chunk or summary: its turns, and their session's date when they share one."""
    dates = {t["date"] for t in turns}
    return memory(id, text, score=score, date=dates.pop() if len(dates) == 1 else None, turns=turns)


def dataset_name(owner_id: str) -> str:
    """A dataset name Cognee accepts (no dots or spaces), unique per owner id."""
    safe = re.sub(r"[^A-Za-z0-9_-]", "_", owner_id)[:60]
    return f"{safe}_{hashlib.sha256(owner_id.encode()).hexdigest()[:10]}"


def library_env(state_dir: str, args) -> dict[str, str]:
    """Cognee's settings (read from the environment at import): stores under the state folder, endpoints, switches."""
    root = os.path.join(state_dir, "cognee")
    os.makedirs(root, exist_ok=True)
    env_file = os.path.join(root, "empty.env")  # named explicitly, so no project or package .env is searched for
    if not os.path.exists(env_file):
        open(env_file, "w").close()
    base = os.environ.get("OPENAI_BASE_URL") or os.environ.get("OPENAI_API_BASE") or ""
    key = os.environ.get("OPENAI_API_KEY") or ""
    # The stores, files and logs under the state folder (and no .env searched for); the graph as --graph says.
    out = {
        "COGNEE_ENV_FILE": env_file,
        "SYSTEM_ROOT_DIRECTORY": os.path.join(root, "system"),
        "DATA_ROOT_DIRECTORY": os.path.join(root, "data"),
        "CACHE_ROOT_DIRECTORY": os.path.join(root, "cache"),
        "COGNEE_LOGS_DIR": os.path.join(root, "logs"),
        "COGNEE_REPOS_DIR": os.path.join(root, "repos"),
        "GRAPH_DATABASE_PROVIDER": args.graph,
    }
    # Cognee's embedded defaults and an OpenAI-compatible LLM and embedder, unless the environment says otherwise.
    defaults = {
        "DB_PROVIDER": "sqlite",
        "VECTOR_DB_PROVIDER": "lancedb",
        "LLM_PROVIDER": "openai",
        "EMBEDDING_PROVIDER": "openai",
        "GRAPH_EXTRACTOR": "llm",
        "TELEMETRY_DISABLED": "1",
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        "HF_HUB_OFFLINE": "1",
        "LLM_ENDPOINT": base,
        "EMBEDDING_ENDPOINT": base,
        "LLM_API_KEY": key,
        "EMBEDDING_API_KEY": key,
    }
    out.update({k: os.environ.get(k) or v for k, v in defaults.items() if os.environ.get(k) or v})
    if args.llm_model:
        out["LLM_MODEL"] = args.llm_model
    if args.embedding_model:
        out["EMBEDDING_MODEL"] = args.embedding_model
    if args.embedding_dimensions:
        out["EMBEDDING_DIMENSIONS"] = str(args.embedding_dimensions)
    return out


class CogneeAdapter(Adapter):
    system = "Cognee"
    # Cognee's configuration, engines and caches are process-wide: one owner's calls at a time.
    one_at_a_time = True

    @classmethod
    def add_arguments(cls, parser) -> None:
        parser.add_argument("--search-type", choices=SEARCH_TYPES, default="CHUNKS",
                            help="the SearchType each question runs (retrieval only, for rawrag's reader; default CHUNKS)")
        parser.add_argument("--chunk-size", type=int, default=None, help="cognify's chunk_size in tokens (default: the library's own)")
        parser.add_argument("--graph", choices=["ladybug", "turso"], default="ladybug",
                            help="the graph store: ladybug (the library's default, its bundled JSON extension) or turso (a local Turso file)")
        parser.add_argument("--llm-model", default=os.environ.get("COGNEE_LLM_MODEL"), help="the library's LLM (default: the library's own)")
        parser.add_argument("--embedding-model", default=os.environ.get("COGNEE_EMBEDDING_MODEL"), help="its embedding model (default: the library's own)")
        parser.add_argument("--embedding-dimensions", type=int, default=None, help="its embedding dimensions (default: the library's own)")

    def __init__(self, args, state_dir):
        super().__init__(args, state_dir)
        os.environ.update(library_env(state_dir, args))
        import cognee  # after the environment: its settings are read at import

        self.cognee = cognee
        self.loop = asyncio.new_event_loop()
        threading.Thread(target=self.loop.run_forever, daemon=True, name="cognee-loop").start()

    def _run(self, coro):
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result()

    # -- the library's datasets

    async def _dataset(self, owner: Owner):
        """The owner's Dataset row (name, id, owner_id), or None."""
        want = dataset_name(owner.id)
        for d in await self.cognee.datasets.list_datasets():
            if d.name == want:
                return d
        return None

    async def _graph(self, owner: Owner) -> tuple[list, list]:
        """The owner's graph database: nodes (id, props) and edges (source, target, relationship, props)."""
        from cognee.context_global_variables import set_database_global_context_variables
        from cognee.infrastructure.databases.graph import get_graph_engine

        d = await self._dataset(owner)
        if d is None:
            return [], []
        async with set_database_global_context_variables(d.id, d.owner_id):
            graph = await get_graph_engine()
            return await graph.get_graph_data()

    def _held(self, owner: Owner) -> tuple[list[dict], dict[str, list[dict]]]:
        """The library's memories (chunks, summaries, entities), and each summary's turns (those of the chunk it was made from)."""
        nodes, edges = self._run(self._graph(owner))
        turns = owner.turns()
        props = {str(n[0]): n[1] for n in nodes}
        chunk_turns = {i: self._turns_in(str(p.get("text", "")), turns) for i, p in props.items() if p.get("type") == "DocumentChunk"}
        summary_turns: dict[str, list[dict]] = {}
        for source, target, _rel, _p in edges:
            for a, b in ((str(source), str(target)), (str(target), str(source))):
                if props.get(a, {}).get("type") == "TextSummary" and b in chunk_turns:
                    summary_turns[a] = chunk_turns[b]
        out = []
        for node_id, p in props.items():
            kind = p.get("type")
            if kind == "DocumentChunk":
                out.append(held(f"chunk:{node_id}", str(p.get("text", "")), chunk_turns[node_id]))
            elif kind == "TextSummary":
                out.append(held(f"summary:{node_id}", str(p.get("text", "")), summary_turns.get(node_id, [])))
            elif kind == "Entity":
                out.append(memory(f"entity:{node_id}", f"{p.get('name', '')}: {p.get('description', '')}"))
        return out, summary_turns

    async def _delete(self, owner: Owner) -> Optional[str]:
        d = await self._dataset(owner)
        if d is None:
            return None
        await self.cognee.datasets.empty_dataset(d.id)
        return str(d.id)

    # -- the protocol

    def apply(self, owner: Owner, adds: list[dict]) -> None:
        name = dataset_name(owner.id)
        for add in adds:
            turns = owner.turns([add])
            self._run(self.cognee.add(document_of(turns), dataset_name=name))

    def finish(self, owner: Owner) -> None:
        kwargs = {"chunk_size": self.args.chunk_size} if self.args.chunk_size else {}
        self._run(self.cognee.cognify(datasets=[dataset_name(owner.id)], **kwargs))

    def reset(self, owner: Owner) -> None:
        self._run(self._delete(owner))

    def search(self, owner: Owner, query: str, limit: int) -> list[dict]:
        from cognee import SearchType

        reply = self._run(self.cognee.search(
            query_text=query,
            query_type=getattr(SearchType, self.args.search_type),
            datasets=[dataset_name(owner.id)],
            top_k=limit,
        ))
        found = []
        for entry in reply or []:
            # With backend access control (these stores' default) one entry per dataset, its hits under search_result.
            hits = entry.get("search_result") if isinstance(entry, dict) and "search_result" in entry else [entry]
            found += [h for h in (hits or []) if isinstance(h, dict)]
        turns = owner.turns()
        summary_turns = self._held(owner)[1] if self.args.search_type == "SUMMARIES" else {}
        return [self._hit(h, turns, summary_turns) for h in found][:limit]

    def memories(self, owner: Owner) -> list[dict]:
        return self._held(owner)[0]

    def delete(self, owner: Owner) -> list[str]:
        held = self.memories(owner)
        counts = {k: sum(1 for m in held if m["id"].startswith(k + ":")) for k in ("chunk", "summary", "entity")}
        dataset = self._run(self._delete(owner))
        shutil.rmtree(owner.lib_dir, ignore_errors=True)
        if dataset is None:
            return []
        return [
            f"Cognee dataset {dataset_name(owner.id)} ({dataset}): {counts['chunk']} chunks, {counts['summary']} summaries, "
            f"{counts['entity']} entities, its graph and vector databases and its documents"
        ]

    # -- search hits as memories

    @staticmethod
    def _turns_in(text: str, turns: list[dict]) -> list[dict]:
        return [t for t in turns if line_of(t) in text]

    def _hit(self, hit: dict, turns: list[dict], summary_turns: dict[str, list[dict]]) -> dict:
        """A search hit (a chunk's or a summary's payload) as a memory; its score is Cognee's vector distance (lower is closer)."""
        text = str(hit.get("text", ""))
        score = hit.get("score")
        score = float(score) if isinstance(score, (int, float)) else None
        if self.args.search_type == "SUMMARIES":
            return held(f"summary:{hit.get('id')}", text, summary_turns.get(str(hit.get("id")), []), score)
        return held(f"chunk:{hit.get('id')}", text, self._turns_in(text, turns), score)


if __name__ == "__main__":
    main(CogneeAdapter)
