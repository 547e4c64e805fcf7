/**
 * `input.user`: id, groups and properties from the gateway's headers, and, when MongoDB is
 * configured, the user's bindings and roles in Rönd's RBAC data model.
 */
import type { Collection, Db } from 'mongodb';

export interface Binding {
  bindingId: string;
  groups?: string[];
  subjects?: string[];
  permissions?: string[];
  roles?: string[];
  resource?: { resourceType?: string; resourceId?: string };
}

export interface Role {
  roleId: string;
  name: string;
  permissions: string[];
}

export interface InputUser {
  id?: string;
  groups?: string[];
  properties?: Record<string, unknown>;
  bindings?: Binding[];
  roles?: Role[];
  resourcePermissionsMap?: Record<string, boolean>;
}

/** The gateway's user, before bindings and roles are added. */
export interface HeaderUser {
  readonly id: string;
  readonly groups: readonly string[];
  readonly properties: Record<string, unknown>;
}

export class UserPropertiesError extends Error {
  override readonly name = 'UserPropertiesError';
}

/** As Rönd: groups split on commas, properties a JSON object (bad JSON is an error, answered 500). */
export function userFromHeaders(id: string, groups: string, properties: string): HeaderUser {
  let parsed: unknown = {};
  if (properties !== '') {
    try {
      parsed = JSON.parse(properties);
    } catch (err) {
      throw new UserPropertiesError(`user properties header is not valid: ${(err as Error).message}`);
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
      throw new UserPropertiesError('user properties header is not valid: expected a JSON object');
  }
  return {
    id,
    groups: groups === '' ? [] : groups.split(','),
    properties: parsed as Record<string, unknown>,
  };
}

/** Only public documents count (the CRUD service's `__STATE__`), as in Rönd. */
const PUBLIC = { __STATE__: 'PUBLIC' };

export class UserStore {
  private readonly bindings: Collection;
  private readonly roles: Collection;

  constructor(db: Db, rolesCollection: string, bindingsCollection: string) {
    this.roles = db.collection(rolesCollection);
    this.bindings = db.collection(bindingsCollection);
  }

  /** Bindings naming the user or one of their groups, then the roles those bindings name. */
  async complete(user: HeaderUser): Promise<InputUser> {
    const base = inputUser(user);
    if (user.id === '') return base;
    const subjects: object[] = [{ subjects: { $elemMatch: { $eq: user.id } } }];
    if (user.groups.length > 0) subjects.push({ groups: { $elemMatch: { $in: [...user.groups] } } });
    const bindings = (await this.bindings
      .find({ $and: [{ $or: subjects }, PUBLIC] }, { projection: { _id: 0, __STATE__: 0 } })
      .toArray()) as unknown as Binding[];
    const roleIds = [...new Set(bindings.flatMap((b) => b.roles ?? []))];
    const roles = (await this.roles
      .find({ $and: [{ roleId: { $in: roleIds } }, PUBLIC] }, { projection: { _id: 0, __STATE__: 0 } })
      .toArray()) as unknown as Role[];
    if (bindings.length > 0) base.bindings = bindings;
    if (roles.length > 0) base.roles = roles;
    return base;
  }
}

/** Empty members are left out, as Rönd's JSON (`omitempty`) does. */
export function inputUser(user: HeaderUser): InputUser {
  const result: InputUser = {};
  if (user.id !== '') result.id = user.id;
  if (Object.keys(user.properties).length > 0) result.properties = user.properties;
  if (user.groups.length > 0) result.groups = [...user.groups];
  return result;
}

/**
 * Rönd's `resourcePermissionsMap`: `permission:resourceType:resourceId` → true for each binding
 * on a resource, through its roles' permissions and its own.
 */
export function withResourcePermissionsMap(user: InputUser): InputUser {
  const rolePermissions = new Map((user.roles ?? []).map((r) => [r.roleId, r.permissions ?? []]));
  const map: Record<string, boolean> = {};
  for (const binding of user.bindings ?? []) {
    const resource = binding.resource;
    if (!resource) continue;
    const permissions = [
      ...(binding.roles ?? []).flatMap((role) => rolePermissions.get(role) ?? []),
      ...(binding.permissions ?? []),
    ];
    for (const permission of permissions)
      map[`${permission}:${resource.resourceType ?? ''}:${resource.resourceId ?? ''}`] = true;
  }
  return Object.keys(map).length > 0 ? { ...user, resourcePermissionsMap: map } : user;
}
