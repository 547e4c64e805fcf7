/**
 * A fake Auth0 tenant on http://127.0.0.1:4010 for trying the provider API locally behind the
 * authentication service configured by examples/auth/config.json (services/provider/README.md):
 * carol/manager-pw is in the group access_token_manager, ada/lovelace is not.
 *
 *   node --import tsx examples/provider/fake-auth0.ts
 */
import { startFakeAuth0 } from '../../test/support/fake-auth0.ts';

const NAMESPACE = 'https://streamfold.example/app_metadata';
const port = Number(process.env.FAKE_AUTH0_PORT ?? 4010);
const auth0 = await startFakeAuth0({
  port,
  clients: { 'web-client-id': 'web-client-secret', 'management-client-id': 'management-client-secret' },
});
for (const [username, password, groups] of [
  ['carol', 'manager-pw', ['dev', 'access_token_manager']],
  ['ada', 'lovelace', ['admin', 'dev']],
] as const) {
  auth0.addUser({
    sub: `auth0|${username}`,
    username,
    password,
    connection: 'Username-Password-Authentication',
    claims: { email: `${username}@example.test`, [NAMESPACE]: { groups } },
  });
}
process.stdout.write(
  `fake Auth0 on ${auth0.url} (carol / manager-pw: provider manager; ada / lovelace); Ctrl-C stops it\n`,
);
process.once('SIGINT', () => void auth0.close().then(() => process.exit(0)));
process.once('SIGTERM', () => void auth0.close().then(() => process.exit(0)));
