/** Builds provider clients from registry names, checking that each has an endpoint and a key. */
import { InputError } from '../util/errors.js';
import { ChatModel } from './chat.js';
import type { ProviderSession } from './session.js';

/** A chat model for the reader or judge; an InputError (before anything runs) when it cannot be reached. */
export function chatModel(session: ProviderSession, role: 'reader' | 'judge', name: string): ChatModel {
  const entry = session.model(name, role);
  const a = session.availability(entry, role);
  if (!a.ok) throw new InputError(a.reason, { place: `--${role}` });
  return new ChatModel(session, role, entry, a.endpoint);
}
