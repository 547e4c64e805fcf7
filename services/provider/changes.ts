import type { ProviderView } from './stored-provider.ts';

/** A change of one provider in the engine's input format (engine/README.md, "Input messages"), without secrets. */
export interface ProviderChange {
  readonly key: { readonly tenantId: string; readonly providerId: string };
  readonly value: {
    readonly op: 'c' | 'u' | 'd';
    readonly before: ProviderView | null;
    readonly after: ProviderView | null;
  };
}

/** Where changes go; `publish` resolves once the change is acknowledged. */
export interface ChangePublisher {
  publish(change: ProviderChange): Promise<void>;
  close(): Promise<void>;
}
