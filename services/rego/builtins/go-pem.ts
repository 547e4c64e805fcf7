/**
 * Go's `encoding/base64` (StdEncoding) and `encoding/pem` decoding, as OPA's crypto builtins see
 * their input: base64 that skips `\r`/`\n` and reports the offset Go reports, PEM blocks found and
 * skipped the way `pem.Decode` does. Inputs are bytes (latin1 strings index them one to one).
 */

/** Go's `base64.CorruptInputError`. */
export class Base64Error extends Error {
  constructor(readonly offset: number) {
    super(`illegal base64 data at input byte ${offset}`);
  }
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const DECODE = new Int16Array(256).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) DECODE[ALPHABET.charCodeAt(i)] = i;

/** `base64.StdEncoding.DecodeString`: padding required, CR and LF ignored, Go's error offsets. */
export function goBase64(src: Buffer): Buffer {
  const out: number[] = [];
  let si = 0;
  const skipNewlines = () => {
    while (si < src.length && (src[si] === 0x0a || src[si] === 0x0d)) si++;
  };
  while (true) {
    const quantum = [0, 0, 0, 0];
    let j = 0;
    let dlen = 4;
    for (; j < 4; j++) {
      if (si === src.length) {
        if (j === 0) return Buffer.from(out);
        throw new Base64Error(si - j);
      }
      const c = src[si]!;
      si++;
      const v = DECODE[c]!;
      if (v >= 0) {
        quantum[j] = v;
        continue;
      }
      if (c === 0x0a || c === 0x0d) {
        j--;
        continue;
      }
      if (c !== 0x3d) throw new Base64Error(si - 1);
      // Padding: "=" after two or three characters, nothing but newlines after it.
      if (j < 2) throw new Base64Error(si - 1);
      if (j === 2) {
        skipNewlines();
        if (si === src.length) throw new Base64Error(src.length);
        if (src[si] !== 0x3d) throw new Base64Error(si - 1);
        si++;
      }
      skipNewlines();
      if (si < src.length) throw new Base64Error(si);
      dlen = j;
      break;
    }
    const n = (quantum[0]! << 18) | (quantum[1]! << 12) | (quantum[2]! << 6) | quantum[3]!;
    out.push((n >> 16) & 0xff);
    if (dlen > 2) out.push((n >> 8) & 0xff);
    if (dlen > 3) out.push(n & 0xff);
    if (dlen < 4) return Buffer.from(out);
  }
}

export interface PemBlock {
  type: string;
  headers: Record<string, string>;
  bytes: Buffer;
}

const BEGIN = Buffer.from('-----BEGIN ');
const NL_BEGIN = Buffer.from('\n-----BEGIN ');
const END = Buffer.from('\n-----END ');
const DASHES = '-----';

/** One line without its line ending and trailing blanks, and what follows it. */
function getLine(data: Buffer): [Buffer, Buffer] {
  let i = data.indexOf(0x0a);
  let j: number;
  if (i < 0) {
    i = data.length;
    j = i;
  } else {
    j = i + 1;
    if (i > 0 && data[i - 1] === 0x0d) i--;
  }
  let e = i;
  while (e > 0 && (data[e - 1] === 0x20 || data[e - 1] === 0x09)) e--;
  return [data.subarray(0, e), data.subarray(j)];
}

/**
 * `pem.Decode`: the first well-formed block and the bytes after it, or no block and the input
 * unchanged. A block whose type line, END line or base64 body is malformed is skipped.
 */
export function pemDecode(data: Buffer): { block?: PemBlock; rest: Buffer } {
  let rest = data;
  while (true) {
    if (rest.subarray(0, BEGIN.length).equals(BEGIN)) rest = rest.subarray(BEGIN.length);
    else {
      const at = rest.indexOf(NL_BEGIN);
      if (at < 0) return { rest: data };
      rest = rest.subarray(at + NL_BEGIN.length);
    }
    const [typeLineRaw, afterType] = getLine(rest);
    rest = afterType;
    const typeLine = typeLineRaw.toString('latin1');
    if (!typeLine.endsWith(DASHES)) continue;
    const type = typeLine.slice(0, -DASHES.length);
    const headers: Record<string, string> = {};
    let ok = true;
    while (true) {
      if (rest.length === 0) {
        ok = false;
        break;
      }
      const [line, next] = getLine(rest);
      const text = line.toString('latin1');
      const colon = text.indexOf(':');
      if (colon < 0) break;
      headers[text.slice(0, colon).trim()] = text.slice(colon + 1).trim();
      rest = next;
    }
    if (!ok) return { rest: data };
    let endIndex: number;
    let trailerIndex: number;
    if (Object.keys(headers).length === 0 && rest.subarray(0, END.length - 1).equals(END.subarray(1))) {
      endIndex = 0;
      trailerIndex = END.length - 1;
    } else {
      endIndex = rest.indexOf(END);
      trailerIndex = endIndex + END.length;
    }
    if (endIndex < 0) continue;
    const trailer = rest.subarray(trailerIndex);
    const trailerLen = type.length + DASHES.length;
    if (trailer.length < trailerLen) continue;
    if (trailer.subarray(0, trailerLen).toString('latin1') !== type + DASHES) continue;
    if (getLine(trailer.subarray(trailerLen))[0].length !== 0) continue;
    const body = Buffer.from(
      [...rest.subarray(0, endIndex)].filter((b) => b !== 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0d),
    );
    let bytes: Buffer;
    try {
      bytes = goBase64(body);
    } catch {
      continue;
    }
    return { block: { type, headers, bytes }, rest: getLine(rest.subarray(endIndex + END.length - 1))[1] };
  }
}

/** The bytes of a Rego string, as Go's `[]byte(s)`. */
export function bytesOf(s: string): Buffer {
  return Buffer.from(s, 'utf8');
}

export function startsWith(b: Buffer, prefix: string): boolean {
  return b.subarray(0, prefix.length).toString('latin1') === prefix;
}

/** PEM text of one block, as `pem.Encode` writes it (64-character lines). */
export function pemEncode(type: string, bytes: Buffer): Buffer {
  const b64 = bytes.toString('base64');
  const lines = b64.match(/.{1,64}/g) ?? [];
  return Buffer.from(
    `-----BEGIN ${type}-----\n${lines.map((l) => `${l}\n`).join('')}-----END ${type}-----\n`,
  );
}
