/**
 * Rönd's RBAC data model: `input.user.bindings` and `input.user.roles` read from MongoDB
 * (only `__STATE__: PUBLIC` documents), and readiness that depends on MongoDB answering.
 */
import * as assert from 'node:assert/strict';
import { test } from '../../support/suite.ts';
import {
  mongoEnv,
  type OnMongo,
  type Running,
  startOnMongo,
  startWith,
  UNREACHABLE_MONGODB_URL,
  type Upstream,
} from './harness.ts';

let upstream: Upstream;
let sidecar: Running;
let setup: OnMongo;

test.before(async () => {
  setup = await startOnMongo({
    bindings: [
      { bindingId: 'b1', subjects: ['alice'], roles: ['reader'], __STATE__: 'PUBLIC' },
      { bindingId: 'b2', groups: ['sales'], roles: ['reader'], __STATE__: 'PUBLIC' },
      { bindingId: 'b3', subjects: ['carol'], roles: ['reader'], __STATE__: 'DRAFT' },
      { bindingId: 'b4', subjects: ['dave'], roles: ['writer'], __STATE__: 'PUBLIC' },
      { bindingId: 'b5', subjects: ['erin'], roles: ['hidden-reader'], __STATE__: 'PUBLIC' },
      {
        bindingId: 'b6',
        subjects: ['frank'],
        roles: ['reader'],
        resource: { resourceType: 'project', resourceId: 'p1' },
        __STATE__: 'PUBLIC',
      },
      {
        bindingId: 'b7',
        subjects: ['gina'],
        permissions: ['orders.read'],
        resource: { resourceType: 'project', resourceId: 'p2' },
        __STATE__: 'PUBLIC',
      },
    ],
    roles: [
      { roleId: 'reader', name: 'Reader', permissions: ['orders.read'], __STATE__: 'PUBLIC' },
      { roleId: 'writer', name: 'Writer', permissions: ['orders.write'], __STATE__: 'PUBLIC' },
      { roleId: 'hidden-reader', name: 'Hidden', permissions: ['orders.read'], __STATE__: 'TRASH' },
    ],
  });
  ({ upstream, sidecar } = setup);
});

test.after(() => setup?.close());

const status = async (headers: Record<string, string>) =>
  (await fetch(`${sidecar.base}/bound`, { headers })).status;

// Rönd inputuser tests: bindings by subject or by group, roles by the bindings' role ids.
test('a binding naming the user, or one of their groups, grants the role permissions', async () => {
  assert.equal(await status({ miauserid: 'alice' }), 200);
  assert.equal(await status({ miauserid: 'bob', miausergroups: 'guests,sales' }), 200);
  assert.equal(await status({ miauserid: 'bob', miausergroups: 'guests' }), 403);
});

test('only PUBLIC bindings and roles count; a role without the permission denies', async () => {
  assert.equal(await status({ miauserid: 'carol' }), 403);
  assert.equal(await status({ miauserid: 'erin' }), 403);
  assert.equal(await status({ miauserid: 'dave' }), 403);
});

// Rönd inputuser.Get: no user id, no lookup (the group binding is not read either).
test('without a user id no bindings are read', async () => {
  assert.equal(await status({ miausergroups: 'sales' }), 403);
});

// Rönd input_test "buildOptimizedResourcePermissionsMap": role and binding permissions per resource.
test('enableResourcePermissionsMapOptimization: permission:type:id keys from roles and bindings', async () => {
  const project = async (id: string, user: string) =>
    (await fetch(`${sidecar.base}/projects/${id}`, { headers: { miauserid: user } })).status;
  assert.equal(await project('p1', 'frank'), 200);
  assert.equal(await project('p2', 'frank'), 403);
  assert.equal(await project('p2', 'gina'), 200);
  assert.equal(await project('p1', 'alice'), 403);
});

test('ready while MongoDB answers', async () => {
  const ready = await fetch(`${sidecar.base}/-/rbac-ready`);
  assert.equal(ready.status, 200);
});

// Rönd handler_test "fails when bindings cannot be retrieved": 500; readiness follows MongoDB.
test('MongoDB unreachable: 500 failed to get input user, and not ready', async () => {
  const dead = await startWith({ TARGET_SERVICE_HOST: upstream.host, ...mongoEnv(UNREACHABLE_MONGODB_URL) });
  try {
    const before = upstream.received.length;
    const response = await fetch(`${dead.base}/bound`, { headers: { miauserid: 'alice' } });
    assert.equal(response.status, 500);
    assert.equal(
      await response.text(),
      '{"error":"failed to get input user","message":"Internal server error, please try again later","statusCode":500}',
    );
    assert.equal(upstream.received.length, before);
    assert.equal((await fetch(`${dead.base}/-/rbac-ready`)).status, 503);
    // a request without a user id needs no lookup
    assert.equal((await fetch(`${dead.base}/open`)).status, 200);
  } finally {
    await dead.close();
  }
});

test.run();
