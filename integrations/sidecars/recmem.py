"""
RecMem behind rawrag's memory protocol: `python3 integrations/sidecars/recmem.py --port PORT` (then
`rawrag run locomo --system recmem -S url=http://127.0.0.1:PORT`).

Library: CaiusDai/RecMem@a84252f6, `recmem.rec_mem.RecMem` (L84-149) on three embedded Qdrant stores.
It is not a package (pyproject.toml has no [build-system] and two top-level folders, so
`pip install git+...` cannot build it): its authors clone it, `pip install -r requirements.txt` and run
from the checkout (Readme L55-99). So does rawrag: `rawrag systems install recmem --source DIR`
installs the checkout's requirements.txt into the sidecar's environment, and the sidecar imports
`recmem` from that checkout (`--source DIR`, else the one it was installed from). Driven as the authors' script
drives LoCoMo, evaluation/run_experiments.py@a84252f6:
- one RecMem for the process, built as `main()` builds it (L744-769): RecMemConfig with the script's
  defaults (min_consolidation_cnt 6, min_relevant_score 0.7, merge_with_epi_thresh 0.75,
  retrieve_raw_topk 10, retrieve_epi_topk 5, semantic_memory_topk 10, semantic_memory_threshold 0;
  L53-152), OpenAIEmbedding, OpenAIClient, and the script's Qdrant factory (embedding_dim 1536, the
  store's path, exact_search; L25-37); `MODEL` = the script's --model (gpt-4.1-mini, L735);
- per conversation (its conv_id): `reset(conv_id)`, then within each session the turns in pairs by
  position (i, i+1), each pair one message `"[A]: text\\n[B]: text"` (a lone last turn alone), a turn
  with an image `"[A]: text [Showing Image]: caption"` (evaluation/conv_loader.py L16-20), timestamp =
  the session's date as ISO time (L420-437), sent in order with `add_memory(message, timestamp,
  conv_id)` (L465-474);
- each question: `search_memories(question, conv_id)` — the retrieval `answer_question` does
  (rec_mem.py L195-230) — its episodic, raw and semantic memories in the order the answer prompt
  shows them (recmem/prompt.py L47-49).

Raw (subconscious) memories are the messages the sidecar sent, so they map back to their turns
(coverage); episodic and semantic memories are LLM consolidations and carry no turns.

Environment: `OPENAI_API_KEY`, `OPENAI_BASE_URL` (or `OPENAI_API_BASE`) for the LLM and embeddings
(any OpenAI-compatible endpoint; recmem/llm/openai.py L31-39, recmem/embedding/openai.py L20-34).

Deviations (each a flag): the stores live under the sidecar's state folder (`--state`) rather than
SUBCONSCIOUS_STORE / EPISODIC_STORE / SEMANTIC_STORE; a conv_id is the owner id made file-safe; the
script's settings are flags (`--model`, `--min-consolidation-cnt`, ...).
"""
from __future__ import annotations

import hashlib
import os
import re
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _HERE]
sys.path.append(_HERE)
from rawrag_sidecar import Adapter, Owner, folder_name, import_from_checkout, iso_of, main, memory  # noqa: E402

sys.path.remove(_HERE)

def _id(kind: str, content: str) -> str:
    """A memory's id: its layer and a hash of its text (the library keeps ids of its own hidden)."""
    return f"{kind}-{hashlib.sha256(content.encode()).hexdigest()[:16]}"


RAW = re.compile(r"^\[Message Timestamp\]: (.*?) \[Message\]: (.*)$", re.S)


def line_of(turn: dict) -> str:
    """One turn as conv_loader.py's Message.to_string writes it."""
    text = f"[{turn['speaker']}]: {turn['text']}"
    for caption in turn["captions"]:
        text += f" [Showing Image]: {caption}"
    return text


def messages_of(turns: list[dict]) -> list[tuple[str, str, list[dict]]]:
    """(message, ISO timestamp, its turns): each session's turns in pairs by position, as the script groups LoCoMo."""
    sessions: list[list[dict]] = []
    for t in turns:
        if sessions and sessions[-1][0]["session"] == t["session"]:
            sessions[-1].append(t)
        else:
            sessions.append([t])
    out = []
    for s in sessions:
        stamp = iso_of(s[0]["timestamp"]) or ""
        for i in range(0, len(s), 2):
            pair = s[i : i + 2]
            out.append(("\n".join(line_of(t) for t in pair), stamp, pair))
    return out


