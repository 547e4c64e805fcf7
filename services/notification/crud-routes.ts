import { randomUUID } from 'node:crypto';
import { Hono } from 'hono';
import type { Collection } from 'mongodb';
import { MongoServerError } from 'mongodb';
import { z } from 'zod';
import { HttpError } from '../kit/index.ts';
import { bodyOf, parsed } from './bodies.ts';
import type { Stored } from './store.ts';
import { applyUpdate } from './update-operators.ts';

export interface CrudOptions<Schema extends z.ZodObject> {
  readonly collection: Collection<Stored>;
  /** Validates a POST body, and the document a PATCH makes. */
  readonly schema: Schema;
  /** For messages: "event settings". */
  readonly what: string;
  /** The field a unique index guards: a duplicate answers 409 naming its value. */
  readonly uniqueField?: string;
  /** The listing's order. */
  readonly sortBy: string;
  /** Rules across fields or collections, on the document as it would be stored; throws an HttpError. */
  readonly check?: (doc: Record<string, unknown>) => Promise<void>;
}

const DUPLICATE_KEY = 11000;
const LIST_LIMIT = 200;

/**
 * The document a CRUD PATCH body (update operators) makes of `stored`, validated whole by `schema`
 * (a field the schema does not know is refused) and by `check`: 400 naming every problem.
 */
export async function patchedDocument(
  stored: Stored,
  body: unknown,
  schema: z.ZodObject,
  check?: (doc: Record<string, unknown>) => Promise<void>,
): Promise<Stored> {
  const { _id, ...fields } = applyUpdate(stored, body);
  const doc = { ...parsed(fields, schema.strict()), _id: stored._id } as Stored;
  await check?.(doc);
  return doc;
}

/**
 * What the reference proxies to its CRUD service, on a collection of our own: `GET /` (at most
 * 200, filtered by `?field=value` on the schema's top-level string fields), `GET /count` (same filters), `GET /:id`,
 * `POST /` (answers the new `_id`), `PATCH /:id` (the CRUD's update operators, answers the
 * document), `DELETE /:id` (204).
 */
export function crudRoutes<Schema extends z.ZodObject>(options: CrudOptions<Schema>): Hono {
  const { collection, schema, what, uniqueField, sortBy, check } = options;
  const fields = Object.keys(schema.shape);
  const filterOf = (query: Record<string, string>) =>
    Object.fromEntries(Object.entries(query).filter(([key]) => fields.includes(key)));

  const duplicate = (error: unknown, value: unknown) => {
    if (error instanceof MongoServerError && error.code === DUPLICATE_KEY) {
      return new HttpError(
        409,
        uniqueField
          ? `${what} with ${uniqueField} "${String(value)}" already exist`
          : `${what} already exist`,
      );
    }
    return error;
  };

  return new Hono()
    .get('/', async (c) => {
      return c.json(
        await collection
          .find(filterOf(c.req.query()))
          .sort({ [sortBy]: 1, _id: 1 })
          .limit(LIST_LIMIT)
          .toArray(),
      );
    })
    .get('/count', async (c) => c.json(await collection.countDocuments(filterOf(c.req.query()))))
    .get('/:id', async (c) => {
      const found = await collection.findOne({ _id: c.req.param('id') });
      if (!found) throw new HttpError(404, `${what} not found`);
      return c.json(found);
    })
    .post('/', async (c) => {
      const body = await bodyOf(c, schema);
      const doc = { ...body, _id: randomUUID() } as Stored;
      await check?.(doc);
      await collection.insertOne(doc).catch((error: unknown) => {
        throw duplicate(error, uniqueField && doc[uniqueField]);
      });
      return c.json({ _id: doc._id });
    })
    .patch('/:id', async (c) => {
      const body = await bodyOf(c, z.unknown());
      const stored = await collection.findOne({ _id: c.req.param('id') });
      if (!stored) throw new HttpError(404, `${what} not found`);
      const doc = await patchedDocument(stored, body, schema, check);
      const { matchedCount } = await collection.replaceOne({ _id: doc._id }, doc).catch((error: unknown) => {
        throw duplicate(error, uniqueField && doc[uniqueField]);
      });
      if (matchedCount === 0) throw new HttpError(404, `${what} not found`);
      return c.json(doc);
    })
    .delete('/:id', async (c) => {
      const { deletedCount } = await collection.deleteOne({ _id: c.req.param('id') });
      if (deletedCount === 0) throw new HttpError(404, `${what} not found`);
      return c.body(null, 204);
    });
}
