/**
 * The provider types and credential forms of the spec (part A), and which forms each provider
 * type supports. The body schemas and the PATCH check are built from this one table.
 */
export const PROVIDER_TYPES = ['gitlab', 'github', 'bitbucket', 'azure-devops', 'vault', 'jenkins'] as const;
export type ProviderType = (typeof PROVIDER_TYPES)[number];

export const CREDENTIAL_TYPES = ['token', 'userPass', 'm2m', 'client_credentials', 'github-app'] as const;
export type CredentialType = (typeof CREDENTIAL_TYPES)[number];

export const CAPABILITIES = ['git-provider', 'secret-manager', 'ci-cd-tool'] as const;
export type Capability = (typeof CAPABILITIES)[number];

/**
 * The spec's "supported credential types per provider type". `userPass` is in the schema but in
 * no row of that table; rejecting it everywhere would make a documented form unusable, so it is
 * accepted for every provider type (README, "Decisions").
 */
const SUPPORTED_BY: Readonly<Record<CredentialType, readonly ProviderType[]>> = {
  token: PROVIDER_TYPES,
  userPass: PROVIDER_TYPES,
  m2m: ['vault'],
  client_credentials: ['jenkins', 'azure-devops'],
  'github-app': ['github'],
};

/** The credential forms a provider type accepts, in {@link CREDENTIAL_TYPES} order. */
export function credentialTypesFor(providerType: ProviderType): CredentialType[] {
  return CREDENTIAL_TYPES.filter((credential) => SUPPORTED_BY[credential].includes(providerType));
}
