"""
A-MEM behind rawrag's memory protocol: `python3 integrations/sidecars/a-mem.py --port PORT` (the file is
named after the system, `a-mem`; it is run, never imported), then
`rawrag run locomo --system a-mem -S url=http://127.0.0.1:PORT`.

Library: agiresearch/A-mem@ceffb860 (`pip install "git+https://github.com/agiresearch/A-mem@ceffb860"`),
`agentic_memory.memory_system.AgenticMemorySystem` (L93-157): notes in an in-memory ChromaDB collection
("memories") that every new system resets (L111-119). Driven as the paper's LoCoMo script drives it,
WujiangXu/AgenticMemory@7f716dc5 test_advanced.py:
- one system per conversation (`advancedMemAgent` per sample, L252-253; model_name all-MiniLM-L6-v2,
  backend openai, llm gpt-4o-mini, L40-45);
- one `add_note(content, time=session date)` per turn, in order, content
  `"Speaker " + speaker + "says : " + text` (sic: no space before "says"), the text with an image's
  caption before it as `[Image: caption] text` (load_dataset.py L60-75), time = the session's date
  string as LoCoMo writes it (L293-297);
- each question: keywords from the library's LLM with the script's prompt (`generate_query_llm`,
  L87-117; configs/prompts/a-mem-keywords.txt), then `find_related_memories_raw(keywords, k=10)`
  (`--retrieve_k` default 10, L121-126; A-mem memory_system.py L315-344); each line it returns (a hit,
  or a linked neighbour) is one memory, shown as the script's reader sees it.

Notes map to turns one to one, so every memory carries its turn (coverage). The collection is
process-wide (a new system resets it), so the sidecar holds one conversation's notes in the library at
a time and keeps each conversation's notes in its state folder, reloading them with
`consolidate_memories()` when a call switches to another conversation or the sidecar restarts (the
script reloads its pickled notes the same way, L268-285). A switch re-embeds that conversation's notes.

The LLM is the library's: `OPENAI_API_KEY` and `OPENAI_BASE_URL` (any OpenAI-compatible endpoint, read
by the openai client the library makes); the embedding model is local (sentence-transformers).

Deviations (each a flag):
- `--query keywords|question` (default keywords): `question` searches the question verbatim (no keyword call).
- `--retrieve-k N` (default 10, the script's).
- The library is agiresearch/A-mem (the maintained package); the paper's script ran its own earlier copy
  (memory_layer.py in WujiangXu/AgenticMemory) with the same calls.
"""
from __future__ import annotations

import json
import os
import shutil
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _HERE]
sys.path.append(_HERE)
from rawrag_sidecar import Adapter, Owner, main, memory  # noqa: E402

sys.path.remove(_HERE)

PROMPT = os.path.join(_HERE, "..", "..", "configs", "prompts", "a-mem-keywords.txt")
NOTE_FIELDS = ("content", "id", "keywords", "links", "retrieval_count", "timestamp", "last_accessed", "context", "evolution_history", "category", "tags")
KEYWORDS_SCHEMA = {
    "type": "json_schema",
    "json_schema": {
        "name": "response",
        "schema": {"type": "object", "properties": {"keywords": {"type": "string"}}, "required": ["keywords"], "additionalProperties": False},
        "strict": True,
    },
}


def note_of(turn: dict) -> str:
    """The turn as test_advanced.py writes a note (L296), captions as load_dataset.py prepends them."""
    text = turn["text"]
    for caption in turn["captions"]:
        text = f"[Image: {caption}] {text}" if text else f"[Image: {caption}]"
    return "Speaker " + turn["speaker"] + "says : " + text


