/**
 * A fake Auth0 tenant on http://127.0.0.1:4010 for trying the authentication service locally
 * (services/auth/README.md): the clients of examples/auth/config.json and one user, ada/lovelace,
 * in the `Username-Password-Authentication` connection, member of the groups admin and dev.
 *
 *   node --import tsx examples/auth/fake-auth0.ts
 */
import { startFakeAuth0 } from '../../test/support/fake-auth0.ts';

const port = Number(process.env.FAKE_AUTH0_PORT ?? 4010);
const auth0 = await startFakeAuth0({
  port,
  clients: { 'web-client-id': 'web-client-secret', 'management-client-id': 'management-client-secret' },
});
auth0.addUser({
  sub: 'auth0|ada',
  username: 'ada',
  password: 'lovelace',
  connection: 'Username-Password-Authentication',
  email: 'ada@example.test',
  appMetadata: { groups: ['admin', 'dev'] },
  claims: {
    email: 'ada@example.test',
    'https://streamfold.example/app_metadata': { groups: ['admin', 'dev'] },
  },
});
process.stdout.write(`fake Auth0 on ${auth0.url} (user ada / lovelace); Ctrl-C stops it\n`);
process.once('SIGINT', () => void auth0.close().then(() => process.exit(0)));
process.once('SIGTERM', () => void auth0.close().then(() => process.exit(0)));
