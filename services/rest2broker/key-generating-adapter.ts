import { createHash } from 'node:crypto';
import type { Adapter, AdapterResponse } from './adapter.ts';
import { type BrokerOptions, buildRecord } from './broker-options.ts';
import type { Rest2BrokerRequest } from './request.ts';

/**
 * Keys each record by the SHA-256 (hex) of the raw request body, produces the body as value
 * (the other broker options apply as given) and answers `{ "id": <that hash> }`, so identical
 * bodies land on the same key and partition.
 */
export class KeyGeneratingAdapterFromBody implements Adapter {
  constructor(private readonly options: BrokerOptions) {}

  async adapt(request: Rest2BrokerRequest): Promise<AdapterResponse> {
    const id = createHash('sha256').update(request.body).digest('hex');
    const record = await buildRecord(this.options, request, { key: id, value: request.body });
    return { record, response: { body: { id } } };
  }
}
