/**
 * Renders an edge filter as text, read as `engine.md` §3 says: a comparison
 * `{"$op": [{foreign: F}, R]}` reads `R <op> child.F`, `local` paths belong to the parent.
 */
import type { ComparisonOperator, DownwardRight, FieldPath, GenericFilter } from './ast.ts';
import { isLocalFilter } from './ast.ts';

export interface FilterDescription {
  /** `customers.id = orders.customerId` */
  sentence: string;
  /** The children of one parent record: `orders where orders.customerId = <customers.id>` */
  down: string;
  /** The parents of one child record: `customers where customers.id = <orders.customerId>` */
  up: string;
}

/** How one rendering names the two sides and which side it writes first. */
interface Style {
  parentRef(path: FieldPath): string;
  childRef(path: FieldPath): string;
  childFirst: boolean;
}

/** `R op F` and, for the child-first reading, the same relation written `F op' R`. */
const OPERATORS: Record<ComparisonOperator, { parentFirst: string; childFirst: string; size?: true }> = {
  $eq: { parentFirst: '=', childFirst: '=' },
  $ne: { parentFirst: '!=', childFirst: '!=' },
  $gt: { parentFirst: '>', childFirst: '<' },
  $gte: { parentFirst: '>=', childFirst: '<=' },
  $lt: { parentFirst: '<', childFirst: '>' },
  $lte: { parentFirst: '<=', childFirst: '>=' },
  $sizeEq: { parentFirst: '=', childFirst: '=', size: true },
  $sizeNe: { parentFirst: '!=', childFirst: '!=', size: true },
  $sizeGt: { parentFirst: '>', childFirst: '<', size: true },
  $sizeGte: { parentFirst: '>=', childFirst: '<=', size: true },
  $sizeLt: { parentFirst: '<', childFirst: '>', size: true },
  $sizeLte: { parentFirst: '<=', childFirst: '>=', size: true },
  $in: { parentFirst: 'in', childFirst: 'contains' },
  $nin: { parentFirst: 'not in', childFirst: 'does not contain' },
  $contains: { parentFirst: 'contains', childFirst: 'in' },
  $ncontains: { parentFirst: 'does not contain', childFirst: 'not in' },
};

export function formatFieldPath(node: string, path: FieldPath): string {
  return path.reduce<string>(
    (text, segment) => (typeof segment === 'number' ? `${text}[${segment}]` : `${text}.${segment}`),
    node,
  );
}

function operand(right: DownwardRight, style: Style): string {
  return isLocalFilter(right) ? style.parentRef(right.local) : JSON.stringify(right);
}

function comparison(op: ComparisonOperator, foreign: FieldPath, right: DownwardRight, style: Style): string {
  const { parentFirst, childFirst, size } = OPERATORS[op];
  const sized = (text: string, isConstant: boolean) => (size && !isConstant ? `len(${text})` : text);
  const child = sized(style.childRef(foreign), false);
  const other = sized(operand(right, style), !isLocalFilter(right));
  return style.childFirst ? `${child} ${childFirst} ${other}` : `${other} ${parentFirst} ${child}`;
}

function isCompound(filter: GenericFilter): boolean {
  return typeof filter === 'object' && ('$and' in filter || '$or' in filter);
}

function render(filter: GenericFilter, style: Style): string {
  if (typeof filter === 'boolean') return String(filter);
  const group = (part: GenericFilter) =>
    isCompound(part) ? `(${render(part, style)})` : render(part, style);
  if ('$and' in filter) return filter.$and.length === 0 ? 'true' : filter.$and.map(group).join(' and ');
  if ('$or' in filter) return filter.$or.length === 0 ? 'false' : filter.$or.map(group).join(' or ');
  if ('$not' in filter) return `not (${render(filter.$not, style)})`;
  if ('$isArray' in filter) return `${style.childRef(filter.$isArray.foreign)} is an array`;
  if ('$regexMatch' in filter) {
    const { input, regex, options } = filter.$regexMatch;
    return `${style.childRef(input.foreign)} matches /${regex}/${options ?? ''}`;
  }
  const [op, [repository, right]] = Object.entries(filter)[0] as [
    ComparisonOperator,
    [{ foreign: FieldPath }, DownwardRight],
  ];
  return comparison(op, repository.foreign, right, style);
}

/** Describes the filter of the edge `parent -> child` in the three readings. */
export function describeFilter(filter: GenericFilter, parent: string, child: string): FilterDescription {
  if (filter === true) {
    const every = 'every pair (cartesian product)';
    return { sentence: every, down: `every ${child}`, up: `every ${parent}` };
  }
  if (filter === false) return { sentence: 'never', down: `no ${child}`, up: `no ${parent}` };
  const placeholder = (text: string) => `<${text}>`;
  const sentence = render(filter, {
    parentRef: (path) => formatFieldPath(parent, path),
    childRef: (path) => formatFieldPath(child, path),
    childFirst: false,
  });
  const down = render(filter, {
    parentRef: (path) => placeholder(formatFieldPath(parent, path)),
    childRef: (path) => formatFieldPath(child, path),
    childFirst: true,
  });
  const up = render(filter, {
    parentRef: (path) => formatFieldPath(parent, path),
    childRef: (path) => placeholder(formatFieldPath(child, path)),
    childFirst: false,
  });
  return { sentence, down: `${child} where ${down}`, up: `${parent} where ${up}` };
}
