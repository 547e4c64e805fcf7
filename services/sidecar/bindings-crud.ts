/**
 * The bindings collection behind Mia-Platform's CRUD service, as Rönd's standalone routes use it
 * (through `go-crud-service-client`): list with `_q`/`_l`, create, delete many, patch in bulk.
 */
import { request } from 'undici';
import type { Binding } from './user-store.ts';

/** Rönd reads at most one page of bindings per revoke (its own TODO: no pagination). */
export const BINDINGS_PAGE_SIZE = 200;

export interface BindingPatch {
  readonly bindingId: string;
  readonly groups: readonly string[];
  readonly subjects: readonly string[];
}

export class CrudError extends Error {
  override readonly name = 'CrudError';
}

export class BindingsCrud {
  private readonly base: URL;

  constructor(baseUrl: string) {
    // Relative paths ("", "bulk") resolve under the collection's URL, as the Go JSON client does.
    this.base = new URL(baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);
  }

  list(query: object, headers: Record<string, string>): Promise<Binding[]> {
    return this.call('GET', '', { _l: String(BINDINGS_PAGE_SIZE), _q: JSON.stringify(query) }, headers);
  }

  /** The new document's `_id`. */
  async create(binding: Binding, headers: Record<string, string>): Promise<string> {
    const created = await this.call<{ _id?: string }>('POST', '', {}, headers, binding);
    return String(created._id ?? '');
  }

  deleteMany(query: object, headers: Record<string, string>): Promise<number> {
    return this.call('DELETE', '', { _q: JSON.stringify(query) }, headers);
  }

  patchBulk(patches: readonly BindingPatch[], headers: Record<string, string>): Promise<number> {
    const body = patches.map((p) => ({
      filter: { bindingId: p.bindingId },
      update: { $set: { groups: p.groups, subjects: p.subjects } },
    }));
    return this.call('PATCH', 'bulk', {}, headers, body);
  }

  private async call<T>(
    method: 'GET' | 'POST' | 'DELETE' | 'PATCH',
    path: string,
    query: Record<string, string>,
    headers: Record<string, string>,
    body?: unknown,
  ): Promise<T> {
    const url = new URL(path, this.base);
    for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
    const response = await request(url, {
      method,
      headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    }).catch((err: Error) => {
      throw new CrudError(`${method} ${url.pathname}: ${err.message}`);
    });
    const text = await response.body.text();
    if (response.statusCode >= 300)
      throw new CrudError(`${method} ${url.pathname}: status ${response.statusCode}`);
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new CrudError(`${method} ${url.pathname}: the answer is not JSON`);
    }
  }
}
