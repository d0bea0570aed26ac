"""
Nemori behind rawrag's memory protocol: `python3 integrations/sidecars/nemori.py --port PORT` (then
`rawrag run locomo --system nemori -S url=http://127.0.0.1:PORT`).

Library: nemori-ai/nemori@d2a6dff6, installed from a checkout as its README says (`pip install -e .`;
`rawrag systems install nemori --source DIR`), the async facade `nemori.NemoriMemory`
(nemori/api/facade.py L20-187) on PostgreSQL and Qdrant. Its authors start both with Docker
(docker-compose.yml); without Docker the sidecar brings its own:
- PostgreSQL: DATABASE_URL (or DSN, `--database-url`) when given; else a private cluster under the
  state folder (private_postgres.py: the machine's PostgreSQL, e.g. Debian's postgresql-15, initdb,
  a free port on 127.0.0.1, started and stopped with the sidecar). Nemori's migrations need only
  pg_trgm (pgvector columns were dropped in its migration 4), which postgresql-15 ships.
- Qdrant: `--qdrant local` (default) builds Nemori's Qdrant client in local mode, on a folder under the
  state folder (`QdrantClient(path=...)`, the same collections, points and queries, in process), by
  replacing the client factory of nemori/db/qdrant_store.py before NemoriMemory opens; `--qdrant
  server` keeps the library's own `QdrantClient(url=QDRANT_URL, port=QDRANT_PORT)`. A storage
  substitution, not a method change.
Driven as the authors' LoCoMo scripts drive it,
evaluation/locomo/add.py and search.py@d2a6dff6:
- one NemoriMemory for the process, its MemoryConfig from the script's config.json (llm
  openai/gpt-4.1-mini, embedding google/gemini-embedding-001, buffer 1-20, episodes 1-20, semantic
  memory and prediction-correction on, top-k 10 / 20; add.py L27-31), or `--config FILE`;
- one user per conversation (add.py L136: `{speaker_a}_{idx}`; here the owner id made file-safe);
- one message per turn (build_messages, add.py L81-112): role = the speaker's name, content = the text
  then ` [Image: caption]`, timestamp = the session's time as ISO (parse_timestamp, L34-78), metadata
  {original_speaker, dataset_timestamp, blip_caption, search_query}; sent in batches of `--batch-size`
  (the script's default 1) with `add_messages`, then `flush(user_id)` (L150-157); the script's process
  then leaves the facade, which drains the background tasks (facade.py L70-72): the sidecar calls
  the same `drain()` before any question;
- each question: `search(user_id, question, top_k_episodes=10, top_k_semantic=20, search_method="vector")`
  (search.py L176-188, L217-221), episodes then semantic memories as the script's answer prompt lists
  them (`- [created_at] content`, the top 2 episodes with their source messages; L77-94, L149-164).

Episodes keep their source messages (role, content, timestamp: Nemori's message buffer keeps no
metadata, nemori/db/buffer_store.py L22-45), so an episode maps to the journal's turns whose message
has the same role, content and timestamp (coverage); a semantic memory to its source episode's
turns when that episode is in the same result.

Environment (read by the library): `LLM_API_KEY` / `OPENAI_API_KEY`, `LLM_BASE_URL`, `EMBEDDING_API_KEY`,
`EMBEDDING_BASE_URL` (OpenAI-compatible endpoints), `DATABASE_URL` (PostgreSQL; unset: the private one),
`QDRANT_URL`, `QDRANT_PORT` (with `--qdrant server`).

Deviations: LoCoMo's image search query (`[Search: query]` after the caption) is not in rawrag's turns
and is left out; listing reads the facade's stores (`_system`), as the script reads its stats; a feed
interrupted by a kill is wiped with flush, drain and `delete_user` before it is fed again.
"""
from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import sys
import threading
from datetime import datetime, timezone

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _HERE]
sys.path.append(_HERE)
from private_postgres import PrivatePostgres  # noqa: E402
from rawrag_sidecar import Adapter, Owner, folder_name, iso_of, main, memory  # noqa: E402

sys.path.remove(_HERE)

