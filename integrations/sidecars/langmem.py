"""
LangMem behind rawrag's memory protocol: `python3 integrations/sidecars/langmem.py --port PORT`
(then `rawrag run locomo --system langmem -S url=http://127.0.0.1:PORT`; without `-S url=` rawrag
starts it for you after `rawrag systems install langmem`).

Library: `langmem` 0.0.30 from the package index, with langgraph's prebuilt ReAct agent, its
`InMemoryStore` and `MemorySaver`, and langchain-openai. Driven as Mem0's evaluation drives LangMem
(mem0ai/mem0@b3ede5b7 evaluation/src/langmem.py, the LangMem numbers in Mem0's paper):
- two agents per conversation, one per speaker (L117-123), each `create_react_agent("openai:MODEL")`
  with `create_manage_memory_tool` and `create_search_memory_tool` on namespace ("memories",), its
  own `InMemoryStore(index={"dims": 1536, "embed": "openai:EMBEDDING_MODEL"})` and `MemorySaver`,
  and the script's `prompt`: a system message holding `store.search(("memories",), query=<last
  message>)` (configs/prompts/langmem-agent-system.txt, L41-80);
- every turn, in order, `"{timestamp} | {speaker}: {text}"` sent as one user message to that
  speaker's agent on thread `thread-{conversation}` (L125-135; the timestamp is the session's date
  as the benchmark writes it);
- search (`--mode agent`, the script's): each agent invoked with the question on the same thread, its
  final message's text taken as that speaker's memories (L85-93): two memories per question;
- search (`--mode store`, for rawrag's common reader): each speaker's store searched directly,
  `store.search(("memories",), query=question, limit=...)`, the limit shared by the two stores, each
  memory as the agent wrote it.

Persistence: `InMemoryStore` and `MemorySaver` live in memory; after the owner's adds are fed the sidecar pickles both
agents' stores (items and vectors) and threads (the thread's messages as they stand, re-opened with
`update_state`) into `<owner>/lib/langmem.pickle`, so a restarted sidecar (a resumed run) answers
from the same memories without feeding them again.

Coverage: the sidecar records, for each stored memory, the turns whose agent call created or
updated it (the store's keys before and after each call); an agent-mode answer carries the turns
of the memories its agent's `search_memory` calls and its prompt's search returned.

The LLM (tool calls) and the embeddings go to OPENAI_BASE_URL / OPENAI_API_BASE (key
OPENAI_API_KEY); LangSmith tracing is off; tiktoken (langchain-openai's embedding token counts)
reads TIKTOKEN_CACHE_DIR, which rawrag seeds.
"""
from __future__ import annotations

import os
import pickle
import shutil
import sys
from importlib.metadata import PackageNotFoundError, version as package_version
from typing import Any, Optional

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.append(_HERE)
from rawrag_sidecar import Adapter, Owner, main, memory  # noqa: E402

sys.path.remove(_HERE)
# This file is named like the library: its own folder must not shadow the `langmem` package.
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _HERE]

PROMPT_FILE = os.path.join(_HERE, "..", "..", "configs", "prompts", "langmem-agent-system.txt")
NAMESPACE = ("memories",)
STATE_FILE = "langmem.pickle"


def message_of(turn: dict) -> str:
    """A turn as the script sends it to its speaker's agent: `{timestamp} | {speaker}: {text}`."""
    return f"{turn['date']} | {turn['speaker']}: {turn['text']}"


def plain(d: Any) -> Any:
    """Nested defaultdicts as plain dicts (a defaultdict with a lambda factory does not pickle)."""
    if isinstance(d, dict):
        return {k: plain(v) for k, v in d.items()}
    return d


