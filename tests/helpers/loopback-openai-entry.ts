/**
 * What scripts/loopback-openai.mjs loads (through Vite's module runner, which closes once this module
 * has run: every responder is imported here, at load).
 */
import { loopbackResponders } from './loopback-llm/index.js';

export { FakeApi } from './fake-api.js';
export const responders = await loopbackResponders();
