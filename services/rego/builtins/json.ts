/** `json.filter`, `json.remove` and `json.patch` (RFC 6902) over Rego values. */
import { builtinError, typeError } from '../errors.ts';
import { compare, equal, RegoObject, RegoSet, type Value } from '../values.ts';
import { type BuiltinTable, mustBe, obj } from './types.ts';

/** Paths as segment lists: `"a/b/0"` strings or arrays of segments. */
function paths(name: string, operand: Value): Value[][] {
  const bad = () =>
    typeError(
      `${name}: operand 2 must be one of {set, array} containing string paths or array of path segments but got ${
        operand instanceof RegoObject ? 'object' : typeof operand
      }`,
    );
  if (!(Array.isArray(operand) || operand instanceof RegoSet)) throw bad();
  const items = Array.isArray(operand) ? operand : operand.sorted();
  return items.map((p) => {
    if (typeof p === 'string') return p.replace(/^\//, '').split('/').map(unescapePointer);
    if (Array.isArray(p)) return p;
    throw bad();
  });
}

function unescapePointer(s: string): string {
  return s.replace(/~1/g, '/').replace(/~0/g, '~');
}

/** Children of a value addressed by one segment (numeric strings index arrays). */
function child(v: Value, seg: Value): Value | undefined {
  if (v instanceof RegoObject) return v.get(seg);
  if (Array.isArray(v)) {
    const i =
      typeof seg === 'number'
        ? seg
        : typeof seg === 'string' && /^(0|[1-9]\d*)$/.test(seg)
          ? Number(seg)
          : -1;
    return v[i];
  }
  if (v instanceof RegoSet) return v.has(seg) ? seg : undefined;
  return undefined;
}

interface PathTree {
  leaf: boolean;
  children: Map<string, { seg: Value; tree: PathTree }>;
}

function treeOf(ps: Value[][]): PathTree {
  const root: PathTree = { leaf: false, children: new Map() };
  for (const p of ps) {
    let node = root;
    for (const seg of p) {
      const key = JSON.stringify([typeof seg, String(seg)]);
      let next = node.children.get(key);
      if (!next) {
        next = { seg, tree: { leaf: false, children: new Map() } };
        node.children.set(key, next);
      }
      node = next.tree;
    }
    node.leaf = true;
  }
  return root;
}

function filter(v: Value, tree: PathTree): Value | undefined {
  if (tree.leaf) return v;
  if (v instanceof RegoObject) {
    const out = new RegoObject();
    for (const { seg, tree: sub } of tree.children.values()) {
      const c = child(v, seg);
      if (c === undefined) continue;
      const key = v.has(seg) ? seg : String(seg);
      const f = filter(c, sub);
      if (f !== undefined) out.set(key, f);
    }
    return out;
  }
  if (Array.isArray(v)) {
    const keep: Value[] = [];
    v.forEach((item, i) => {
      const sub = [...tree.children.values()].find((c) => String(c.seg) === String(i));
      if (!sub) return;
      const f = filter(item, sub.tree);
      if (f !== undefined) keep.push(f);
    });
    return keep;
  }
  if (v instanceof RegoSet) {
    return new RegoSet([...tree.children.values()].map((c) => c.seg).filter((s) => v.has(s)));
  }
  return undefined;
}

function remove(v: Value, tree: PathTree): Value | undefined {
  if (tree.leaf) return undefined;
  if (v instanceof RegoObject) {
    const out = new RegoObject();
    for (const [k, c] of v.pairs()) {
      const sub = [...tree.children.values()].find((x) => equal(x.seg, k) || String(x.seg) === k);
      if (!sub) out.set(k, c);
      else {
        const r = remove(c, sub.tree);
        if (r !== undefined) out.set(k, r);
      }
    }
    return out;
  }
  if (Array.isArray(v)) {
    const out: Value[] = [];
    v.forEach((c, i) => {
      const sub = [...tree.children.values()].find((x) => String(x.seg) === String(i));
      if (!sub) out.push(c);
      else {
        const r = remove(c, sub.tree);
        if (r !== undefined) out.push(r);
      }
    });
    return out;
  }
  return v;
}

type PatchOp = { op: string; path: Value[]; from?: Value[]; value?: Value };

function pointer(v: Value | undefined): Value[] | undefined {
  if (typeof v === 'string') return v === '' ? [] : v.replace(/^\//, '').split('/').map(unescapePointer);
  if (Array.isArray(v)) return v;
  return undefined;
}

function getAt(doc: Value, path: Value[]): Value | undefined {
  let cur: Value | undefined = doc;
  for (const seg of path) {
    if (cur === undefined) return undefined;
    cur = child(cur, seg);
  }
  return cur;
}

function setAt(doc: Value, path: Value[], value: Value, insert: boolean): Value | undefined {
  if (path.length === 0) return value;
  const [seg, ...rest] = path;
  if (doc instanceof RegoObject) {
    if (rest.length > 0) {
      const c = doc.get(seg!);
      if (c === undefined) return undefined;
      const r = setAt(c, rest, value, insert);
      if (r === undefined) return undefined;
      const out = new RegoObject(doc.pairs());
      out.set(seg!, r);
      return out;
    }
    const out = new RegoObject(doc.pairs());
    out.set(seg!, value);
    return out;
  }
  if (Array.isArray(doc)) {
    const i =
      seg === '-'
        ? doc.length
        : typeof seg === 'number'
          ? seg
          : /^(0|[1-9]\d*)$/.test(String(seg))
            ? Number(seg)
            : -1;
    if (rest.length > 0) {
      if (i < 0 || i >= doc.length) return undefined;
      const r = setAt(doc[i]!, rest, value, insert);
      if (r === undefined) return undefined;
      return doc.map((x, j) => (j === i ? r : x));
    }
    if (i < 0 || i > doc.length || (!insert && i === doc.length)) return undefined;
    const out = [...doc];
    if (insert) out.splice(i, 0, value);
    else out[i] = value;
    return out;
  }
  if (doc instanceof RegoSet && rest.length === 0) return new RegoSet([...doc.values(), value]);
  return undefined;
}

function removeAt(doc: Value, path: Value[]): Value | undefined {
  if (path.length === 0) return undefined;
  const [seg, ...rest] = path;
  if (doc instanceof RegoObject) {
    const c = doc.get(seg!);
    if (c === undefined) return undefined;
    const out = new RegoObject(doc.pairs());
    if (rest.length === 0) out.delete(seg!);
    else {
      const r = removeAt(c, rest);
      if (r === undefined) return undefined;
      out.set(seg!, r);
    }
    return out;
  }
  if (Array.isArray(doc)) {
    const i = typeof seg === 'number' ? seg : /^(0|[1-9]\d*)$/.test(String(seg)) ? Number(seg) : -1;
    if (i < 0 || i >= doc.length) return undefined;
    if (rest.length === 0) return doc.filter((_, j) => j !== i);
    const r = removeAt(doc[i]!, rest);
    return r === undefined ? undefined : doc.map((x, j) => (j === i ? r : x));
  }
  if (doc instanceof RegoSet && rest.length === 0 && doc.has(seg!))
    return new RegoSet(doc.values().filter((x) => !equal(x, seg!)));
  return undefined;
}

function applyPatch(doc: Value, op: PatchOp): Value | undefined {
  switch (op.op) {
    case 'add':
      return setAt(doc, op.path, op.value!, true);
    case 'remove':
      return removeAt(doc, op.path);
    case 'replace':
      return getAt(doc, op.path) === undefined ? undefined : setAt(doc, op.path, op.value!, false);
    case 'move': {
      const v = getAt(doc, op.from!);
      if (v === undefined) return undefined;
      const removed = removeAt(doc, op.from!);
      return removed === undefined ? undefined : setAt(removed, op.path, v, true);
    }
    case 'copy': {
      const v = getAt(doc, op.from!);
      return v === undefined ? undefined : setAt(doc, op.path, v, true);
    }
    case 'test': {
      const v = getAt(doc, op.path);
      return v !== undefined && compare(v, op.value!) === 0 ? doc : undefined;
    }
    default:
      return undefined;
  }
}

export const json: BuiltinTable = {
  'json.filter': {
    arity: 2,
    fn: (args, name) => filter(obj(name, args, 0), treeOf(paths(name, args[1]!))) ?? new RegoObject(),
  },
  'json.remove': {
    arity: 2,
    fn: (args, name) => remove(obj(name, args, 0), treeOf(paths(name, args[1]!))) ?? new RegoObject(),
  },
  'json.patch': {
    arity: 2,
    fn: (args, name) => {
      mustBe(name, 1, args[1]!, 'array');
      let doc: Value | undefined = args[0]!;
      for (const raw of args[1] as Value[]) {
        if (!(raw instanceof RegoObject)) throw builtinError(`${name}: invalid patch operation`);
        const op = raw.get('op');
        const path = pointer(raw.get('path'));
        const from = pointer(raw.get('from'));
        const value = raw.get('value');
        const needsFrom = op === 'move' || op === 'copy';
        const needsValue = op === 'add' || op === 'replace' || op === 'test';
        if (
          typeof op !== 'string' ||
          path === undefined ||
          (needsFrom && !from) ||
          (needsValue && value === undefined)
        )
          throw builtinError(`${name}: invalid patch operation`);
        doc = applyPatch(doc, { op, path, from, value });
        if (doc === undefined) return undefined;
      }
      return doc;
    },
  },
};