class SpeakerAgent:
    """One speaker's ReAct agent: its own store, checkpointer and thread, as the script's `LangMem` class."""

    def __init__(self, args, template: str, thread: str):
        from langgraph.checkpoint.memory import MemorySaver
        from langgraph.config import get_store
        from langgraph.prebuilt import create_react_agent
        from langgraph.store.memory import InMemoryStore
        from langmem import create_manage_memory_tool, create_search_memory_tool

        self.store = InMemoryStore(index={"dims": args.dims, "embed": f"openai:{args.embedding_model}"})
        self.checkpointer = MemorySaver()
        self.config = {"configurable": {"thread_id": thread}}
        self.shown: list[str] = []  # keys the prompt's search showed during the current call

        def prompt(state):
            found = get_store().search(NAMESPACE, query=state["messages"][-1].content)
            self.shown.extend(item.key for item in found)
            return [{"role": "system", "content": template.format(memories=found)}, *state["messages"]]

        self.agent = create_react_agent(
            f"openai:{args.model}",
            prompt=prompt,
            tools=[create_manage_memory_tool(namespace=NAMESPACE), create_search_memory_tool(namespace=NAMESPACE)],
            store=self.store,
            checkpointer=self.checkpointer,
        )

    def invoke(self, text: str) -> dict:
        self.shown = []
        return self.agent.invoke({"messages": [{"role": "user", "content": text}]}, config=self.config)

    def items(self) -> dict[str, Any]:
        return dict(self.store._data.get(NAMESPACE, {}))

    def snapshot(self) -> dict:
        """The store (items and vectors) and the thread as it stands: its messages, not every checkpoint
        MemorySaver keeps (one per step, each with the whole thread: hundreds of MB for one conversation)."""
        return {
            "data": plain(self.store._data),
            "vectors": plain(self.store._vectors),
            "messages": list(self.agent.get_state(self.config).values.get("messages", [])),
        }

    def load(self, snap: dict) -> None:
        for ns, items in snap["data"].items():
            self.store._data[ns].update(items)
        for ns, keys in snap["vectors"].items():
            for key, paths in keys.items():
                self.store._vectors[ns][key].update(paths)
        if snap["messages"]:
            # The thread re-opened as the agent node's output: its next call starts from the user's message, as before.
            self.agent.update_state(self.config, {"messages": snap["messages"]}, as_node="agent")


