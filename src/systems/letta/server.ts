/**
 * What every mode's client of a Letta V1 server shares (client.ts: files; archival.ts: archival
 * memory): its JSON calls (the key as a Bearer token), the transport's retry policy, and the
 * health probe that reports the server's version.
 */
import type { RetryPolicy } from '../../providers/retry.js';
import { JsonService, type ServiceTransport } from '../memory-service/http.js';
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
}
