import { HttpError } from '../kit/index.ts';

/**
 * Builds Auth0's user search query (Lucene syntax, search engine v3) from the `GET /users` query
 * string, as auth0-client does: field clauses AND-ed, an `acl_rows` ACL AND-ed after them in
 * parentheses (3.2.0), and the connection clause last, AND-ed with the rest in parentheses
 * (3.1.1, 3.2.3). Every value is escaped; `*` is a wildcard (3.1.0).
 */

/** Query parameters that are search fields, besides every `app_metadata.*`. */
const FIELDS = new Set(['email', 'nickname', 'username']);
const APP_METADATA = /^app_metadata(?:\.[A-Za-z0-9_-]+)+$/;
/** Query parameters that are not search fields. */
const PAGING = new Set(['_l', '_sk', 'connection']);

// Lucene's reserved characters, whitespace included (a space would split the term).
const RESERVED = /[+\-&|!(){}[\]^"~?:\\/\s]/g;

/** One value: a quoted phrase, or, with `*`, an escaped term that keeps its wildcards. */
export function luceneValue(value: string): string {
  if (!value.includes('*')) return `"${value.replace(/["\\]/g, (char) => `\\${char}`)}"`;
  return value.replace(RESERVED, (char) => `\\${char}`);
}

function clause(field: string, values: readonly string[]): string {
  if (values.length === 1) return `${field}:${luceneValue(values[0]!)}`;
  return `${field}:(${values.map(luceneValue).join(' OR ')})`;
}

function checkedField(field: string): string {
  if (FIELDS.has(field) || APP_METADATA.test(field)) return field;
  throw new HttpError(400, `cannot search users by ${field}`);
}

/** A condition of an `acl_rows` ACL: a MongoDB-like filter of field equalities, `$in`, `$and`, `$or`. */
function aclClause(filter: unknown): string {
  if (filter === null || typeof filter !== 'object' || Array.isArray(filter)) {
    throw new HttpError(400, 'acl_rows must be a JSON object of conditions');
  }
  const parts = Object.entries(filter).map(([key, condition]) => {
    if (key === '$and' || key === '$or') {
      if (!Array.isArray(condition) || condition.length === 0) {
        throw new HttpError(400, `acl_rows: ${key} takes a non-empty array`);
      }
      return `(${condition.map(aclClause).join(key === '$and' ? ' AND ' : ' OR ')})`;
    }
    const field = checkedField(key);
    if (condition !== null && typeof condition === 'object' && !Array.isArray(condition)) {
      const operators = Object.entries(condition);
      return operators
        .map(([operator, operand]) => {
          if (operator === '$eq') return clause(field, [scalar(operand)]);
          if (operator === '$in' && Array.isArray(operand) && operand.length > 0) {
            return clause(field, operand.map(scalar));
          }
          throw new HttpError(400, `acl_rows: ${operator} is not supported on ${key}`);
        })
        .join(' AND ');
    }
    return clause(field, [scalar(condition)]);
  });
  if (parts.length === 0) throw new HttpError(400, 'acl_rows must hold at least one condition');
  return parts.length === 1 ? parts[0]! : `(${parts.join(' AND ')})`;
}

function scalar(value: unknown): string {
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
    return String(value);
  throw new HttpError(400, 'acl_rows: values must be strings, numbers or booleans');
}

export interface UserSearch {
  /** The query string, each parameter with all its values. */
  readonly query: Readonly<Record<string, readonly string[]>>;
  /** The `acl_rows` header, JSON, if any. */
  readonly aclRows: string | undefined;
  /** The management client's connections: those asked for must be among them; none asked: all. */
  readonly connections: readonly string[];
}

export function userSearchQuery({ query, aclRows, connections }: UserSearch): string {
  const clauses: string[] = [];
  for (const [name, values] of Object.entries(query)) {
    if (PAGING.has(name) || values.length === 0) continue;
    clauses.push(clause(checkedField(name), values));
  }
  let filters = clauses.join(' AND ');
  if (aclRows !== undefined && aclRows.trim() !== '') {
    let acl: unknown;
    try {
      acl = JSON.parse(aclRows);
    } catch {
      throw new HttpError(400, 'acl_rows is not JSON');
    }
    const condition = aclClause(acl);
    filters = filters === '' ? condition : `(${filters}) AND (${condition})`;
  }
  const asked = query.connection ?? [];
  for (const connection of asked) {
    if (!connections.includes(connection))
      throw new HttpError(400, `connection ${connection} is not supported`);
  }
  const chosen = asked.length > 0 ? [...new Set(asked)] : connections;
  if (chosen.length === 0) return filters;
  const connectionClause =
    chosen.length === 1
      ? clause('identities.connection', chosen)
      : `(${chosen.map((c) => clause('identities.connection', [c])).join(' OR ')})`;
  return filters === '' ? connectionClause : `(${filters}) AND ${connectionClause}`;
}