class LangMemAdapter(Adapter):
    system = "LangMem"

    @classmethod
    def add_arguments(cls, parser) -> None:
        parser.add_argument("--mode", choices=["agent", "store"], default="agent",
                            help="agent: each speaker's agent answers the question, its final message is that speaker's memories (Mem0's script); "
                            "store: each speaker's store searched directly, the stored memories returned (rawrag's common reader)")
        parser.add_argument("--model", default=os.environ.get("LANGMEM_MODEL", "gpt-4o-mini"),
                            help="the agents' chat model (the script's MODEL; Mem0's evaluation used gpt-4o-mini)")
        parser.add_argument("--embedding-model", default=os.environ.get("LANGMEM_EMBEDDING_MODEL", "text-embedding-3-small"),
                            help="the stores' embedding model (the script's EMBEDDING_MODEL)")
        parser.add_argument("--dims", type=int, default=1536, help="the stores' vector size (the script's 1536)")

    def __init__(self, args, state_dir):
        super().__init__(args, state_dir)
        os.environ["LANGSMITH_TRACING"] = "false"
        os.environ["LANGCHAIN_TRACING_V2"] = "false"
        with open(PROMPT_FILE, encoding="utf-8") as f:
            self.template = f.read()
        self.agents: dict[str, dict[str, SpeakerAgent]] = {}
        print("; ".join(f"{p} {_version(p)}" for p in ("langmem", "langgraph", "langchain-openai")) + f"; mode {args.mode}", file=sys.stderr)

    # -- the agents of one conversation

    def _agents(self, owner: Owner) -> dict[str, SpeakerAgent]:
        """The conversation's two agents, re-opened from the owner's pickled state when there is one."""
        agents = self.agents.get(owner.id)
        if agents is None:
            speakers = owner.speakers()
            if len(speakers) != 2:
                raise ValueError(f"Expected 2 speakers, got {len(speakers)} ({speakers}) in owner '{owner.id}'")
            thread = f"thread-{owner.id}"
            agents = {s: SpeakerAgent(self.args, self.template, thread) for s in speakers}
            path = os.path.join(owner.lib_dir, STATE_FILE)
            if os.path.exists(path):
                with open(path, "rb") as f:
                    snaps = pickle.load(f)
                for speaker, snap in snaps.items():
                    agents[speaker].load(snap)
            self.agents[owner.id] = agents
        return agents

    def _drop(self, owner: Owner) -> int:
        """Deletes every memory of the owner's agents from their stores (store.delete), then forgets the agents."""
        agents = self.agents.pop(owner.id, None) or {}
        n = 0
        for agent in agents.values():
            for key in list(agent.items()):
                agent.store.delete(NAMESPACE, key)
                n += 1
        return n

    def _save(self, owner: Owner) -> None:
        os.makedirs(owner.lib_dir, exist_ok=True)
        path = os.path.join(owner.lib_dir, STATE_FILE)
        tmp = f"{path}.tmp-{os.getpid()}"
        with open(tmp, "wb") as f:
            pickle.dump({s: a.snapshot() for s, a in self._agents(owner).items()}, f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)

    # -- the protocol

    def apply(self, owner: Owner, adds: list[dict]) -> None:
        agents = self._agents(owner)
        sources = owner.read("sources.json", {s: {} for s in agents})
        for t in owner.turns(adds):
            agent = agents.get(t["speaker"])
            if agent is None:
                raise ValueError(f"Expected one of {list(agents)}, got speaker {t['speaker']!r} (turn {t['turn_id']})")
            before = {k: item.updated_at for k, item in agent.items().items()}
            agent.invoke(message_of(t))
            mine = sources.setdefault(t["speaker"], {})
            for key, item in agent.items().items():
                if before.get(key) != item.updated_at:
                    mine.setdefault(key, []).append(t["turn_id"])
        self._save(owner)
        owner.write("sources.json", sources)

    def restore(self, owner: Owner) -> None:
        self._agents(owner)

    def reset(self, owner: Owner) -> None:
        self._drop(owner)
        shutil.rmtree(owner.lib_dir, ignore_errors=True)
        owner.write("sources.json", {})

    def search(self, owner: Owner, query: str, limit: int) -> list[dict]:
        agents = self._agents(owner)
        sources = owner.read("sources.json", {})
        by_turn = {t["turn_id"]: t for t in owner.turns()}
        if self.args.mode == "agent":
            # The questions join the agents' threads, as in the script; that part of the threads is not pickled (a sidecar
            # started again answers from the threads as the feed left them): pickling both threads per question costs more than the question.
            return [self._answer(speaker, agent, query, sources.get(speaker, {}), by_turn) for speaker, agent in agents.items()]
        found = []
        share = [(limit + 1) // 2, limit // 2]
        for (speaker, agent), n in zip(agents.items(), share):
            if n > 0:
                found += [(speaker, item) for item in agent.store.search(NAMESPACE, query=query, limit=n)]
        found.sort(key=lambda si: -(si[1].score or 0.0))
        return [self._memory(s, item, sources.get(s, {}), by_turn, item.score) for s, item in found][:limit]

    def memories(self, owner: Owner) -> list[dict]:
        sources = owner.read("sources.json", {})
        by_turn = {t["turn_id"]: t for t in owner.turns()}
        return [self._memory(s, item, sources.get(s, {}), by_turn)
                for s, agent in self._agents(owner).items() for item in agent.items().values()]

    def delete(self, owner: Owner) -> list[str]:
        if os.path.isdir(owner.lib_dir):
            self._agents(owner)
        held = self._drop(owner)
        shutil.rmtree(owner.lib_dir, ignore_errors=True)
        return [f"{held} LangMem memories (two agents' InMemoryStores)", f"the pickled stores and threads {owner.lib_dir}"]

    # -- memories as the protocol returns them

    def _answer(self, speaker: str, agent: SpeakerAgent, query: str, sources: dict, by_turn: dict) -> dict:
        from langchain_core.messages import ToolMessage

        result = agent.invoke(query)
        messages = result["messages"]
        start = max((i for i, m in enumerate(messages) if getattr(m, "type", "") == "human" and m.content == query), default=0)
        keys = list(agent.shown)
        for m in messages[start:]:
            if isinstance(m, ToolMessage) and m.name == "search_memory":
                keys += [item.get("key") for item in _json_list(m.content)]
        turns = [by_turn[tid] for k in dict.fromkeys(keys) for tid in sources.get(k, []) if tid in by_turn]
        text = messages[-1].content if isinstance(messages[-1].content, str) else str(messages[-1].content)
        return memory(f"agent:{speaker}:{len(messages)}", f"Memories for {speaker}: {text}", turns=_unique(turns))

    @staticmethod
    def _memory(speaker: str, item, sources: dict, by_turn: dict, score: Optional[float] = None) -> dict:
        content = item.value.get("content") if isinstance(item.value, dict) else item.value
        text = content if isinstance(content, str) else str(content)
        turns = [by_turn[tid] for tid in sources.get(item.key, []) if tid in by_turn]
        # Dated by the benchmark date of the last turn that wrote it (the store's own times are the run's clock).
        return memory(f"{speaker}:{item.key}", f"{speaker}: {text}", score=score,
                      date=turns[-1]["date"] if turns else None, turns=_unique(turns))


def _version(package: str) -> str:
    try:
        return package_version(package)
    except PackageNotFoundError:
        return "(not installed as a package)"


def _unique(turns: list[dict]) -> list[dict]:
    seen: dict[str, dict] = {}
    for t in turns:
        seen.setdefault(t["turn_id"], t)
    return list(seen.values())


def _json_list(text: Any) -> list[dict]:
    import json

    try:
        v = json.loads(text) if isinstance(text, str) else []
    except ValueError:
        return []
    return [x for x in v if isinstance(x, dict)] if isinstance(v, list) else []


if __name__ == "__main__":
    main(LangMemAdapter)
