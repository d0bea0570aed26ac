/**
 * The per-library answering of the loopback OpenAI-compatible API (tests/helpers/fake-api.ts): one
 * small module per library in this folder (`<system>.ts`, exporting `responder`), loaded by
 * `loopbackResponders()` (index.ts) without a list to edit. A responder recognises its library's
 * own prompts and answers them in the form that library parses (its JSON keys, its tool calls), so
 * the library's own parsing and storage code runs; what no responder claims gets the server's
 * generic answer (schema-valid JSON when a schema is asked for).
 */
export interface LlmMessage {
  role: string;
  /** The message's text (content parts joined). */
  content: string;
}

/** A chat completion or a Responses API request, as a responder sees it. */
export interface LlmRequest {
  path: string;
  model: string;
  messages: LlmMessage[];
  /** The system (or developer, or `instructions`) text, and the last user text: what prompts are recognised by. */
  system: string;
  user: string;
  /** The request body as sent. */
  body: any;
}

export interface LlmAnswer {
  /** The reply text (JSON text where the library asked for JSON). */
  content?: string;
  /** Tool calls instead of (or with) text; `arguments` is serialised as JSON. */
  tool_calls?: Array<{ name: string; arguments: unknown }>;
}

export interface Responder {
  /** The library it answers for (recorded on each request it answered). */
  library: string;
  matches(req: LlmRequest): boolean;
  answer(req: LlmRequest): LlmAnswer | string;
}
