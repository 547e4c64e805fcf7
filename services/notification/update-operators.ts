import { HttpError } from '../kit/index.ts';

/**
 * The update operators of the platform CRUD's `PATCH /:id`, which the reference's PATCH routes
 * proxy ("This endpoint is a proxy to the `PATCH /:id` endpoint of the … CRUD").
 */
export const UPDATE_OPERATORS = [
  '$set',
  '$unset',
  '$inc',
  '$mul',
  '$currentDate',
  '$push',
  '$pull',
  '$addToSet',
] as const;
type Operator = (typeof UPDATE_OPERATORS)[number];

type Doc = Record<string, unknown>;

/** Path segments that would reach an object's prototype instead of a field. */
const FORBIDDEN_SEGMENTS = new Set(['__proto__', 'constructor', 'prototype']);

const isObject = (value: unknown): value is Doc =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The object holding the last segment of `path` in `doc`, created on the way when `create`. */
function parentOf(doc: Doc, path: string, create: boolean): [Doc | undefined, string] {
  const parts = path.split('.');
  const last = parts.pop() as string;
  let current: Doc | undefined = doc;
  for (const part of parts) {
    if (!current) break;
    if (!isObject(current[part])) {
      if (!create) return [undefined, last];
      current[part] = {};
    }
    current = current[part] as Doc;
  }
  return [current, last];
}

const numberAt = (doc: Doc, path: string, operator: Operator, operand: unknown): [Doc, string, number] => {
  if (typeof operand !== 'number') throw new HttpError(400, `${operator}.${path}: expected a number`);
  const [parent, key] = parentOf(doc, path, true) as [Doc, string];
  const current = parent[key] ?? 0;
  if (typeof current !== 'number') throw new HttpError(400, `${operator}.${path}: the field is not a number`);
  return [parent, key, current];
};

const arrayAt = (doc: Doc, path: string, operator: Operator): [Doc, string, unknown[]] => {
  const [parent, key] = parentOf(doc, path, true) as [Doc, string];
  const current = parent[key] ?? [];
  if (!Array.isArray(current)) throw new HttpError(400, `${operator}.${path}: the field is not an array`);
  return [parent, key, current];
};

/** `$push`/`$addToSet` take a value or `{$each: [...]}`. */
const eachOf = (operand: unknown): unknown[] =>
  isObject(operand) && Array.isArray(operand.$each) ? operand.$each : [operand];

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

function apply(doc: Doc, operator: Operator, path: string, operand: unknown, now: Date): void {
  switch (operator) {
    case '$set': {
      const [parent, key] = parentOf(doc, path, true) as [Doc, string];
      parent[key] = operand;
      return;
    }
    case '$unset': {
      const [parent, key] = parentOf(doc, path, false);
      if (parent) delete parent[key];
      return;
    }
    case '$inc': {
      const [parent, key, current] = numberAt(doc, path, operator, operand);
      parent[key] = current + (operand as number);
      return;
    }
    case '$mul': {
      const [parent, key, current] = numberAt(doc, path, operator, operand);
      parent[key] = current * (operand as number);
      return;
    }
    case '$currentDate': {
      const [parent, key] = parentOf(doc, path, true) as [Doc, string];
      parent[key] = now.toISOString();
      return;
    }
    case '$push': {
      const [parent, key, current] = arrayAt(doc, path, operator);
      parent[key] = [...current, ...eachOf(operand)];
      return;
    }
    case '$addToSet': {
      const [parent, key, current] = arrayAt(doc, path, operator);
      const added = [...current];
      for (const value of eachOf(operand)) if (!added.some((v) => same(v, value))) added.push(value);
      parent[key] = added;
      return;
    }
    case '$pull': {
      const [parent, key, current] = arrayAt(doc, path, operator);
      parent[key] = current.filter((v) => !same(v, operand));
      return;
    }
  }
}

/**
 * The document `stored` becomes under a CRUD PATCH body (`{"$set": {...}, "$unset": {...}, …}`),
 * `_id` untouched. A body with anything else — plain fields, an unknown operator, nothing to do —
 * answers 400: it is never a 200 that changed nothing.
 */
export function applyUpdate(stored: Doc, body: unknown, now = new Date()): Doc {
  if (!isObject(body)) throw new HttpError(400, 'the body must be an object of update operators');
  const unknown = Object.keys(body).filter((key) => !(UPDATE_OPERATORS as readonly string[]).includes(key));
  if (unknown.length > 0)
    throw new HttpError(
      400,
      `not update operators: ${unknown.join(', ')} (expected ${UPDATE_OPERATORS.join(', ')}, e.g. {"$set": {"channels": ["email"]}})`,
    );
  const updated = structuredClone(stored);
  let changes = 0;
  for (const operator of UPDATE_OPERATORS) {
    const fields = body[operator];
    if (fields === undefined) continue;
    if (!isObject(fields)) throw new HttpError(400, `${operator}: expected an object of fields`);
    for (const [path, operand] of Object.entries(fields)) {
      const segments = path.split('.');
      if (segments[0] === '_id') throw new HttpError(400, `${operator}._id: _id cannot change`);
      if (segments.some((segment) => segment === '' || FORBIDDEN_SEGMENTS.has(segment)))
        throw new HttpError(400, `${operator}.${path}: not a field path`);
      apply(updated, operator, path, operand, now);
      changes++;
    }
  }
  if (changes === 0) throw new HttpError(400, 'the update has no field to change');
  return updated;
}
