/** All builtins, by name. */
import { aggregates } from './aggregates.ts';
import { arrays } from './arrays.ts';
import { bits } from './bits.ts';
import { comparison } from './comparison.ts';
import { crypto } from './crypto.ts';
import { encoding } from './encoding.ts';
import { glob } from './glob.ts';
import { graph } from './graph.ts';
import { json } from './json.ts';
import { jwt } from './jwt.ts';
import { net } from './net.ts';
import { numbers } from './numbers.ts';
import { objects } from './objects.ts';
import { regex } from './regex.ts';
import { semver } from './semver.ts';
import { sets } from './sets.ts';
import { strings } from './strings.ts';
import { time } from './time.ts';
import { typeChecks } from './typechecks.ts';
import type { BuiltinTable } from './types.ts';
import { units } from './units.ts';
import { x509 } from './x509.ts';
import { yaml } from './yaml.ts';

export const BUILTINS: BuiltinTable = {
  ...comparison,
  ...numbers,
  ...aggregates,
  ...arrays,
  ...sets,
  ...objects,
  ...strings,
  ...regex,
  ...typeChecks,
  ...encoding,
  ...bits,
  ...crypto,
  ...x509,
  ...units,
  ...glob,
  ...net,
  ...json,
  ...yaml,
  ...graph,
  ...semver,
  ...jwt,
  ...time,
};

/** `print` takes any number of arguments, so it is not in the table; the evaluator runs it. */
export const PRINT = 'print';
