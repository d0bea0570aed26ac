"""
Mem0's open-source REST server, served over the real `mem0.Memory` (package `mem0ai`), for
`rawrag run ... --system mem0`. The server in Mem0's repository (server/main.py) is not part of the
`mem0ai` package and wants Postgres/pgvector and Neo4j; this script serves the same routes rawrag's
mem0 client calls, each one a direct call of the library, with embedded stores:

    POST   /memories   {messages, user_id, metadata?, prompt?, infer?}  -> Memory.add(...)   {"results": [...]}
    POST   /search     {query, filters: {user_id}, top_k?, threshold?}  -> Memory.search(...) {"results": [...]}
    GET    /memories?user_id=&top_k=                                    -> Memory.get_all(...) {"results": [...]}
    DELETE /memories?user_id=                                           -> Memory.delete_all(user_id=...)
    POST   /reset                                                       -> Memory.reset()
    GET    /                                                            -> {"server": ..., "mem0ai": version}

Stores (under --state): Qdrant in local mode (`<state>/qdrant`, on disk) and the SQLite history
(`<state>/history.db`); MEM0_DIR is the state folder too. The LLM and the embedder are Mem0's
`openai` providers, which read OPENAI_BASE_URL / OPENAI_API_KEY (any OpenAI-compatible endpoint).
Installed without mem0ai's [nlp] and [extras]: no spaCy (entity boosts off) and no fastembed (BM25
keyword search off), so the v3 hybrid score is the semantic part only; GET / says so.

    python integrations/sidecars/mem0.py --port 0 --state DIR
    (first line on stdout: `rawrag sidecar Mem0 listening on http://127.0.0.1:PORT (state DIR)`)

Standard library only besides mem0ai; requests are served one at a time (one Memory, one embedded
Qdrant), as the library is not safe to call from several threads on a local store.
"""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import threading
import traceback
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib.metadata import version as package_version
from typing import Any, Optional
from urllib.parse import parse_qs, urlparse

# This file is named like the library: its own folder must not shadow the `mem0` package.
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _HERE]

OFF = [
    "BM25 keyword search off (mem0ai installed without [extras]: no fastembed)",
    "entity boosts off (mem0ai installed without [nlp]: no spaCy)",
]


def build_memory(args: argparse.Namespace, state: str):
    os.environ.setdefault("MEM0_DIR", state)
    os.environ.setdefault("MEM0_TELEMETRY", "False")
    from mem0 import Memory  # imported after MEM0_DIR is set: the library reads it at import

    embedder: dict[str, Any] = {"model": args.embedding_model}
    if args.embedding_dims:
        embedder["embedding_dims"] = args.embedding_dims
    config = {
        "vector_store": {
            "provider": "qdrant",
            "config": {
                "collection_name": args.collection,
                "path": os.path.join(state, "qdrant"),
                "on_disk": True,
                "embedding_model_dims": args.embedding_dims or 1536,
            },
        },
        "llm": {"provider": "openai", "config": {"model": args.llm_model}},
        "embedder": {"provider": "openai", "config": embedder},
        "history_db_path": os.path.join(state, "history.db"),
    }
    return Memory.from_config(config)


class Server:
    def __init__(self, memory: Any):
        self.memory = memory
        self.lock = threading.Lock()

    def add(self, body: dict) -> dict:
        if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
            raise BadRequest("messages: a list of {role, content} is required")
        ids = {k: body.get(k) for k in ("user_id", "agent_id", "run_id") if body.get(k)}
        if not ids:
            raise BadRequest("At least one identifier (user_id, agent_id, run_id) is required.")
        params: dict[str, Any] = dict(ids)
        for k in ("metadata", "prompt", "infer", "memory_type"):
            if body.get(k) is not None:
                params[k] = body[k]
        messages = [{"role": m["role"], "content": m["content"]} for m in body["messages"]]
        with self.lock:
            return self.memory.add(messages, **params)

    def search(self, body: dict) -> dict:
        if not isinstance(body, dict) or not isinstance(body.get("query"), str):
            raise BadRequest("query: a string is required")
        filters = dict(body.get("filters") or {})
        for k in ("user_id", "agent_id", "run_id"):
            if body.get(k):
                filters[k] = body[k]
        params: dict[str, Any] = {"filters": filters}
        for k in ("top_k", "threshold", "rerank"):
            if body.get(k) is not None:
                params[k] = body[k]
        with self.lock:
            return self.memory.search(body["query"], **params)

    def get_all(self, query: dict) -> dict:
        filters = {k: query[k] for k in ("user_id", "agent_id", "run_id") if query.get(k)}
        if not filters:
            raise BadRequest("At least one identifier is required.")
        top_k = int(query.get("top_k") or 100)
        with self.lock:
            return self.memory.get_all(filters=filters, top_k=top_k)

    def delete_all(self, query: dict) -> dict:
        ids = {k: query[k] for k in ("user_id", "agent_id", "run_id") if query.get(k)}
        if not ids:
            raise BadRequest("At least one identifier is required.")
        with self.lock:
            self.memory.delete_all(**ids)
        return {"message": "All relevant memories deleted"}

    def reset(self) -> dict:
        with self.lock:
            self.memory.reset()
        return {"message": "All memories reset"}


