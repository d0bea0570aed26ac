// A memory service for `rawrag run --system http -S url=http://127.0.0.1:8787`: rawrag's
// memory protocol v1 (docs/memory-services.md) over a toy in-memory store, one memory per turn,
// word-overlap search. Replace the four handlers' bodies with calls to your own memory system.
import { createServer } from 'node:http';

const owners = new Map(); // owner -> { memories: [], adds: Set<add_id> }
const ownerOf = (id) => owners.get(id) ?? owners.set(id, { memories: [], adds: new Set() }).get(id);
const words = (s) => new Set(s.toLowerCase().match(/[a-z0-9]+/g) ?? []);

const handlers = {
  add({ owner, add_id, messages, turn_ids, date }) {
    const o = ownerOf(owner);
    if (o.adds.has(add_id)) return { events: [] }; // already done: never add twice
    o.adds.add(add_id);
    const events = messages.map((m, i) => {
      const memory = { id: `${owner}/${o.memories.length}`, memory: m.content, date, turn_ids: [turn_ids[i]], add_id };
      o.memories.push(memory);
      return { id: memory.id, event: 'ADD', memory: memory.memory };
    });
    return { events };
  },
  search({ owner, query, limit }) {
    const q = words(query);
    const scored = ownerOf(owner).memories.map((m) => ({ ...m, score: [...words(m.memory)].filter((w) => q.has(w)).length }));
    return { results: scored.sort((a, b) => b.score - a.score).slice(0, limit) };
  },
  list: ({ owner }) => ({ memories: ownerOf(owner).memories }),
  delete({ owner }) {
    const deleted = ownerOf(owner).memories.length;
    owners.delete(owner);
    return { deleted };
  },
};

export function startShim(port = 8787) {
  const server = createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    const handler = req.method === 'POST' && handlers[req.url.slice(1)];
    const reply = handler ? handler(JSON.parse(body)) : { error: 'not found' };
    res.writeHead(handler ? 200 : 404, { 'content-type': 'application/json' }).end(JSON.stringify(reply));
  });
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(server)));
}

if (import.meta.url === `file://${process.argv[1]}`) startShim(Number(process.env.PORT ?? 8787));
