"""
EMem behind rawrag's memory protocol: `python3 integrations/sidecars/emem.py --port PORT` (then
`rawrag run locomo --system emem -S url=http://127.0.0.1:PORT`).

Library: KevinSRR/EMem@f83c0b9a (`pip install "git+https://github.com/KevinSRR/EMem@f83c0b9a"`, which
installs src/emem as the package `emem`; the authors' script imports it as `src.emem` from a clone),
`emem.EMem` (src/emem/EMem.py L51-120). EMem is not incremental: `index_conversation(LoCoMoSample)`
structures every session of a conversation in one pass (L228-242 asserts all sessions at once), so the
sidecar indexes a conversation when rawrag says its last add was sent (/ready) — it cannot do
otherwise. Driven as the authors' script drives it, run_emem_locomo_cached.py@f83c0b9a:
- one EMem per conversation with its own save_dir (L428-434), llm gpt-4o-mini and the script's
  embedding model name (L697-700), and the script's BaseConfig (L723-740: max_new_tokens 8192,
  seed 42, temperature 0, save_openie, openie_mode edu_based_contextual_ee_online, embedding batch 256,
  normalized, synonymy threshold 0.9, linking_top_k 30, qa_top_k 10, date_format_type locomo,
  skip_retrieval_ppr off = EMem-G, the script's default);
- the conversation as the library's LoCoMoSample (utils/conversation_data_utils.py L9-99): sessions by
  number with their date strings, one Turn(speaker, dia_id, text) per turn, the text with an image's
  caption before it as `[Image: caption] text`; `index_conversation(sample)` (L436-438);
- each question: the retrieval `rag_qa_conversation` runs before its own QA (EMem.py L1849-1860):
  `retrieve_structuring_conversation_enhanced_v2(queries=[question], no_query_trace_saving=True)`, its
  first `qa_top_k` (10) EDUs shown as the library's QA prompt shows them (`edu.to_context_string`,
  EMem.py L1603-1630).

EDUs keep their session but not their turns on LoCoMo, so memories carry no turn ids: rawrag reports
no coverage for EMem (absent, not 0 %).

Environment: `OPENAI_API_KEY`; `--llm-base-url` / `--embedding-base-url` (default: the `OPENAI_BASE_URL`
environment variable) for OpenAI-compatible endpoints. `SUPPORT_JSON_SCHEMA`: EMem refuses to start
without it (utils/config_utils.py L13-35, a ValueError from its OpenStructuring); the authors' run
script exports `SUPPORT_JSON_SCHEMA=true` (run_emem_locomo.sh L7), so the sidecar sets `true` when the
environment has none (a value given is kept). With `true` EMem asks its LLM for schema-constrained
JSON (`response_format` json_schema), so the endpoint must honour json_schema.

Embedding model: `text-embedding-3-small`, as the authors' runs pass it (run_emem_locomo.sh L12); the
script's argparse default, `text-embedding-small-3` (run_emem_locomo_cached.py L699), names no model.

Deviations (each a flag): `--skip-ppr` runs EMem instead of EMem-G; `--llm-model`, `--embedding-model`.
A restarted sidecar re-opens an indexed conversation by indexing it again over its save_dir, which
loads the saved structuring results instead of extracting again (as the cached script does).
"""
from __future__ import annotations

import os
import re
import shutil
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _HERE]
sys.path.append(_HERE)
from rawrag_sidecar import Adapter, Owner, main, memory  # noqa: E402

sys.path.remove(_HERE)


def text_of(turn: dict) -> str:
    """parse_session's text: an image's caption first (conversation_data_utils.py L61-79)."""
    text = turn["text"]
    for caption in turn["captions"]:
        text = f"[Image: {caption}] {text}" if text else f"[Image: {caption}]"
    return text


