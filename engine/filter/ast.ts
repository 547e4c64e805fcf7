/**
 * The GenericFilter language of the spec as TypeScript types. `engine/config` validates a
 * configuration into these shapes; `engine/filter` compiles them. See `engine.md` §3.
 */

/** Locates a value inside a record: string segments name fields, integers index arrays. */
export type FieldPath = ReadonlyArray<string | number>;

export type FilterValue =
  | string
  | number
  | boolean
  | null
  | ReadonlyArray<string>
  | ReadonlyArray<number>
  | ReadonlyArray<boolean>;

/** The child side of an edge. */
export interface RepositoryFilter {
  readonly foreign: FieldPath;
}

/** The parent side of an edge. */
export interface LocalFilter {
  readonly local: FieldPath;
}

export type DownwardRight = LocalFilter | FilterValue;

export const COMPARISON_OPERATORS = [
  '$eq',
  '$ne',
  '$gt',
  '$gte',
  '$lt',
  '$lte',
  '$sizeEq',
  '$sizeNe',
  '$sizeGt',
  '$sizeGte',
  '$sizeLt',
  '$sizeLte',
  '$in',
  '$nin',
  '$contains',
  '$ncontains',
] as const;

export type ComparisonOperator = (typeof COMPARISON_OPERATORS)[number];

export type ComparisonFilter = {
  readonly [Op in ComparisonOperator]: { readonly [K in Op]: readonly [RepositoryFilter, DownwardRight] };
}[ComparisonOperator];

export interface RegexMatchArgs {
  readonly input: RepositoryFilter;
  readonly regex: string;
  readonly options?: string | null;
}

export type GenericFilter =
  | boolean
  | { readonly $and: ReadonlyArray<GenericFilter> }
  | { readonly $or: ReadonlyArray<GenericFilter> }
  | { readonly $not: GenericFilter }
  | ComparisonFilter
  | { readonly $isArray: RepositoryFilter }
  | { readonly $regexMatch: RegexMatchArgs };

export function isLocalFilter(right: DownwardRight): right is LocalFilter {
  return typeof right === 'object' && right !== null && !Array.isArray(right) && 'local' in right;
}