# evaluation/locomo/config.json@d2a6dff6
EVAL_CONFIG = {
    "llm_model": "openai/gpt-4.1-mini",
    "embedding_model": "google/gemini-embedding-001",
    "buffer_size_min": 1,
    "buffer_size_max": 20,
    "episode_min_messages": 1,
    "episode_max_messages": 20,
    "enable_semantic_memory": True,
    "enable_prediction_correction": True,
    "search_top_k_episodes": 10,
    "search_top_k_semantic": 20,
}


def message_of(turn: dict, speakers: list[str]) -> dict:
    parts = [turn["text"]] + [f"[Image: {c}]" for c in turn["captions"]]
    return {
        "role": turn["speaker"] if turn["speaker"] in speakers[:2] else "user",
        "content": " ".join(parts),
        **({"timestamp": iso_of(turn["timestamp"])} if turn["timestamp"] is not None else {}),
        "metadata": {
            "original_speaker": turn["speaker"],
            "dataset_timestamp": turn["date"],
            "blip_caption": turn["captions"][0] if turn["captions"] else None,
            "search_query": None,
        },
    }


def _local_qdrant(path: str) -> None:
    """Nemori's QdrantVectorStore builds `QdrantClient(url=..., port=..., api_key=..., ...)` (qdrant_store.py
    L30): here the same client in local mode on `path` (no server to reach offline)."""
    from nemori.db import qdrant_store

    def local_client(*_args, **_kwargs):
        import qdrant_client

        return qdrant_client.QdrantClient(path=path)

    os.makedirs(path, exist_ok=True)
    qdrant_store.QdrantClient = local_client


def _key(message: dict) -> tuple:
    """A source message as Nemori keeps it (role, content, time): what maps it back to its turn. Its
    buffer stores the time as TIMESTAMPTZ, so it comes back with an offset: compared as UTC."""
    ts = message.get("timestamp")
    if isinstance(ts, str):
        try:
            t = datetime.fromisoformat(ts)
            ts = (t.astimezone(timezone.utc).replace(tzinfo=None) if t.tzinfo else t).isoformat()
        except ValueError:
            pass
    content = message.get("content")
    if isinstance(content, str) and content.startswith('"'):
        # The buffer writes content as JSONB (json.dumps) and asyncpg, with no JSON codec set, reads it
        # back as JSON text: a source message's content comes back quoted.
        try:
            content = json.loads(content)
        except ValueError:
            pass
    return (message.get("role"), content, ts)


