"""
MemOS's own API server (`memos.api.server_api:app`, package `MemoryOS`), started for
`rawrag run ... --system memos` without `-S url=`. Nothing here serves a route of its own: this
script configures MemOS through the environment its API config reads (src/memos/api/config.py),
starts the stores it needs under --state, and runs MemOS's FastAPI app under uvicorn on 127.0.0.1.

Configuration (values already in the environment are kept, so each can be overridden):
  - graph store: GRAPH_DB_BACKEND=postgres ("PostgreSQL + pgvector", graph_dbs/postgres.py) on a
    private PostgreSQL from the `pgserver` package (its binaries bundle pgvector), data under
    <state>/pgdata, reached over its Unix socket (POSTGRES_HOST = the socket folder); the vendor's
    compose file runs Neo4j + Qdrant instead, which cannot run here (no Neo4j server);
  - users: MOS_USER_MANAGER_BACKEND=sqlite (the default), under MEMOS_BASE_PATH=<state>;
  - LLM (chat and mem reader), embedder, reranker as the vendor's docker/.env.example sets them:
    OPENAI_API_BASE / MEMRADER_API_BASE / MOS_EMBEDDER_API_BASE = the endpoint rawrag gives,
    MOS_CHAT_MODEL = MEMRADER_MODEL = gpt-4o-mini, MOS_EMBEDDER_BACKEND=universal_api with
    text-embedding-3-small (EMBEDDING_DIMENSION 1536), MOS_RERANKER_BACKEND=cosine_local;
  - no Redis (MEMSCHEDULER_USE_REDIS_QUEUE=false, as DEFAULT_USE_REDIS_QUEUE=false in the vendor's
    env), no internet search, preference memory off (it needs Milvus), FILE_LOCAL_PATH and the
    scheduler's temporary SQLite file (TMPDIR) under <state>.

The tokenizer: MemOS's mem reader builds a chonkie SentenceChunker with the tokenizer "gpt2"
(api/config.py, for documents; chat turns are windowed with tiktoken counts), which chonkie 1.x
fetches from the model hub (tokie, openai-community/gpt2): a download at start-up. This script hands
chonkie tiktoken's GPT-2 byte-pair encoding instead, built from the r50k_base ranks that rawrag seeds
into TIKTOKEN_CACHE_DIR (byte-identical to tiktoken's file, checked by tiktoken's own hash; tiktoken's
"gpt2" and "r50k_base" have the same ranks, pattern and special token): the same tokens, no download.

    python integrations/sidecars/memos.py --port 0 --state DIR
    (first line on stdout: `rawrag MemOS server listening on http://127.0.0.1:PORT (state DIR)`)
"""
from __future__ import annotations

import argparse
import os
import signal
import socket
import sys
import threading
import time
from importlib.metadata import version as package_version
from typing import Any

# Never import the `memos` package from this folder by accident.
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _HERE]

MODEL = "gpt-4o-mini"
EMBEDDING_MODEL = "text-embedding-3-small"
EMBEDDING_DIMENSION = "1536"


def free_port(host: str) -> int:
    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def start_postgres(state: str) -> Any:
    """pgserver's PostgreSQL (pgvector bundled) on <state>/pgdata; stopped when this process exits."""
    import pgserver

    return pgserver.get_server(os.path.join(state, "pgdata"), cleanup_mode="stop")


def stop_postgres(pg: Any) -> None:
    """Stops the PostgreSQL of this state folder now (pgserver's own stop at exit is skipped when an
    earlier process on the folder was killed, and rawrag kills this one 5 s after asking it to stop)."""
    from pgserver._commands import pg_ctl

    try:
        pg_ctl(["-w", "-m", "fast", "stop"], pgdata=pg.pgdata, user=pg.system_user)
    except Exception as e:  # already stopped
        print(f"memos.py: stopping PostgreSQL: {e}", file=sys.stderr, flush=True)


def configure(state: str, pg: Any) -> dict[str, str]:
    """The environment MemOS's API config reads (values already set are kept)."""
    info = pg.get_postmaster_info()
    endpoint = os.environ.get("OPENAI_API_BASE") or os.environ.get("OPENAI_BASE_URL") or ""
    key = os.environ.get("OPENAI_API_KEY", "")
    files = os.path.join(state, "files")
    tmp = os.path.join(state, "tmp")
    os.makedirs(files, exist_ok=True)
    os.makedirs(tmp, exist_ok=True)
    wanted = {
        "GRAPH_DB_BACKEND": "postgres",
        "POSTGRES_HOST": str(info.socket_dir) if info.socket_dir is not None else "127.0.0.1",
        "POSTGRES_PORT": str(info.port or 5432),
        "POSTGRES_USER": "postgres",
        "POSTGRES_PASSWORD": "",
        "POSTGRES_DB": "postgres",
        "MEMOS_SCHEMA": "memos",
        "MOS_USER_MANAGER_BACKEND": "sqlite",
        "MEMOS_BASE_PATH": state,
        "FILE_LOCAL_PATH": files,
        "TMPDIR": tmp,
        "OPENAI_API_BASE": endpoint,
        "MOS_CHAT_MODEL": MODEL,
        "MEMRADER_MODEL": MODEL,
        "MEMRADER_API_BASE": endpoint,
        "MEMRADER_API_KEY": key,
        "MOS_EMBEDDER_BACKEND": "universal_api",
        "MOS_EMBEDDER_PROVIDER": "openai",
        "MOS_EMBEDDER_MODEL": EMBEDDING_MODEL,
        "MOS_EMBEDDER_API_BASE": endpoint,
        "MOS_EMBEDDER_API_KEY": key,
        "EMBEDDING_DIMENSION": EMBEDDING_DIMENSION,
        "MOS_RERANKER_BACKEND": "cosine_local",
        "MOS_FEEDBACK_RERANKER_BACKEND": "cosine_local",
        "MEMSCHEDULER_USE_REDIS_QUEUE": "false",
        "DEFAULT_USE_REDIS_QUEUE": "false",
        "ENABLE_INTERNET": "false",
        "ENABLE_PREFERENCE_MEMORY": "false",
        "ENABLE_CHAT_API": "false",
    }
    for k, v in wanted.items():
        os.environ.setdefault(k, v)
    # An empty endpoint would send MemOS to its defaults (openai.com, dashscope): refuse instead.
    if not os.environ["OPENAI_API_BASE"]:
        raise SystemExit("memos.py: no OpenAI-compatible endpoint (OPENAI_API_BASE or OPENAI_BASE_URL)")
    return {k: os.environ[k] for k in wanted}