class BadRequest(Exception):
    pass


def handler(server: Server, key: Optional[str]):
    about = {"server": "rawrag's Mem0 REST sidecar over mem0.Memory", "mem0ai": package_version("mem0ai"), "off": OFF}

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, fmt: str, *args: Any) -> None:
            pass

        def _reply(self, status: int, value: Any) -> None:
            data = json.dumps(value, ensure_ascii=False, default=str).encode("utf-8")
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _body(self) -> Any:
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length) if length else b""
            return json.loads(raw or b"null")

        def _serve(self, method: str) -> None:
            url = urlparse(self.path)
            query = {k: v[0] for k, v in parse_qs(url.query).items()}
            if method == "GET" and url.path == "/":
                return self._reply(200, about)
            if key and self.headers.get("x-api-key") != key:
                return self._reply(401, {"detail": "missing or wrong X-API-Key"})
            routes = {
                ("POST", "/memories"): lambda: server.add(self._body()),
                ("POST", "/search"): lambda: server.search(self._body()),
                ("GET", "/memories"): lambda: server.get_all(query),
                ("DELETE", "/memories"): lambda: server.delete_all(query),
                ("POST", "/reset"): lambda: server.reset(),
            }
            route = routes.get((method, url.path))
            if route is None:
                return self._reply(404, {"detail": "Not Found"})
            try:
                self._reply(200, route())
            except (BadRequest, ValueError) as e:
                self._reply(400, {"detail": str(e)})
            except Exception as e:
                traceback.print_exc(file=sys.stderr)
                self._reply(500, {"detail": f"{type(e).__name__}: {e}"})

        def do_GET(self) -> None:
            self._serve("GET")

        def do_POST(self) -> None:
            self._serve("POST")

        def do_DELETE(self) -> None:
            self._serve("DELETE")

    return Handler


def main(argv: Optional[list[str]] = None) -> None:
    p = argparse.ArgumentParser(prog="mem0.py", description="Mem0's REST routes over mem0.Memory (rawrag's sidecar)")
    p.add_argument("--port", type=int, default=8888, help="port on 127.0.0.1 (0: a free one, printed on the first line)")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--state", required=True, help="folder of the embedded Qdrant store and the history database")
    p.add_argument("--llm-model", default="gpt-4o-mini", help="Mem0's LLM (its LoCoMo evaluation used gpt-4o-mini)")
    p.add_argument("--embedding-model", default="text-embedding-3-small", help="Mem0's embedder (its default)")
    p.add_argument("--embedding-dims", type=int, default=None, help="sent as `dimensions` when set (Mem0 sends none by default)")
    p.add_argument("--collection", default="mem0")
    p.add_argument("--key-env", default="MEM0_API_KEY", help="environment variable of the X-API-Key rawrag sends (unset: none needed)")
    args = p.parse_args(argv)
    state = os.path.abspath(args.state)
    os.makedirs(state, exist_ok=True)
    stdout = sys.stdout
    with contextlib.redirect_stdout(sys.stderr):
        memory = build_memory(args, state)
        httpd = ThreadingHTTPServer((args.host, args.port), handler(Server(memory), os.environ.get(args.key_env) or None))
        httpd.daemon_threads = True
    port = httpd.server_address[1]
    stdout.write(f"rawrag sidecar Mem0 listening on http://{args.host}:{port} (state {state})\n")
    stdout.flush()
    sys.stdout = sys.stderr
    print(f"mem0ai {package_version('mem0ai')}; " + "; ".join(OFF), file=sys.stderr)
    try:
        httpd.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        httpd.server_close()


if __name__ == "__main__":
    main()
