"""
Graphiti (Zep's open-source engine) behind rawrag's memory protocol, on an embedded Kuzu graph
database: `python3 integrations/sidecars/zep.py --port PORT` (then
`rawrag run locomo --system zep -S api=graphiti -S url=http://127.0.0.1:PORT`; without `-S url=`
rawrag starts it for you after `rawrag systems install zep`).

Library: `graphiti-core` from the package index with its `kuzu` extra and `kuzu` 0.11.3 (the last
Kuzu release; its full-text and vector extensions are built in, so nothing is downloaded). Driven as
Zep's reply to Mem0's paper drives Zep on LoCoMo (getzep/zep-papers@4b7f26cc
kg_architecture_agent_memory/locomo_eval/zep_locomo_ingestion.py, zep_locomo_search.py):
- one graph per conversation (the script's user/group per sample): each owner has its own Kuzu
  database under the state folder, its episodes in the library's default group (graphiti-core
  0.31.2 cannot take a group id on Kuzu: `add_episode(group_id=...)` reads `KuzuDriver._database`,
  which that driver never sets);
- one episode per message, in order, body `"{speaker}: {text}"` (ingestion L59-63; the script
  appends `(description of attached image: ...)` from the key `blip_captions`, which LoCoMo does not
  have (its key is `blip_caption`), so no caption ever reached Zep, and none is sent here), every
  message of a session at the session's date (reference_time, ingestion L54-57, L65), source
  `message`; `add_episode` returns when extraction is done, so nothing is polled;
- each question: facts (edges) with the cross-encoder reranker and entities (nodes) with reciprocal
  rank fusion, 20 of each (search L67-68), both hybrid (BM25 + cosine similarity, as the library's
  COMBINED_HYBRID recipes), one `search_` call each; a search's `limit` is split in half (rawrag's
  top_k 40 = the script's 20 + 20; `--edges` / `--nodes` fix either instead);
- what the reader sees, as the script's template (search L15-37): facts `{fact}` dated by their
  `valid_at` (the script's `(event_time: ...)`), then entities `{name}: {summary}`.

The library's LLM, embedder and reranker all go to the OpenAI-compatible endpoint in
OPENAI_BASE_URL (key OPENAI_API_KEY): the LLM through `OpenAIGenericClient` (chat completions with
`json_schema` structured output, any OpenAI-compatible server) rather than the library's default
`OpenAIClient` (OpenAI's Responses API; `--llm-client openai` keeps it), embeddings through
`OpenAIEmbedder`, the cross-encoder through `OpenAIRerankerClient` (a True/False classification
read from `logprobs`). Models: `--llm-model` / GRAPHITI_LLM_MODEL, `--small-model`,
`--reranker-model`, `--embedding-model` (library defaults where unset).

Coverage: every fact (edge) keeps the episodes it came from (`EntityEdge.episodes`); the sidecar
records which turn each episode was, so a fact maps back to its messages. Entities carry no
episode list: they have no turn ids.
"""
from __future__ import annotations

import asyncio
import os
import shutil
import sys
import threading
from datetime import datetime, timezone
from typing import Any, Optional

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.append(_HERE)
from rawrag_sidecar import Adapter, Owner, main, memory  # noqa: E402

sys.path.remove(_HERE)

def body_of(turn: dict) -> str:
    """The episode body as zep_locomo_ingestion.py writes a message: `Speaker: text` (no caption reached it)."""
    return f"{turn['speaker']}: {turn['text']}"


def reference_time(turn: dict) -> datetime:
    """The session's date as an aware UTC time (rawrag's Unix seconds of the benchmark date); now when it has none."""
    if turn["timestamp"] is None:
        return datetime.now(timezone.utc)
    return datetime.fromtimestamp(turn["timestamp"], tz=timezone.utc)


def iso(value: Any) -> Optional[str]:
    return value.isoformat() if isinstance(value, datetime) else None


