import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { ProducerRecord } from '../../operators/broker/types.ts';
import { isJsonObject } from '../../operators/record/json.ts';

/**
 * One line of an embedded-mode input file (`engine.md` §11):
 * `{"topic": "<consumer topic>", "key": {...}, "value": {op, before, after} | null}`.
 * `rawKey`/`rawValue` (strings) give the exact bytes instead, to replay malformed messages.
 */
export class InputFileError extends Error {
  constructor(
    readonly file: string,
    readonly line: number,
    reason: string,
  ) {
    super(`${file}:${line}: ${reason}`);
    this.name = 'InputFileError';
  }
}

export function parseInputLine(
  text: string,
  file: string,
  line: number,
  topics: ReadonlySet<string>,
): ProducerRecord {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new InputFileError(file, line, `not JSON (${(error as Error).message})`);
  }
  if (!isJsonObject(parsed)) throw new InputFileError(file, line, 'expected an object {topic, key, value}');
  const { topic } = parsed;
  if (typeof topic !== 'string') throw new InputFileError(file, line, '"topic" must be a string');
  if (!topics.has(topic)) {
    throw new InputFileError(
      file,
      line,
      `topic "${topic}" is not consumed by this config (known: ${[...topics].join(', ')})`,
    );
  }
  return {
    topic,
    key: bytes(parsed, 'key', 'rawKey', file, line),
    value: bytes(parsed, 'value', 'rawValue', file, line),
  };
}

function bytes(
  line: Record<string, unknown>,
  json: string,
  raw: string,
  file: string,
  lineNo: number,
): Buffer | null {
  if (raw in line) {
    const value = line[raw];
    if (typeof value !== 'string') throw new InputFileError(file, lineNo, `"${raw}" must be a string`);
    return Buffer.from(value, 'utf8');
  }
  const value = line[json];
  return value === undefined || value === null ? null : Buffer.from(JSON.stringify(value), 'utf8');
}

/** Streams the records of an input file (`-`: stdin) without holding the file in memory. */
export async function* readInputFile(
  file: string,
  topics: ReadonlySet<string>,
): AsyncGenerator<ProducerRecord> {
  const lines = createInterface({
    input: file === '-' ? process.stdin : createReadStream(file),
    crlfDelay: Infinity,
  });
  let line = 0;
  for await (const text of lines) {
    line++;
    if (text.trim() === '') continue;
    yield parseInputLine(text, file, line, topics);
  }
}
