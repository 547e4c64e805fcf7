import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv, type AnySchemaObject, type ValidateFunction } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsPlugin from 'ajv-formats';
import type { BodyValidator, ValidationResult } from './body-validator.ts';

/** A JSON Schema: a file path, a `file:`/`http(s):` URL, or the schema object itself. */
export type JsonSchemaSource = string | URL | AnySchemaObject;

// ajv-formats is CommonJS: under NodeNext its default import is the module object.
const addFormats = addFormatsPlugin as unknown as typeof addFormatsPlugin.default;

/**
 * Validates with ajv (all errors, formats). The schema is loaded and compiled once, on
 * `prepare()` or the first request; a failed load is retried on the next request.
 */
export function jsonSchemaValidator(source: JsonSchemaSource): BodyValidator {
  let compiled: Promise<ValidateFunction> | undefined;
  const load = (): Promise<ValidateFunction> => {
    compiled ??= loadSchema(source)
      .then(compile)
      .catch((error: unknown) => {
        compiled = undefined;
        throw new Error(`cannot load JSON Schema ${describe(source)}: ${(error as Error).message}`, {
          cause: error,
        });
      });
    return compiled;
  };
  return {
    prepare: async () => {
      await load();
    },
    async validate(body): Promise<ValidationResult> {
      const validate = await load();
      if (validate(body)) return { ok: true, value: body };
      return {
        ok: false,
        errors: (validate.errors ?? []).map((e) => ({
          path: e.instancePath || '/',
          message: e.message ?? e.keyword,
        })),
      };
    },
  };
}

async function loadSchema(source: JsonSchemaSource): Promise<AnySchemaObject> {
  if (typeof source === 'object' && !(source instanceof URL)) return source;
  const url = toUrl(source);
  const text =
    url.protocol === 'file:' ? await readFile(fileURLToPath(url), 'utf8') : await fetchText(url.toString());
  const schema: unknown = JSON.parse(text);
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    throw new Error('a JSON Schema must be an object');
  }
  return schema as AnySchemaObject;
}

function toUrl(source: string | URL): URL {
  if (source instanceof URL) return source;
  return /^(https?|file):/i.test(source) ? new URL(source) : new URL(`file://${resolve(source)}`);
}

async function fetchText(url: string): Promise<string> {
  const response = await fetch(url, { signal: AbortSignal.timeout(10_000) });
  if (!response.ok) throw new Error(`GET ${url} answered ${response.status}`);
  return response.text();
}

// One ajv instance per schema: two schemas may reuse an `$id` without clashing.
function compile(schema: AnySchemaObject): ValidateFunction {
  const dialect = String(schema.$schema ?? '');
  const options = { allErrors: true, strict: false };
  const ajv = dialect.includes('2020-12')
    ? new Ajv2020(options)
    : dialect.includes('2019-09')
      ? new Ajv2019(options)
      : new Ajv(options);
  addFormats(ajv);
  return ajv.compile(schema);
}

function describe(source: JsonSchemaSource): string {
  return typeof source === 'object' && !(source instanceof URL) ? '(inline)' : String(source);
}
