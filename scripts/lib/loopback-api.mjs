// A loopback OpenAI/Cohere protocol peer for documented examples (npm run docs:examples): the
// embeddings, chat and rerank routes rawrag calls, with deterministic answers. The reader knows
// nothing ("I do not know"); the judge says CORRECT when the answer contains the gold one. Its
// figures say nothing about real models; they show what rawrag prints.
import { createServer } from 'node:http';

const words = (s) => s.toLowerCase().match(/[a-z0-9]+/g) ?? [];

function vec(t) {
  const v = new Array(32).fill(0);
  for (const w of words(t)) v[[...w].reduce((h, c) => (h * 31 + c.charCodeAt(0)) >>> 0, 7) % 32] += 1;
  return v;
}

function chat(b) {
  const text = b.messages.map((m) => m.content).join('\n');
  const judged = /Gold answer: (.*)\nGenerated answer: ([\s\S]*?)\n\nFirst, provide/.exec(text);
  if (judged) return JSON.stringify({ label: judged[2].toLowerCase().includes(judged[1].toLowerCase().trim()) ? 'CORRECT' : 'WRONG' });
  return 'I do not know';
}

export async function startLoopbackApi() {
  const server = createServer(async (req, res) => {
    let body = '';
    for await (const c of req) body += c;
    const b = JSON.parse(body || 'null') ?? {};
    let out;
    if (req.url === '/v1/embeddings') {
      const inputs = Array.isArray(b.input) ? b.input : [b.input];
      out = {
        object: 'list',
        model: b.model,
        data: inputs.map((t, index) => ({ index, embedding: vec(t) })),
        usage: { prompt_tokens: inputs.reduce((s, t) => s + words(t).length, 0), total_tokens: 0 },
      };
    } else if (req.url === '/v2/rerank') {
      const q = new Set(words(b.query));
      const scored = b.documents.map((d, index) => ({
        index,
        relevance_score: words(d).filter((w) => q.has(w)).length / Math.max(1, words(d).length),
      }));
      scored.sort((x, y) => y.relevance_score - x.relevance_score || x.index - y.index);
      out = { results: scored.slice(0, b.top_n), meta: { billed_units: { search_units: Math.ceil(b.documents.length / 100) } } };
    } else if (req.url === '/v1/chat/completions') {
      const content = chat(b);
      const prompt = b.messages.reduce((s, m) => s + words(m.content).length, 0);
      out = {
        id: 'chatcmpl-loopback',
        object: 'chat.completion',
        created: 0,
        model: `${b.model}-loopback`,
        system_fingerprint: 'fp_loopback',
        choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content } }],
        usage: { prompt_tokens: prompt, completion_tokens: words(content).length },
      };
    } else {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `no route ${req.url}` } }));
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(out));
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((r) => server.close(() => r())) };
}
