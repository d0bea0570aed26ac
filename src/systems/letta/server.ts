/**
 * What every mode's client of a Letta V1 server shares (client.ts: files; archival.ts: archival
 * memory): its JSON calls (the key as a Bearer token), the transport's retry policy, the health
 * probe that reports the server's version, and a DELETE that takes a 404 as already done.
 */
import type { RetryPolicy } from '../../providers/retry.js';
import { JsonService, statusOf, type ServiceTransport } from '../memory-service/http.js';
import type { ServiceProbe } from '../memory-service/service.js';
import type { LettaOptions } from './client.js';

export abstract class LettaServer {
  readonly system = 'Letta';
  protected readonly http: JsonService;

  constructor(
    readonly url: string,
    protected readonly opts: LettaOptions,
    key: string | undefined,
    protected readonly transport: ServiceTransport,
  ) {
    this.http = new JsonService(url, key ? { authorization: `Bearer ${key}` } : {}, transport, 'letta');
  }

  get retry(): RetryPolicy {
    return this.transport.retry;
  }

  async probe(): Promise<ServiceProbe> {
    const h = await this.http.request<{ version?: unknown }>({ method: 'GET', path: '/v1/health/' });
    return { version: typeof h?.version === 'string' ? h.version : null };
  }

  /** A DELETE; false when the server no longer has it (404: deleted before, by a lost reply's retry or by hand). */
  protected async remove(path: string): Promise<boolean> {
    try {
      await this.http.request({ method: 'DELETE', path });
      return true;
    } catch (e) {
      if (statusOf(e) === 404) return false;
      throw e;
    }
  }
}
