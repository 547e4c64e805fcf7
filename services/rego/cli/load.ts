/**
 * What `-d` and `-i` name: `.rego` files are modules; `.json` files are data placed at their
 * directory's path below the directory given (as `opa` loads bundles), a file given alone at the
 * root of `data`.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { compile, type Policy } from '../index.ts';

export interface LoadedPolicy {
  policy: Policy;
  data: Record<string, unknown>;
}

/** A file that cannot be read or parsed as JSON: reported on stderr with exit 1. */
export class LoadError extends Error {
  override readonly name = 'LoadError';
}

export function loadPolicy(paths: string[], v0Compatible: boolean): LoadedPolicy {
  const modules: Record<string, string> = {};
  const data: Record<string, unknown> = {};
  for (const root of paths) {
    for (const file of filesUnder(root)) {
      if (file.endsWith('.rego')) modules[file] = read(file);
      else if (file.endsWith('.json')) {
        const at = statOf(root).isDirectory() ? relative(root, dirname(file)).split(sep).filter(Boolean) : [];
        mergeAt(data, at, readJson(file), file);
      }
    }
  }
  return { policy: compile(modules, { v0Compatible }), data };
}

export function readJson(file: string): unknown {
  try {
    return JSON.parse(read(file));
  } catch (error) {
    if (error instanceof LoadError) throw error;
    throw new LoadError(`${file}: not JSON: ${(error as Error).message}`);
  }
}

function filesUnder(path: string): string[] {
  if (!statOf(path).isDirectory()) return [path];
  return readdirSync(path)
    .sort()
    .flatMap((name) => filesUnder(join(path, name)));
}

function statOf(path: string) {
  try {
    return statSync(path);
  } catch {
    throw new LoadError(`${path}: no such file or directory`);
  }
}

function read(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new LoadError(`${file}: ${(error as Error).message}`);
  }
}

function mergeAt(data: Record<string, unknown>, at: string[], value: unknown, file: string): void {
  let node = data;
  for (const key of at) {
    const child = node[key];
    if (child === undefined) node[key] = {};
    else if (!isObject(child)) throw new LoadError(`${file}: data at ${at.join('.')} conflicts`);
    node = node[key] as Record<string, unknown>;
  }
  if (!isObject(value)) throw new LoadError(`${file}: a data file must hold an object`);
  for (const [key, v] of Object.entries(value)) {
    if (isObject(node[key]) && isObject(v)) mergeAt(node, [key], v, file);
    else if (node[key] !== undefined) throw new LoadError(`${file}: data key ${key} is defined twice`);
    else node[key] = v;
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
