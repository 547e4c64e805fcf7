import type { z } from 'zod';
import { fieldOf } from '../../operators/record/json.ts';
import { REDACTED } from './errors.ts';
import type { JsonPath } from './json-path.ts';
import { secretSchema } from './secret.ts';

type Schema = z.core.$ZodType;

/** The parts of zod's schema definitions needed to follow a path through a schema. */
interface SchemaDef {
  type: string;
  innerType?: Schema;
  shape?: Record<string, Schema>;
  catchall?: Schema;
  valueType?: Schema;
  element?: Schema;
  items?: Schema[];
  rest?: Schema | null;
  options?: Schema[];
  in?: Schema;
  getter?: () => Schema;
}

const WRAPPERS = new Set(['optional', 'nullable', 'default', 'prefault', 'readonly', 'nonoptional', 'catch']);

function definition(schema: Schema): SchemaDef {
  return schema._zod.def as unknown as SchemaDef;
}

function childSchemas(schema: Schema, segment: string | number): Schema[] {
  const def = definition(schema);
  if (def.innerType && WRAPPERS.has(def.type)) return childSchemas(def.innerType, segment);
  switch (def.type) {
    case 'lazy':
      return def.getter ? childSchemas(def.getter(), segment) : [];
    case 'pipe':
      return def.in ? childSchemas(def.in, segment) : [];
    case 'union':
      return (def.options ?? []).flatMap((option) => [option, ...childSchemas(option, segment)]);
    default:
      return [schema];
  }
}

function step(schema: Schema, segment: string | number): Schema | undefined {
  const def = definition(schema);
  switch (def.type) {
    case 'object':
      return (def.shape && fieldOf(def.shape, segment)) ?? def.catchall;
    case 'record':
      return def.valueType;
    case 'array':
      return def.element;
    case 'tuple':
      return typeof segment === 'number' ? (def.items?.[segment] ?? def.rest ?? undefined) : undefined;
    default:
      return undefined;
  }
}

/** The concrete schemas (wrappers, unions and lazies resolved) that can describe the value at `path`. */
function schemasAt(schema: Schema, path: JsonPath): Schema[] {
  if (path.length === 0) return childSchemas(schema, '');
  const [segment, ...rest] = path as [string | number, ...(string | number)[]];
  return childSchemas(schema, segment).flatMap((candidate) => {
    const next = step(candidate, segment);
    return next === undefined ? [] : schemasAt(next, rest);
  });
}

/** Whether the value at `path` is (inside) a Secret-typed field of `schema`. */
export function isSecretPath(schema: Schema, path: JsonPath): boolean {
  if (schema === secretSchema) return true;
  if (path.length === 0) return false;
  const [segment, ...rest] = path as [string | number, ...(string | number)[]];
  return childSchemas(schema, segment).some((candidate) => {
    if (candidate === secretSchema) return true;
    const next = step(candidate, segment);
    return next !== undefined && isSecretPath(next, rest);
  });
}

/** Whether a direct member of the object expected at `path` is a Secret (e.g. a property map). */
function holdsSecrets(schema: Schema, path: JsonPath): boolean {
  return schemasAt(schema, path).some((candidate) => {
    const def = definition(candidate);
    const members = [...Object.values(def.shape ?? {}), def.catchall, def.valueType];
    return members.includes(secretSchema);
  });
}

/**
 * A copy of `value` (found at `path`) whose Secret-typed parts are replaced by `<redacted>`. A
 * scalar given where an object holding Secrets belongs is redacted too: it is likely a credential
 * put one level too high.
 */
export function redactValue(schema: Schema, path: JsonPath, value: unknown): unknown {
  if (isSecretPath(schema, path)) return REDACTED;
  if (Array.isArray(value)) return value.map((item, index) => redactValue(schema, [...path, index], item));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, redactValue(schema, [...path, key], item)]),
    );
  }
  return holdsSecrets(schema, path) ? REDACTED : value;
}
