/**
 * Rönd's custom builtins `find_one(collection, query)` and `find_many(collection, query)`: MongoDB
 * lookups from a policy, on the sidecar's `MONGODB_URL` database.
 *
 * As Rönd: the query goes to the driver as written; documents come back as canonical Extended
 * JSON (Rönd's `bson.MarshalExtJSON(doc, canonical=true)`: `{"$oid": …}`, `{"$numberInt": "42"}`),
 * so a policy written for Rönd reads the same values; `find_one` answers `null` when nothing
 * matches; a failure (no MongoDB configured, a bad query, a broken connection) makes the call
 * undefined, so the policy is not satisfied (OPA's default for builtin errors, which Rönd keeps).
 */
import { BSON, type Db, type Document, type Filter } from 'mongodb';
import type { Logger } from 'pino';
import type { HostBuiltin } from '../rego/index.ts';

/** Keep BSON's types (Int32, Double, Long) so their Extended JSON is the one Rönd writes. */
const KEEP_TYPES = { promoteValues: false } as const;

export function mongoBuiltins(db: Db | undefined, logger: Logger): Record<string, HostBuiltin> {
  const lookup =
    <T>(name: string, run: (db: Db, collection: string, query: Filter<Document>) => Promise<T>) =>
    async ([collection, query]: unknown[]): Promise<T> => {
      try {
        if (!db) throw new Error('mongo client not set');
        if (typeof collection !== 'string') throw new Error('the collection name must be a string');
        if (typeof query !== 'object' || query === null || Array.isArray(query))
          throw new Error('the query must be an object');
        return await run(db, collection, query as Filter<Document>);
      } catch (err) {
        // The query is not logged: it is built from the request and may hold personal data.
        logger.warn(
          { builtin: name, collection, err: { message: (err as Error).message } },
          'policy lookup failed',
        );
        throw err;
      }
    };
  return {
    find_one: {
      arity: 2,
      callAsync: lookup('find_one', async (db, collection, query) => {
        const found = await db.collection(collection).findOne(query, KEEP_TYPES);
        return found === null ? null : extendedJson(found);
      }),
    },
    find_many: {
      arity: 2,
      callAsync: lookup('find_many', async (db, collection, query) =>
        (await db.collection(collection).find(query, KEEP_TYPES).toArray()).map(extendedJson),
      ),
    },
  };
}

function extendedJson(document: Document): unknown {
  return BSON.EJSON.serialize(document, { relaxed: false });
}