class RecMemAdapter(Adapter):
    system = "RecMem"

    @classmethod
    def add_arguments(cls, parser) -> None:
        parser.add_argument("--source", default=None, help="the RecMem checkout to import from (default: the one `rawrag systems install recmem` installed from)")
        parser.add_argument("--model", default="gpt-4.1-mini", help="MODEL, the library's LLM (the script's --model)")
        parser.add_argument("--min-consolidation-cnt", type=int, default=6)
        parser.add_argument("--min-relevant-score", type=float, default=0.7)
        parser.add_argument("--merge-with-epi-thresh", type=float, default=0.75)
        parser.add_argument("--retrieve-raw-topk", type=int, default=10)
        parser.add_argument("--retrieve-epi-topk", type=int, default=5)
        parser.add_argument("--semantic-memory-topk", type=int, default=10)
        parser.add_argument("--semantic-memory-threshold", type=float, default=0.0)
        parser.add_argument("--disable-semantic-refinement", action="store_true")

    def __init__(self, args, state_dir):
        super().__init__(args, state_dir)
        import_from_checkout(args.source)
        from recmem.embedding import OpenAIEmbedding
        from recmem.llm import OpenAIClient
        from recmem.rec_mem import RecMem, RecMemConfig
        from recmem.vector_store import QdrantStore

        os.environ["MODEL"] = args.model
        stores = {name: os.path.join(state_dir, "recmem", name) for name in ("semantic", "subconscious", "episodic")}
        for path in stores.values():
            os.makedirs(path, exist_ok=True)
        config = RecMemConfig(
            min_consolidation_cnt=args.min_consolidation_cnt,
            min_relevant_score=args.min_relevant_score,
            retrieve_raw_topk=args.retrieve_raw_topk,
            retrieve_epi_topk=args.retrieve_epi_topk,
            merge_with_epi_thresh=args.merge_with_epi_thresh,
            disable_semantic_refinement=args.disable_semantic_refinement,
            semantic_memory_topk=args.semantic_memory_topk,
            semantic_memory_threshold=args.semantic_memory_threshold,
            semantic_store=stores["semantic"],
            subconscious_store=stores["subconscious"],
            episodic_store=stores["episodic"],
        )
        self.rec_mem = RecMem(
            config=config,
            embedder=OpenAIEmbedding(),
            llm_client=OpenAIClient(),
            vector_store_factory=lambda layer, path: QdrantStore(embedding_dim=1536, path=path or "", exact_search=True),
        )

    @staticmethod
    def conv_id(owner: Owner) -> str:
        return folder_name(owner.id)

    def apply(self, owner: Owner, adds: list[dict]) -> None:
        if owner.meta.get("applied", 0) == 0:
            self.rec_mem.reset(self.conv_id(owner))  # the script starts each conversation from a reset (L465)
        sent = owner.read("messages.json", {})
        for message, stamp, turns in messages_of(owner.turns(adds)):
            self.rec_mem.add_memory(message, stamp, self.conv_id(owner))
            sent.setdefault(message, []).extend({"turn_id": t["turn_id"], "add_id": t["add_id"]} for t in turns)
        owner.write("messages.json", sent)

    def reset(self, owner: Owner) -> None:
        self.rec_mem.reset(self.conv_id(owner))
        owner.write("messages.json", {})

    def _raw(self, owner: Owner, content: str, i: int, score=None) -> dict:
        m = RAW.match(content)
        message, stamp = (m.group(2), m.group(1)) if m else (content, None)
        return memory(_id("raw", content), content, score=score, date=stamp, turns=owner.read("messages.json", {}).get(message, []))

    def search(self, owner: Owner, query: str, limit: int) -> list[dict]:
        r = self.rec_mem.search_memories(query, self.conv_id(owner))
        out = [memory(_id("episodic", c), c, score=s) for c, s in r.episodic]
        out += [self._raw(owner, c, i, s) for i, (c, s) in enumerate(r.subconscious)]
        out += [memory(_id("semantic", c), c, score=s) for c, s in r.semantic]
        return out[:limit]

    def memories(self, owner: Owner) -> list[dict]:
        cid = self.conv_id(owner)
        out = [memory(_id("episodic", c), c) for c in self.rec_mem.episodic_mem.vec_store.list_memories(cid)]
        out += [self._raw(owner, c, i) for i, c in enumerate(self.rec_mem.subconscious_memory.vec_store.list_memories(cid))]
        out += [memory(_id("semantic", c), c) for c in self.rec_mem.semantic_memory.list_memories(cid)]
        return out

    def delete(self, owner: Owner) -> list[str]:
        held = len(self.memories(owner))
        self.rec_mem.reset(self.conv_id(owner))
        return [f"{held} RecMem memories (Qdrant collections '{self.conv_id(owner)}' of the subconscious, episodic and semantic stores)"]


if __name__ == "__main__":
    main(RecMemAdapter)