class NemoriAdapter(Adapter):
    system = "Nemori"

    @classmethod
    def add_arguments(cls, parser) -> None:
        parser.add_argument("--config", default=None, help="a MemoryConfig JSON (default: the script's evaluation/locomo/config.json values)")
        parser.add_argument("--batch-size", type=int, default=1, help="messages per add_messages (the script's --batch-size, 1)")
        parser.add_argument("--top-k-episodes", type=int, default=10)
        parser.add_argument("--top-k-semantic", type=int, default=20)
        parser.add_argument("--search-method", choices=["vector", "hybrid", "text"], default="vector", help="the script's default: vector")
        parser.add_argument("--include-original-messages-top-k", type=int, default=2, help="episodes shown with their source messages (the script's 2)")
        parser.add_argument("--drain-timeout", type=float, default=600.0, help="seconds drain() waits for background tasks")
        parser.add_argument(
            "--database-url",
            default=os.environ.get("DATABASE_URL") or os.environ.get("DSN"),
            help="PostgreSQL DSN (default: DATABASE_URL or DSN; none: a private PostgreSQL under the state folder)",
        )
        parser.add_argument("--pg-bin", default=None, help="folder of PostgreSQL's initdb / pg_ctl for the private one (default: Debian's, else PATH)")
        parser.add_argument("--qdrant", choices=["local", "server"], default="local", help="local: Qdrant in process on a folder of the state (default); server: QDRANT_URL / QDRANT_PORT")

    def __init__(self, args, state_dir):
        super().__init__(args, state_dir)
        from nemori import MemoryConfig, NemoriMemory

        values = dict(EVAL_CONFIG)
        if args.config:
            with open(args.config, encoding="utf-8") as f:
                values = json.load(f)
        fields = {f.name for f in dataclasses.fields(MemoryConfig)}
        self.postgres = None
        dsn = args.database_url
        if not dsn:
            self.postgres = PrivatePostgres(os.path.join(state_dir, "postgres"), args.pg_bin)
            dsn = self.postgres.start()
        if args.qdrant == "local":
            _local_qdrant(os.path.join(state_dir, "qdrant"))
        self.config = MemoryConfig(**{k: v for k, v in values.items() if k in fields}, dsn=dsn)
        self.loop = asyncio.new_event_loop()
        threading.Thread(target=self.loop.run_forever, daemon=True).start()
        self.memory = NemoriMemory(self.config)
        self._run(self.memory.__aenter__())

    def close(self) -> None:
        try:
            self._run(self.memory.__aexit__(None, None, None))
        finally:
            if self.postgres is not None:
                self.postgres.stop()

    def _run(self, coro):
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result()

    @staticmethod
    def user(owner: Owner) -> str:
        return folder_name(owner.id)

    def apply(self, owner: Owner, adds: list[dict]) -> None:
        speakers = owner.speakers()
        messages = [message_of(t, speakers) for t in owner.turns(adds)]
        for i in range(0, len(messages), self.args.batch_size):
            self._run(self.memory.add_messages(self.user(owner), messages[i : i + self.args.batch_size]))

    def finish(self, owner: Owner) -> None:
        self._run(self.memory.flush(self.user(owner)))
        self._run(self.memory._system.drain(timeout=self.args.drain_timeout))

    def reset(self, owner: Owner) -> None:
        # Messages of the interrupted feed may wait in Nemori's buffer: process them, then delete the user.
        self.finish(owner)
        self._run(self.memory.delete_user(self.user(owner)))

    def _results(self, owner: Owner, episodes: list[dict], semantic: list[dict], limit_sources: int) -> list[dict]:
        speakers = owner.speakers()
        by_key = self.turns_by_key(owner, lambda t: _key(message_of(t, speakers)))
        by_episode = {e["id"]: [t for m in e.get("source_messages") or [] for t in by_key.get(_key(m), [])] for e in episodes}
        out = []
        for i, e in enumerate(episodes):
            text = e.get("content", "")
            if i < limit_sources and e.get("source_messages"):
                text += "\n    Source Messages:" + "".join(f"\n    - {m.get('role', 'user')}: {m.get('content', '')}" for m in e["source_messages"])
            out.append(memory(e["id"], text, score=e.get("score"), date=e.get("created_at"), turns=by_episode[e["id"]]))
        for s in semantic:
            out.append(memory(s["id"], s.get("content", ""), score=s.get("score"), date=s.get("created_at"), turns=by_episode.get(s.get("source_episode_id"), [])))
        return out

    def search(self, owner: Owner, query: str, limit: int) -> list[dict]:
        r = self._run(
            self.memory.search(
                self.user(owner), query, top_k_episodes=self.args.top_k_episodes, top_k_semantic=self.args.top_k_semantic, search_method=self.args.search_method
            )
        )
        return self._results(owner, r.get("episodes", []), r.get("semantic_memories", []), self.args.include_original_messages_top_k)[:limit]

    def memories(self, owner: Owner) -> list[dict]:
        system = self.memory._system
        episodes = self._run(system._episode_store.list_by_user(self.user(owner), system._agent_id))
        semantic = self._run(system._semantic_store.list_by_user(self.user(owner), system._agent_id))
        as_dict = lambda x: x if isinstance(x, dict) else x.to_dict()  # noqa: E731
        return self._results(owner, [as_dict(e) for e in episodes], [as_dict(s) for s in semantic], 0)

    def delete(self, owner: Owner) -> list[str]:
        stats = self._run(self.memory.stats(self.user(owner)))
        self._run(self.memory.delete_user(self.user(owner)))
        return [
            f"Nemori user {self.user(owner)}: {stats.get('episode_count', 0)} episodes and {stats.get('semantic_memory_count', 0)} semantic memories "
            "(PostgreSQL rows and Qdrant vectors, delete_user)"
        ]


if __name__ == "__main__":
    main(NemoriAdapter)
