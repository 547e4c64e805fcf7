/**
 * Regex builtins on JS RegExp. Go's RE2 syntax is close for the common cases; RE2-only features
 * (e.g. `\z`, possessive differences) are not translated.
 */
import { builtinError } from '../errors.ts';
import { type BuiltinTable, int, str } from './types.ts';

function compile(pattern: string, flags = ''): RegExp {
  try {
    return new RegExp(pattern, `u${flags}`);
  } catch {
    throw builtinError(`error parsing regexp: invalid syntax: \`${pattern}\``);
  }
}

/** A template whose parts between the delimiters are regexes and the rest literal text. */
function templateRegex(name: string, template: string, open: string, close: string): RegExp {
  let out = '';
  let i = 0;
  while (i < template.length) {
    const start = template.indexOf(open, i);
    if (start < 0) {
      out += escapeLiteral(template.slice(i));
      break;
    }
    const end = template.indexOf(close, start + open.length);
    if (end < 0) throw builtinError(`${name}: unbalanced delimiters in template`);
    out += `${escapeLiteral(template.slice(i, start))}(?:${template.slice(start + open.length, end)})`;
    i = end + close.length;
  }
  return compile(`^${out}$`);
}

function escapeLiteral(s: string): string {
  return s.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');
}

export const regex: BuiltinTable = {
  'regex.template_match': {
    arity: 4,
    fn: (args, name) =>
      templateRegex(name, str(name, args, 0), str(name, args, 2), str(name, args, 3)).test(
        str(name, args, 1),
      ),
  },
  'regex.match': { arity: 2, fn: (args, name) => compile(str(name, args, 0)).test(str(name, args, 1)) },
  re_match: { arity: 2, fn: (args, name) => compile(str(name, args, 0)).test(str(name, args, 1)) },
  'regex.is_valid': {
    arity: 1,
    fn: ([p]) => {
      if (typeof p !== 'string') return false;
      try {
        new RegExp(p, 'u');
        return true;
      } catch {
        return false;
      }
    },
  },
  'regex.split': { arity: 2, fn: (args, name) => str(name, args, 1).split(compile(str(name, args, 0))) },
  'regex.replace': {
    arity: 3,
    fn: (args, name) =>
      str(name, args, 0).replace(
        compile(str(name, args, 1), 'g'),
        str(name, args, 2).replace(/\$\{?(\d+)\}?/g, '$$$1'),
      ),
  },
  'regex.find_n': {
    arity: 3,
    fn: (args, name) => {
      const n = int(name, args, 2);
      const all = [...str(name, args, 1).matchAll(compile(str(name, args, 0), 'g'))].map((m) => m[0]);
      return n < 0 ? all : all.slice(0, n);
    },
  },
  'regex.find_all_string_submatch_n': {
    arity: 3,
    fn: (args, name) => {
      const n = int(name, args, 2);
      const all = [...str(name, args, 1).matchAll(compile(str(name, args, 0), 'g'))].map((m) =>
        [...m].map((g) => g ?? ''),
      );
      return n < 0 ? all : all.slice(0, n);
    },
  },
};