class AMemAdapter(Adapter):
    system = "A-MEM"
    one_at_a_time = True

    @classmethod
    def add_arguments(cls, parser) -> None:
        parser.add_argument("--query", choices=["keywords", "question"], default="keywords", help="search with the script's LLM keywords (default) or the question verbatim")
        parser.add_argument("--retrieve-k", type=int, default=10, help="k of find_related_memories_raw (the script's --retrieve_k, 10)")
        parser.add_argument("--llm-model", default="gpt-4o-mini", help="the library's LLM (the script's default gpt-4o-mini)")
        parser.add_argument("--embedding-model", default="all-MiniLM-L6-v2", help="the library's sentence-transformers model (the script's)")

    def __init__(self, args, state_dir):
        super().__init__(args, state_dir)
        from agentic_memory.memory_system import AgenticMemorySystem, MemoryNote

        self.AgenticMemorySystem, self.MemoryNote = AgenticMemorySystem, MemoryNote
        with open(PROMPT, encoding="utf-8") as f:
            self.prompt = f.read()[:-1]
        self.live: str | None = None
        self.mem = None

    def _fresh(self, owner: Owner):
        self.mem = self.AgenticMemorySystem(model_name=self.args.embedding_model, llm_backend="openai", llm_model=self.args.llm_model)
        self.live = owner.id
        return self.mem

    def _system(self, owner: Owner):
        """The live system, holding this owner's notes (a switch or a restart reloads them)."""
        if self.live != owner.id:
            self._fresh(owner)
            saved = owner.read("notes.json", [])
            if saved:
                self.mem.memories = {n["id"]: self.MemoryNote(**n) for n in saved}
                self.mem.consolidate_memories()
        return self.mem

    def apply(self, owner: Owner, adds: list[dict]) -> None:
        system = self._system(owner)
        turns = owner.read("turns.json", {})
        for t in owner.turns(adds):
            note_id = system.add_note(note_of(t), time=t["date"])
            turns[note_id] = {"turn_id": t["turn_id"], "add_id": t["add_id"]}
        owner.write("turns.json", turns)

    def finish(self, owner: Owner) -> None:
        notes = [{k: getattr(n, k) for k in NOTE_FIELDS} for n in self._system(owner).memories.values()]
        owner.write("notes.json", notes)

    def reset(self, owner: Owner) -> None:
        self._fresh(owner)
        for name in ("notes.json", "turns.json"):
            if os.path.exists(os.path.join(owner.dir, name)):
                os.remove(os.path.join(owner.dir, name))

    def _turns(self, owner: Owner, note_ids: list[str]) -> list[dict]:
        turns = owner.read("turns.json", {})
        return [turns[i] for i in note_ids if i in turns]

    def _query(self, system, question: str) -> str:
        if self.args.query == "question":
            return question
        reply = system.llm_controller.llm.get_completion(self.prompt.format(question=question), response_format=KEYWORDS_SCHEMA)
        try:
            return json.loads(reply)["keywords"]
        except (ValueError, KeyError, TypeError):
            return reply.strip()

    def search(self, owner: Owner, query: str, limit: int) -> list[dict]:
        system = self._system(owner)
        raw = system.find_related_memories_raw(self._query(system, query), k=self.args.retrieve_k)
        by_text: dict = {}
        for n in system.memories.values():
            by_text.setdefault((str(n.timestamp), n.content), []).append(n.id)
        out = []
        for i, line in enumerate(l for l in raw.split("\n") if l.strip()):
            fields = dict(part.split(":", 1) for part in line.split("\t") if ":" in part)
            date = fields.get("talk start time", "")
            content = fields.get("memory content", "")[1:]
            ids = by_text.get((date, content), [])
            out.append(memory(ids[0] if ids else f"line-{i}", line, date=date or None, turns=self._turns(owner, ids)))
        return out[:limit]

    def memories(self, owner: Owner) -> list[dict]:
        system = self._system(owner)
        return [memory(n.id, n.content, date=n.timestamp, turns=self._turns(owner, [n.id])) for n in system.memories.values()]

    def delete(self, owner: Owner) -> list[str]:
        held = len(owner.read("notes.json", []))
        if self.live == owner.id and self.mem is not None:
            held = len(self.mem.memories)
            for note_id in list(self.mem.memories):
                self.mem.delete(note_id)
            self.live, self.mem = None, None
        shutil.rmtree(owner.lib_dir, ignore_errors=True)
        return [f"{held} A-MEM notes (ChromaDB collection 'memories' and the saved notes)"]


if __name__ == "__main__":
    main(AMemAdapter)