def vectors_as_lists(settings: dict[str, str]) -> None:
    """pgvector's `vector` read back as a list of floats in every psycopg2 connection of this process.

    MemOS's postgres backend selects the embedding column without registering pgvector's adapter
    (graph_dbs/postgres.py `_parse_row`), so psycopg2 hands back the text '[0.1,...]', and its fast
    search then fails on every query (retrieve/recall.py `_vector_recall`: TextualMemoryItem wants a
    list; the error is logged and the search answers no memories). This registers the reading
    pgvector's own Python package registers (without its numpy arrays, which the item refuses too).
    """
    import psycopg2
    import psycopg2.extensions as ext

    conn = psycopg2.connect(
        host=settings["POSTGRES_HOST"],
        port=settings["POSTGRES_PORT"],
        user=settings["POSTGRES_USER"],
        password=settings["POSTGRES_PASSWORD"],
        dbname=settings["POSTGRES_DB"],
    )
    try:
        conn.autocommit = True
        with conn.cursor() as cur:
            cur.execute("CREATE EXTENSION IF NOT EXISTS vector")
            cur.execute("SELECT oid FROM pg_type WHERE typname = 'vector'")
            oid = cur.fetchone()[0]
    finally:
        conn.close()

    def cast(value: Any, _cur: Any) -> Any:
        if value is None:
            return None
        inner = value.strip()[1:-1]
        return [float(x) for x in inner.split(",")] if inner else []

    ext.register_type(ext.new_type((oid,), "VECTOR_AS_LIST", cast))


def gpt2_from_seeded_ranks() -> None:
    """chonkie's "gpt2" tokenizer = tiktoken's GPT-2 encoding from the seeded r50k_base ranks (no hub download)."""
    import tiktoken
    import chonkie.tokenizer as chonkie_tokenizer

    r50k = tiktoken.get_encoding("r50k_base")  # TIKTOKEN_CACHE_DIR, seeded by rawrag: no download
    gpt2 = tiktoken.Encoding(
        name="gpt2",
        pat_str=r50k._pat_str,
        mergeable_ranks=r50k._mergeable_ranks,
        special_tokens=r50k._special_tokens,
    )
    from_string = chonkie_tokenizer._create_auto_tokenizer_from_string

    def create(name: str) -> Any:
        return chonkie_tokenizer.TiktokenAutoTokenizer(gpt2) if name == "gpt2" else from_string(name)

    chonkie_tokenizer._create_auto_tokenizer_from_string = create


def address_stream() -> Any:
    """stdout kept for the address line alone; everything else written to stdout (MemOS logs there) goes to stderr."""
    out = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return out


def serve(host: str, port: int, state: str, address_out: Any) -> None:
    import uvicorn

    os.chdir(state)  # MemOS's load_dotenv() reads a .env in the working folder: none here
    from memos.api.server_api import app  # builds every component (graph store, LLMs, scheduler) at import

    server = uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_level="warning", lifespan="on"))
    stopping = threading.Event()

    def stop(*_: Any) -> None:
        stopping.set()
        server.should_exit = True

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    thread = threading.Thread(target=server.run, name="uvicorn", daemon=True)
    thread.start()
    while not server.started:
        if not thread.is_alive():
            raise SystemExit("memos.py: MemOS's server stopped before it listened (its log is above)")
        time.sleep(0.05)
    print(f"rawrag MemOS server listening on http://{host}:{port} (state {state}; MemoryOS {package_version('MemoryOS')})", file=address_out, flush=True)
    while thread.is_alive() and not stopping.is_set():
        thread.join(0.5)
    server.should_exit = True
    thread.join(3)


def main() -> None:
    p = argparse.ArgumentParser(description="MemOS's own API server (memos.api.server_api:app) with embedded stores")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=0, help="0: a free port")
    p.add_argument("--state", required=True, help="folder of its stores (PostgreSQL data, users, files)")
    args = p.parse_args()
    address_out = address_stream()
    state = os.path.abspath(args.state)
    os.makedirs(state, exist_ok=True)
    pg = start_postgres(state)
    settings = configure(state, pg)
    print(f"memos.py: graph store postgres at {settings['POSTGRES_HOST']}:{settings['POSTGRES_PORT']}", file=sys.stderr, flush=True)
    try:
        vectors_as_lists(settings)
        gpt2_from_seeded_ranks()
        serve(args.host, args.port or free_port(args.host), state, address_out)
    finally:
        stop_postgres(pg)
    # MemOS's own shutdown (scheduler threads, RabbitMQ close) is not waited for: its stores are closed.
    os._exit(0)


if __name__ == "__main__":
    main()
