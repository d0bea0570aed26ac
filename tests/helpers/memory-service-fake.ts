/**
 * What every loopback memory service of the tests shares (Mem0, rawrag's own protocol, MemMachine,
 * EverMemOS, MemOS, MemU, the sidecars' stand-ins): the faults a service can show beyond the common
 * ones — `reset-after` (the add is done, then the connection dropped: the reply is lost), `torn`
 * (the add is done, then a 200 whose JSON is cut in half) — a record of every add the service
 * performed (so a test sees an add applied twice), and what it holds now. Each peer routes its own
 * API, written from the upstream source, validating bodies as upstream does.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { LoopbackServer, type CommonFaultKind, type Fault, type RecordedRequest } from './loopback-server.js';

export type ServiceFaultKind = CommonFaultKind | 'reset-after' | 'torn';
export type ServiceFault = Fault<ServiceFaultKind>;

export abstract class MemoryServiceFake extends LoopbackServer<ServiceFaultKind> {
  /**
   * Every add the service performed, as `<owner> <what was added>` (the owner as the service names
   * it, the content as it received it): the same entry twice means an add was applied twice.
   */
  readonly applied: string[] = [];
  /** Searches answer nothing (a wrong owner field or version looks like this): the empty-search warning's case. */
  blindSearch = false;

  /** Whether `r` is an add (what fault injection and the suite count as one). */
  abstract isAdd(r: RecordedRequest): boolean;
  /** Memories the service holds now, over every owner. */
  abstract totalHeld(): number;
  /** [status, JSON body] for a request no fault ended; record performed adds in `applied`. */
  protected abstract route(r: RecordedRequest): [number, unknown] | Promise<[number, unknown]>;

  adds(): RecordedRequest[] {
    return this.requests.filter((r) => this.isAdd(r) && r.fault === null);
  }

  /** Entries of `applied` seen more than once. */
  appliedTwice(): string[] {
    const seen = new Set<string>();
    return this.applied.filter((a) => (seen.has(a) ? true : (seen.add(a), false)));
  }

  protected errorBody(status: number | undefined): unknown {
    return { detail: `injected ${status}` };
  }

  protected async respond(rec: RecordedRequest, req: IncomingMessage, res: ServerResponse, fault: ServiceFault | null): Promise<void> {
    const [status, reply] = await this.route(rec);
    if (fault?.kind === 'reset-after') return void req.socket.destroy();
    const text = reply === undefined ? '' : JSON.stringify(reply);
    res.writeHead(status, { 'content-type': 'application/json' });
    // A torn reply: the work is done, the 200's body cut in half (a proxy or a crash mid-write).
    res.end(fault?.kind === 'torn' ? text.slice(0, Math.max(1, Math.floor(text.length / 2))) : text);
  }
}
