import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

export interface PackageInfo {
  readonly name: string;
  readonly version: string;
}

/**
 * `{name, version}` of the nearest package.json at or above `dir`, so a service reports the
 * package it ships in. Throws when there is none or it lacks either field.
 */
export function readPackageInfo(dir: string): PackageInfo {
  for (let current = resolve(dir); ; current = dirname(current)) {
    const file = join(current, 'package.json');
    if (existsSync(file)) return parsePackageInfo(file);
    if (dirname(current) === current) throw new Error(`no package.json at or above ${resolve(dir)}`);
  }
}

function parsePackageInfo(file: string): PackageInfo {
  const json: unknown = JSON.parse(readFileSync(file, 'utf8'));
  const { name, version } = (json ?? {}) as Record<string, unknown>;
  if (typeof name !== 'string' || typeof version !== 'string') {
    throw new Error(`${file}: "name" and "version" must be strings`);
  }
  return { name, version };
}