class EMemAdapter(Adapter):
    system = "EMem"

    @classmethod
    def add_arguments(cls, parser) -> None:
        parser.add_argument("--llm-model", default="gpt-4o-mini", help="the script's --llm_model")
        parser.add_argument("--embedding-model", default="text-embedding-3-small", help="the embedding model the authors' run script passes (run_emem_locomo.sh)")
        parser.add_argument("--llm-base-url", default=os.environ.get("OPENAI_BASE_URL"), help="OpenAI-compatible LLM endpoint")
        parser.add_argument("--embedding-base-url", default=os.environ.get("OPENAI_BASE_URL"), help="OpenAI-compatible embedding endpoint")
        parser.add_argument("--skip-ppr", action="store_true", help="EMem (no PPR) instead of the script's default EMem-G")

    def __init__(self, args, state_dir):
        super().__init__(args, state_dir)
        os.environ.setdefault("SUPPORT_JSON_SCHEMA", "true")  # run_emem_locomo.sh L7; EMem raises ValueError without it
        from emem import EMem
        from emem.utils import conversation_data_utils as data
        from emem.utils.config_utils import BaseConfig
        from emem.utils.misc_utils import reformat_openie_results

        self.EMem, self.data, self.BaseConfig, self.reformat = EMem, data, BaseConfig, reformat_openie_results
        self.models: dict[str, object] = {}

    def _config(self, save_dir: str):
        return self.BaseConfig(
            max_new_tokens=2048 * 4,
            seed=42,
            temperature=0,
            force_openie_from_scratch=False,
            force_index_from_scratch=False,
            save_openie=True,
            openie_mode="edu_based_contextual_ee_online",
            embedding_batch_size=256,
            embedding_return_as_normalized=True,
            synonymy_edge_sim_threshold=0.9,
            linking_top_k=30,
            qa_top_k=10,
            date_format_type="locomo",
            save_dir=save_dir,
            skip_retrieval_ppr=self.args.skip_ppr,
        )

    def _model(self, owner: Owner):
        m = self.models.get(owner.id)
        if m is None:
            save_dir = os.path.join(owner.lib_dir, "emem")
            m = self.EMem(
                save_dir=save_dir,
                llm_model_name=self.args.llm_model,
                llm_base_url=self.args.llm_base_url,
                embedding_model_name=self.args.embedding_model,
                embedding_base_url=self.args.embedding_base_url,
                global_config=self._config(save_dir),
            )
            self.models[owner.id] = m
        return m

    def sample(self, owner: Owner):
        """The owner's history as EMem's LoCoMoSample."""
        d = self.data
        sessions: dict[int, object] = {}
        for t in owner.turns():
            m = re.search(r"(\d+)$", t["session"])
            n = int(m.group(1)) if m else len(sessions) + 1
            if n not in sessions:
                sessions[n] = d.Session(session_id=n, date_time=t["date"] or "", turns=[])
            sessions[n].turns.append(d.Turn(speaker=t["speaker"], dia_id=t["turn_id"], text=text_of(t)))
        speakers = owner.speakers() + ["", ""]
        conversation = d.Conversation(speaker_a=speakers[0], speaker_b=speakers[1], sessions=sessions)
        return d.LoCoMoSample(
            sample_id=owner.id, qa=[], conversation=conversation, event_summary=d.EventSummary(events={}),
            observation=d.Observation(observations={}), session_summary={},
        )

    def apply(self, owner: Owner, adds: list[dict]) -> None:
        if owner.meta.get("applied", 0) > 0:
            self.reset(owner)  # more turns after indexing: EMem indexes a conversation whole, so again from scratch
        self._model(owner).index_conversation(self.sample(owner))

    def restore(self, owner: Owner) -> None:
        self._model(owner).index_conversation(self.sample(owner))

    def reset(self, owner: Owner) -> None:
        self.models.pop(owner.id, None)
        shutil.rmtree(owner.lib_dir, ignore_errors=True)

    def _edu(self, edu) -> dict:
        return memory(edu.edu_id, edu.to_context_string(self._config("").date_format_type), date=str(edu.date))

    def search(self, owner: Owner, query: str, limit: int) -> list[dict]:
        model = self._model(owner)
        solutions, _ = model.retrieve_structuring_conversation_enhanced_v2(queries=[query], no_query_trace_saving=True)
        edus = (solutions[0].edus or [])[: model.global_config.qa_top_k]
        return [self._edu(e) for e in edus][:limit]

    def _structuring_results(self, model) -> dict:
        """Session -> EDUs. EMem builds `structuring_results_dict` only at its first retrieval (EMem.py L2101-2110),
        from the results index_conversation saved; before that, read them the same way (load_existing_openie)."""
        held = getattr(model, "structuring_results_dict", None)
        if held is None:
            held = self.reformat(model.load_existing_openie([])[0], openie_mode=model.global_config.openie_mode)[0]
        return held

    def memories(self, owner: Owner) -> list[dict]:
        return [self._edu(e) for edus in self._structuring_results(self._model(owner)).values() for e in edus]

    def delete(self, owner: Owner) -> list[str]:
        held = len(self.memories(owner))
        self.reset(owner)
        return [f"{held} EMem EDUs", f"its save_dir {os.path.join(owner.lib_dir, 'emem')} (structuring results, embedding stores, graph)"]


if __name__ == "__main__":
    main(EMemAdapter)
