/**
 * `glob.match` with the semantics of gobwas/glob (OPA's library): `*` stops at delimiters, `**`
 * does not, `?` is one non-delimiter character, `[…]`/`[!…]` classes, `{a,b}` alternatives and
 * `\` escapes. Delimiters `[]` mean the default `["."]`, `null` means none.
 */
import { builtinError } from '../errors.ts';
import type { Value } from '../values.ts';
import { type BuiltinTable, mustBe, str } from './types.ts';

const cache = new Map<string, RegExp>();

function escapeRegex(s: string): string {
  return s.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');
}

function translate(pattern: string, delimiters: string[]): RegExp {
  const notDelim = delimiters.length === 0 ? '[^]' : `[^${delimiters.map(escapeRegex).join('')}]`;
  let i = 0;
  const alternatives = (stopAt: string): string => {
    let out = '';
    while (i < pattern.length) {
      const c = pattern[i]!;
      if (stopAt.includes(c)) return out;
      i++;
      if (c === '\\') {
        if (i >= pattern.length) throw builtinError('glob.match: unexpected end of pattern');
        out += escapeRegex(pattern[i++]!);
      } else if (c === '*') {
        if (pattern[i] === '*') {
          while (pattern[i] === '*') i++;
          out += '[^]*';
        } else out += `${notDelim}*`;
      } else if (c === '?') {
        out += notDelim;
      } else if (c === '[') {
        const end = pattern.indexOf(']', i);
        if (end < 0) throw builtinError('glob.match: unclosed character class');
        let body = pattern.slice(i, end);
        i = end + 1;
        const negated = body.startsWith('!');
        if (negated) body = body.slice(1);
        out += `[${negated ? '^' : ''}${body.replace(/[\\\]^]/g, '\\$&')}]`;
      } else if (c === '{') {
        const alts: string[] = [];
        for (;;) {
          alts.push(alternatives(',}'));
          const d = pattern[i++];
          if (d === '}') break;
          if (d !== ',') throw builtinError('glob.match: unclosed alternatives');
        }
        out += `(?:${alts.join('|')})`;
      } else {
        out += escapeRegex(c);
      }
    }
    return out;
  };
  return new RegExp(`^${alternatives('')}$`, 'u');
}

export const glob: BuiltinTable = {
  'glob.match': {
    arity: 3,
    fn: (args, name) => {
      const pattern = str(name, args, 0);
      const delimArg = args[1]!;
      mustBe(name, 1, delimArg, 'array', 'null');
      let delimiters = delimArg === null ? [] : (delimArg as Value[]).map((d) => String(d));
      if (delimArg !== null && delimiters.length === 0) delimiters = ['.'];
      const subject = str(name, args, 2);
      const key = `${pattern}\u0000${delimiters.join('\u0000')}`;
      let re = cache.get(key);
      if (!re) {
        re = translate(pattern, delimiters);
        cache.set(key, re);
      }
      return re.test(subject);
    },
  },
  'glob.quote_meta': { arity: 1, fn: (args, name) => str(name, args, 0).replace(/[*?\\[\]{}]/g, '\\$&') },
};
