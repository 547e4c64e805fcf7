import { z } from 'zod';
import type { ProviderChange } from './changes.ts';
import type { Sealed } from './cipher.ts';
import {
  CAPABILITIES,
  type Capability,
  CREDENTIAL_TYPES,
  type CredentialType,
  PROVIDER_TYPES,
  type ProviderType,
} from './matrix.ts';

/** A change event value stored with the record it describes until the broker acknowledges it. */
export type PendingChange = ProviderChange['value'];

/**
 * The outbox of one record: changes written in the same MongoDB write as the change itself,
 * removed once the broker acknowledged them, so a change stored is never lost to the topic.
 */
export interface Outbox {
  /** Oldest first; absent when everything was acknowledged (or no topic is configured). */
  pendingChanges?: PendingChange[];
  /** When the oldest pending change was stored: the resend loop leaves younger ones to their request. */
  pendingSince?: Date;
}

/**
 * What is left of a deleted provider while its `d` change (and any before it) awaits the broker;
 * removed with its last pending change. Reads never see it.
 */
export interface DeletedProvider extends Outbox {
  tenantId: string;
  providerId: string;
  deleted: true;
  version: number;
}

/** A provider as stored: secrets only as {@link Sealed} ciphertext. */
export interface StoredProvider extends Outbox {
  tenantId: string;
  providerId: string;
  type: ProviderType;
  label?: string;
  description?: string;
  capabilities?: Capability[];
  urls: { base: string; apiBase: string };
  base64CA?: string;
  proxy?: { url: string; username?: string; password?: Sealed };
  credentials?: { type: CredentialType; expirationDate?: string; content: Sealed };
  /** Bumped by every update: a PATCH writes only over the version it read. */
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

/** What a read answers: no ciphertext, no proxy password, only the credentials' type and expiry. */
export const providerViewSchema = z.strictObject({
  tenantId: z.string(),
  providerId: z.string(),
  type: z.enum(PROVIDER_TYPES),
  label: z.string().optional(),
  description: z.string().optional(),
  capabilities: z.array(z.enum(CAPABILITIES)).optional(),
  urls: z.strictObject({ base: z.string(), apiBase: z.string() }),
  base64CA: z.string().optional(),
  proxy: z.strictObject({ url: z.string(), username: z.string().optional() }).optional(),
  credentials: z
    .strictObject({ type: z.enum(CREDENTIAL_TYPES), expirationDate: z.string().optional() })
    .optional(),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
});

export type ProviderView = z.output<typeof providerViewSchema>;

/** Builds the view field by field, so a field added to the stored document is not published by accident. */
export function toView(stored: StoredProvider): ProviderView {
  const { proxy, credentials } = stored;
  return omitUndefined({
    tenantId: stored.tenantId,
    providerId: stored.providerId,
    type: stored.type,
    label: stored.label,
    description: stored.description,
    capabilities: stored.capabilities,
    urls: { base: stored.urls.base, apiBase: stored.urls.apiBase },
    base64CA: stored.base64CA,
    proxy: proxy && omitUndefined({ url: proxy.url, username: proxy.username }),
    credentials:
      credentials && omitUndefined({ type: credentials.type, expirationDate: credentials.expirationDate }),
    createdAt: stored.createdAt.toISOString(),
    updatedAt: stored.updatedAt.toISOString(),
  });
}

function omitUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
