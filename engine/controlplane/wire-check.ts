import protobuf from 'protobufjs';

/**
 * Why `bytes` are not exactly one encoded `type` message, or null if they are. protobufjs decodes
 * leniently (a string running past the end is cut short, a field with the wrong wire type is
 * read as if it had the right one), so bytes are checked against the schema first: every
 * varint, length and fixed-width value within its message, every known field with its wire type,
 * strings valid UTF-8. Unknown fields are allowed (a newer control plane may send them).
 * For proto3 messages without map fields or groups, as `controlplane.proto` is.
 */
export function wireProblem(bytes: Uint8Array, type: protobuf.Type): string | null {
  try {
    checkMessage(bytes, 0, bytes.length, type, type.name);
    return null;
  } catch (error) {
    if (error instanceof WireError) return error.message;
    throw error;
  }
}

class WireError extends Error {}

const utf8 = new TextDecoder('utf-8', { fatal: true });

function checkMessage(
  bytes: Uint8Array,
  start: number,
  end: number,
  type: protobuf.Type,
  path: string,
): void {
  let at = start;
  while (at < end) {
    const tag = readVarint(bytes, at, end, `${path}: field tag at byte ${at}`);
    at = tag.next;
    const number = Math.floor(tag.value / 8);
    const wireType = tag.value % 8;
    if (number === 0) throw new WireError(`${path}: field number 0 at byte ${at}`);
    const field = type.fieldsById[number];
    const name = field ? `${path}.${field.name}` : `${path}.<field ${number}>`;
    if (field) {
      const expected = wireTypesOf(field);
      if (!expected.includes(wireType)) {
        throw new WireError(`${name}: wire type ${wireType}, expected ${expected.join(' or ')}`);
      }
    }
    switch (wireType) {
      case 0:
        at = readVarint(bytes, at, end, name).next;
        break;
      case 1:
        at = skipFixed(at, 8, end, name);
        break;
      case 5:
        at = skipFixed(at, 4, end, name);
        break;
      case 2: {
        const length = readVarint(bytes, at, end, `${name}: length`);
        const left = end - length.next;
        if (length.value > left) {
          throw new WireError(`${name}: length ${length.value} runs past the end (${left} bytes left)`);
        }
        at = length.next + length.value;
        if (field?.resolvedType instanceof protobuf.Type) {
          checkMessage(bytes, length.next, at, field.resolvedType, name);
        } else if (field?.type === 'string') {
          checkUtf8(bytes.subarray(length.next, at), name);
        }
        break;
      }
      default:
        throw new WireError(`${name}: wire type ${wireType} is not valid in proto3`);
    }
  }
}

// Wire type per scalar type name, of all scalars and of the packable ones (null-prototype objects).
const SCALAR_WIRE_TYPES: Readonly<Record<string, number>> = protobuf.types.basic;
const PACKABLE_WIRE_TYPES: Readonly<Record<string, number>> = protobuf.types.packed;

/** The wire types a field may arrive with: its own, and 2 for packed repeated scalars and enums. */
function wireTypesOf(field: protobuf.Field): number[] {
  if (field.resolvedType instanceof protobuf.Type) return [2];
  const isEnum = field.resolvedType instanceof protobuf.Enum;
  const own = isEnum ? 0 : (SCALAR_WIRE_TYPES[field.type] as number);
  const packable = isEnum || PACKABLE_WIRE_TYPES[field.type] !== undefined;
  return field.repeated && packable ? [own, 2] : [own];
}

/** A base-128 varint of at most 10 bytes, all before `end`. */
function readVarint(
  bytes: Uint8Array,
  at: number,
  end: number,
  what: string,
): { value: number; next: number } {
  let value = 0;
  for (let i = 0; i < 10 && at + i < end; i++) {
    const byte = bytes[at + i] as number;
    value += (byte & 0x7f) * 2 ** (7 * i);
    if (byte < 0x80) return { value, next: at + i + 1 };
  }
  throw new WireError(`${what}: varint ${end - at < 10 ? 'truncated' : 'longer than 10 bytes'}`);
}

function skipFixed(at: number, size: number, end: number, what: string): number {
  if (end - at < size) throw new WireError(`${what}: ${size}-byte value truncated (${end - at} bytes left)`);
  return at + size;
}

function checkUtf8(bytes: Uint8Array, what: string): void {
  try {
    utf8.decode(bytes);
  } catch {
    throw new WireError(`${what}: not valid UTF-8`);
  }
}
