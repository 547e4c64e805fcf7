/**
 * The fake Auth0's reading of user search queries: the subset of Lucene the authentication
 * service writes (`field:"phrase"`, `field:term*` with backslash escapes, `field:(a OR b)`,
 * `AND`/`OR`, parentheses), evaluated against a user's searchable fields. A query outside the
 * subset throws, so a test sees a malformed query instead of a silent "no match".
 */

/** A user's searchable fields, e.g. `email`, `identities.connection`, `app_metadata.groups`. */
export type SearchFields = Readonly<Record<string, unknown>>;
type Matcher = (user: SearchFields) => boolean;

export function parseUserSearch(query: string): Matcher {
  let at = 0;
  const fail = (what: string): never => {
    throw new Error(`fake Auth0: bad Lucene query at ${at} (${what}): ${query}`);
  };
  const skipSpaces = () => {
    while (query[at] === ' ') at++;
  };
  const keyword = (word: string) => {
    skipSpaces();
    if (query.startsWith(`${word} `, at)) {
      at += word.length + 1;
      return true;
    }
    return false;
  };

  function value(): (candidate: string) => boolean {
    skipSpaces();
    if (query[at] === '"') {
      at++;
      let phrase = '';
      while (query[at] !== '"') {
        if (at >= query.length) fail('unterminated phrase');
        if (query[at] === '\\') at++;
        phrase += query[at++];
      }
      at++;
      return (candidate) => candidate === phrase;
    }
    let pattern = '';
    while (at < query.length && query[at] !== ' ' && query[at] !== ')') {
      if (query[at] === '\\') {
        at++;
        pattern += query[at]!.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
      } else if (query[at] === '*') pattern += '.*';
      else if (/[+\-&|!(){}[\]^"~?:/]/.test(query[at]!)) fail(`unescaped ${query[at]}`);
      else pattern += query[at]!.replace(/[.$]/g, '\\$&');
      at++;
    }
    if (pattern === '') fail('empty term');
    const regex = new RegExp(`^${pattern}$`);
    return (candidate) => regex.test(candidate);
  }

  function clause(): Matcher {
    skipSpaces();
    if (query[at] === '(') {
      at++;
      const inner = or();
      skipSpaces();
      if (query[at++] !== ')') fail('missing )');
      return inner;
    }
    const field = /^[A-Za-z0-9_.]+/.exec(query.slice(at))?.[0] ?? fail('field expected');
    at += field.length;
    if (query[at++] !== ':') fail(': expected');
    const values: Array<(candidate: string) => boolean> = [];
    if (query[at] === '(') {
      at++;
      do values.push(value());
      while (keyword('OR'));
      skipSpaces();
      if (query[at++] !== ')') fail('missing ) after values');
    } else values.push(value());
    return (user) => {
      const held = user[field];
      const candidates = (Array.isArray(held) ? held : [held]).filter((v) => v !== undefined).map(String);
      return candidates.some((candidate) => values.some((matches) => matches(candidate)));
    };
  }

  function and(): Matcher {
    const parts = [clause()];
    while (keyword('AND')) parts.push(clause());
    return (user) => parts.every((part) => part(user));
  }

  function or(): Matcher {
    const parts = [and()];
    while (keyword('OR')) parts.push(and());
    return (user) => parts.some((part) => part(user));
  }

  const matcher = or();
  skipSpaces();
  if (at !== query.length) fail('trailing text');
  return matcher;
}