class ZepAdapter(Adapter):
    system = "Graphiti"

    @classmethod
    def add_arguments(cls, parser) -> None:
        parser.add_argument("--llm-client", choices=["generic", "openai"], default="generic",
                            help="generic: OpenAIGenericClient (chat completions, json_schema); openai: the library's default OpenAIClient (Responses API)")
        parser.add_argument("--llm-model", default=os.environ.get("GRAPHITI_LLM_MODEL"), help="the library's LLM (default: the client's own)")
        parser.add_argument("--small-model", default=os.environ.get("GRAPHITI_SMALL_MODEL"), help="its small model (default: the client's own)")
        parser.add_argument("--reranker-model", default=os.environ.get("GRAPHITI_RERANKER_MODEL"), help="the cross-encoder's model (default: the reranker's own)")
        parser.add_argument("--embedding-model", default=os.environ.get("GRAPHITI_EMBEDDING_MODEL"), help="the embedder's model (default: the library's text-embedding-3-small)")
        parser.add_argument("--edges", type=int, default=None, help="facts per search, cross-encoder reranked (default: half the search's limit)")
        parser.add_argument("--nodes", type=int, default=None, help="entities per search, RRF reranked (default: the rest of the limit)")

    def __init__(self, args, state_dir):
        super().__init__(args, state_dir)
        os.environ.setdefault("GRAPHITI_TELEMETRY_ENABLED", "false")
        self.loop = asyncio.new_event_loop()
        threading.Thread(target=self.loop.run_forever, daemon=True, name="graphiti-loop").start()
        self.graphs: dict[str, Any] = {}
        self.clients = self._clients()

    # -- the library

    def _run(self, coro):
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result()

    def _clients(self) -> dict[str, Any]:
        from graphiti_core.cross_encoder.openai_reranker_client import OpenAIRerankerClient
        from graphiti_core.embedder.openai import OpenAIEmbedder, OpenAIEmbedderConfig
        from graphiti_core.llm_client.config import LLMConfig

        base_url = os.environ.get("OPENAI_BASE_URL") or None
        key = os.environ.get("OPENAI_API_KEY")
        llm_config = LLMConfig(api_key=key, base_url=base_url, model=self.args.llm_model, small_model=self.args.small_model)
        if self.args.llm_client == "openai":
            from graphiti_core.llm_client.openai_client import OpenAIClient as Client
        else:
            from graphiti_core.llm_client.openai_generic_client import OpenAIGenericClient as Client
        embedder_config = OpenAIEmbedderConfig(api_key=key, base_url=base_url)
        if self.args.embedding_model:
            embedder_config.embedding_model = self.args.embedding_model
        return {
            "llm_client": Client(config=llm_config),
            "embedder": OpenAIEmbedder(config=embedder_config),
            "cross_encoder": OpenAIRerankerClient(config=LLMConfig(api_key=key, base_url=base_url, model=self.args.reranker_model)),
        }

    def _graph(self, owner: Owner):
        g = self.graphs.get(owner.id)
        if g is None:
            import warnings

            from graphiti_core import Graphiti
            from graphiti_core.driver.kuzu_driver import KuzuDriver

            path = os.path.join(owner.lib_dir, "graph.kuzu")
            fresh = not os.path.exists(path)
            os.makedirs(owner.lib_dir, exist_ok=True)
            with warnings.catch_warnings():  # the Kuzu backend's deprecation notice: the only embedded store on Python 3.11
                warnings.simplefilter("ignore", DeprecationWarning)
                driver = KuzuDriver(db=path)
            g = Graphiti(graph_driver=driver, **self.clients)
            if fresh:
                # KuzuDriver.build_indices_and_constraints is a no-op in graphiti-core 0.31.2 and nothing else
                # creates Kuzu's full-text indexes, which every search queries: the driver's own
                # maintenance operation creates them (CREATE_FTS_INDEX, once per database).
                self._run(driver.graph_ops.build_indices_and_constraints(driver))
            self.graphs[owner.id] = g
        return g

    def _close_graph(self, owner: Owner) -> None:
        g = self.graphs.pop(owner.id, None)
        if g is not None:
            self._run(g.close())
            g.driver.db.close()

    # -- the protocol

    def apply(self, owner: Owner, adds: list[dict]) -> None:
        from graphiti_core.nodes import EpisodeType

        g = self._graph(owner)
        episodes = owner.read("episodes.json", {})
        for t in owner.turns(adds):
            result = self._run(g.add_episode(
                name=f"{t['session']} {t['turn_id']}",
                episode_body=body_of(t),
                source_description="chat message",
                reference_time=reference_time(t),
                source=EpisodeType.message,
            ))
            episodes[result.episode.uuid] = t["turn_id"]
            owner.write("episodes.json", episodes)

    def reset(self, owner: Owner) -> None:
        self._close_graph(owner)
        shutil.rmtree(owner.lib_dir, ignore_errors=True)
        owner.write("episodes.json", {})

    def search(self, owner: Owner, query: str, limit: int) -> list[dict]:
        from graphiti_core.search.search_config import (
            EdgeReranker, EdgeSearchConfig, EdgeSearchMethod, NodeReranker, NodeSearchConfig, NodeSearchMethod, SearchConfig, SearchResults)

        g = self._graph(owner)
        hybrid_edges = [EdgeSearchMethod.bm25, EdgeSearchMethod.cosine_similarity]
        hybrid_nodes = [NodeSearchMethod.bm25, NodeSearchMethod.cosine_similarity]
        n_edges = self.args.edges if self.args.edges is not None else (limit + 1) // 2
        n_nodes = self.args.nodes if self.args.nodes is not None else limit - n_edges
        edges_cfg = SearchConfig(edge_config=EdgeSearchConfig(search_methods=hybrid_edges, reranker=EdgeReranker.cross_encoder), limit=n_edges)
        nodes_cfg = SearchConfig(node_config=NodeSearchConfig(search_methods=hybrid_nodes, reranker=NodeReranker.rrf), limit=n_nodes)
        empty = SearchResults()
        edges = self._run(g.search_(query, config=edges_cfg)) if n_edges > 0 else empty
        nodes = self._run(g.search_(query, config=nodes_cfg)) if n_nodes > 0 else empty
        turns = self._turns(owner)
        out = [self._fact(e, turns, s) for e, s in zip(edges.edges, edges.edge_reranker_scores or [None] * len(edges.edges))]
        out += [self._entity(n, s) for n, s in zip(nodes.nodes, nodes.node_reranker_scores or [None] * len(nodes.nodes))]
        return out[:limit]

    def memories(self, owner: Owner) -> list[dict]:
        from graphiti_core.edges import EntityEdge
        from graphiti_core.helpers import get_default_group_id
        from graphiti_core.nodes import EntityNode

        g = self._graph(owner)
        groups = [get_default_group_id(g.driver.provider)]
        turns = self._turns(owner)
        edges = self._run(EntityEdge.get_by_group_ids(g.driver, groups))
        nodes = self._run(EntityNode.get_by_group_ids(g.driver, groups))
        return [self._fact(e, turns) for e in edges] + [self._entity(n) for n in nodes]

    def delete(self, owner: Owner) -> list[str]:
        held = len(self.memories(owner)) if os.path.isdir(owner.lib_dir) else 0
        self._close_graph(owner)
        shutil.rmtree(owner.lib_dir, ignore_errors=True)
        return [f"{held} Graphiti facts and entities", f"the Kuzu database {owner.lib_dir}"]

    def close(self) -> None:
        for owner_id in list(self.graphs):
            g = self.graphs.pop(owner_id)
            try:
                self._run(g.close())
            except Exception:
                pass

    # -- memories as the script's template shows them

    def _turns(self, owner: Owner) -> dict[str, dict]:
        """episode uuid -> the journal's turn record it was made from."""
        by_turn = {t["turn_id"]: t for t in owner.turns()}
        return {uuid: by_turn[turn] for uuid, turn in owner.read("episodes.json", {}).items() if turn in by_turn}

    @staticmethod
    def _fact(edge, turns: dict[str, dict], score: Optional[float] = None) -> dict:
        from_turns = [turns[u] for u in edge.episodes if u in turns]
        return memory(f"edge:{edge.uuid}", edge.fact, score=score, date=iso(edge.valid_at), turns=from_turns)

    @staticmethod
    def _entity(node, score: Optional[float] = None) -> dict:
        return memory(f"node:{node.uuid}", f"{node.name}: {node.summary}", score=score)


if __name__ == "__main__":
    main(ZepAdapter)
