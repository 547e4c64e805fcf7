/**
 * OPA's `crypto.x509.*` and `crypto.parse_private_keys` (topdown/crypto.go): certificates,
 * certificate chains, CSRs, key pairs and private keys given as PEM or as base64 of PEM or DER,
 * returned as Go's structs marshalled to JSON (x509-model.ts), with OPA's and Go's error texts.
 */
import { builtinError } from '../errors.ts';
import { RegoObject, RegoSet, type Value } from '../values.ts';
import { Base64Error, bytesOf, goBase64, pemDecode, pemEncode, startsWith } from './go-pem.ts';
import { type BuiltinTable, mustBe, obj, str } from './types.ts';
import { type GoJSON, X509Error } from './x509-common.ts';
import {
  keyJSON,
  opaJWK,
  type PrivateKey,
  parseEC,
  parsePKCS1,
  parsePKCS8,
  parseTLSPrivateKey,
  publicParts,
} from './x509-keys.ts';
import { type ParsedCertificate, parseCertificateRequest, parseCertificates } from './x509-model.ts';
import { type VerifyOptions, verifyChain } from './x509-verify.ts';

/** Go JSON to a Rego value. */
function toValue(j: GoJSON): Value {
  if (j === null || typeof j !== 'object') return j;
  if (Array.isArray(j)) return j.map(toValue);
  return new RegoObject(Object.entries(j).map(([k, v]) => [k, toValue(v)]));
}

/** Runs `f`, turning Go-side errors into OPA's builtin error `name: message`. */
function guarded<T>(name: string, f: () => T): T {
  try {
    return f();
  } catch (err) {
    if (err instanceof X509Error || err instanceof Base64Error) throw builtinError(`${name}: ${err.message}`);
    throw err;
  }
}

function certsFromPEM(pem: Buffer): ParsedCertificate[] {
  const ders: Buffer[] = [];
  let rest = pem;
  while (rest.length > 0) {
    const { block, rest: next } = pemDecode(rest);
    if (block && block.type !== 'CERTIFICATE')
      throw new X509Error(`PEM block type is '${block.type}', expected CERTIFICATE`);
    if (!block) break;
    ders.push(block.bytes);
    rest = next;
  }
  return parseCertificates(Buffer.concat(ders));
}

/** OPA's `getX509CertsFromString`: PEM, else base64 of PEM, else base64 of DER. */
function certsFromString(s: string): ParsedCertificate[] {
  const bytes = bytesOf(s);
  if (startsWith(bytes, '-----BEGIN')) return certsFromPEM(bytes);
  const decoded = goBase64(bytes);
  if (startsWith(decoded, '-----BEGIN')) return certsFromPEM(decoded);
  return parseCertificates(decoded);
}

/** OPA's `extendedCert`: the certificate with `URIStrings` added. */
const extended = (c: ParsedCertificate): GoJSON => ({ ...c.json, URIStrings: c.uriStrings });

const NOT_VERIFIED = (): Value => [false, []];

/** The certificates, or null where the verify builtins answer {@link NOT_VERIFIED} (never an error). */
function certsOrNull(input: string): ParsedCertificate[] | null {
  try {
    return certsFromString(input);
  } catch (err) {
    if (err instanceof X509Error || err instanceof Base64Error) return null;
    throw err;
  }
}

const KEY_USAGES: Record<string, number> = {
  KeyUsageAny: 0,
  KeyUsageServerAuth: 1,
  KeyUsageClientAuth: 2,
  KeyUsageCodeSigning: 3,
  KeyUsageEmailProtection: 4,
  KeyUsageIPSECEndSystem: 5,
  KeyUsageIPSECTunnel: 6,
  KeyUsageIPSECUser: 7,
  KeyUsageTimeStamping: 8,
  KeyUsageOCSPSigning: 9,
  KeyUsageMicrosoftServerGatedCrypto: 10,
  KeyUsageNetscapeServerGatedCrypto: 11,
  KeyUsageMicrosoftCommercialCodeSigning: 12,
  KeyUsageMicrosoftKernelCodeSigning: 13,
};

const isInteger = (v: Value): v is number | bigint =>
  typeof v === 'bigint' || (typeof v === 'number' && Number.isInteger(v));

/** OPA's `extractVerifyOpts`: keys in order, the first bad one is the error. */
function verifyOptions(name: string, options: RegoObject): VerifyOptions {
  const opts: VerifyOptions = {};
  const fail = (msg: string) => builtinError(`${name}: ${msg}`);
  for (const [key, value] of options.sortedPairs()) {
    if (typeof key !== 'string') continue;
    switch (key) {
      case 'DNSName':
        if (typeof value !== 'string') throw fail("'DNSName' should be a string");
        opts.dnsName = value.replace(/^"+|"+$/g, '');
        break;
      case 'CurrentTime': {
        if (typeof value !== 'number' && typeof value !== 'bigint')
          throw fail("'CurrentTime' should be a number");
        const ns = isInteger(value) ? BigInt(value) : undefined;
        if (ns === undefined || ns < -(2n ** 63n) || ns >= 2n ** 63n)
          throw fail("'CurrentTime' should be a valid int64 number");
        opts.currentTimeNs = ns;
        break;
      }
      case 'MaxConstraintComparisons':
        if (typeof value !== 'number' && typeof value !== 'bigint')
          throw fail("'MaxConstraintComparisons' should be a number");
        if (!isInteger(value) || BigInt(value) < -(2n ** 63n) || BigInt(value) >= 2n ** 63n)
          throw fail("'MaxConstraintComparisons' should be a valid number");
        break;
      case 'KeyUsages': {
        let items: Value[];
        if (Array.isArray(value)) items = value;
        else if (value instanceof RegoSet) items = value.sorted();
        else throw fail("'KeyUsages' should be an Array or Set");
        const usages: number[] = [];
        const invalid: string[] = [];
        for (const item of items) {
          if (typeof item !== 'string') continue;
          const u = item.replace(/^"+|"+$/g, '');
          const n = KEY_USAGES[u];
          if (n === undefined) invalid.push(u);
          else usages.push(n);
        }
        if (invalid.length > 0) throw fail(`invalid entries for 'KeyUsages' found: [${invalid.join(' ')}]`);
        opts.keyUsages = usages;
        break;
      }
      default:
        throw fail('invalid key option');
    }
  }
  return opts;
}

/** OPA's `getPrivateKeysFromPEMData`: base64 decoded if it is base64, then every key block. */
function privateKeysFromPEM(data: Buffer): PrivateKey[] {
  let bs = data;
  try {
    bs = goBase64(data);
  } catch {}
  const keys: PrivateKey[] = [];
  while (bs.length > 0) {
    const before = bs.length;
    const { block, rest } = pemDecode(bs);
    bs = rest;
    if (before === bs.length) break;
    if (!block) continue;
    if (block.type === 'RSA PRIVATE KEY') keys.push(parsePKCS1(block.bytes));
    else if (block.type === 'PRIVATE KEY') keys.push(parsePKCS8(block.bytes));
    else if (block.type === 'EC PRIVATE KEY') keys.push(parseEC(block.bytes));
  }
  return keys;
}

/** crypto/tls's `X509KeyPair`, with its error texts. */
function keyPair(certPEM: Buffer, keyPEM: Buffer): GoJSON {
  const ders: Buffer[] = [];
  let skipped: string[] = [];
  for (let rest = certPEM; ; ) {
    const { block, rest: next } = pemDecode(rest);
    if (!block) break;
    if (block.type === 'CERTIFICATE') ders.push(block.bytes);
    else skipped.push(block.type);
    rest = next;
  }
  if (ders.length === 0) {
    if (skipped.length === 0) throw new X509Error('tls: failed to find any PEM data in certificate input');
    if (skipped.length === 1 && skipped[0]!.endsWith('PRIVATE KEY'))
      throw new X509Error(
        'tls: failed to find certificate PEM data in certificate input, but did find a private key; PEM inputs may have been switched',
      );
    throw new X509Error(
      `tls: failed to find "CERTIFICATE" PEM block in certificate input after skipping PEM blocks of the following types: [${skipped.join(' ')}]`,
    );
  }
  skipped = [];
  let keyDER: Buffer | undefined;
  for (let rest = keyPEM; ; ) {
    const { block, rest: next } = pemDecode(rest);
    if (!block) {
      if (skipped.length === 0) throw new X509Error('tls: failed to find any PEM data in key input');
      if (skipped.length === 1 && skipped[0] === 'CERTIFICATE')
        throw new X509Error('tls: found a certificate rather than a key in the PEM for the private key');
      throw new X509Error(
        `tls: failed to find PEM block with type ending in "PRIVATE KEY" in key input after skipping PEM blocks of the following types: [${skipped.join(' ')}]`,
      );
    }
    if (block.type === 'PRIVATE KEY' || block.type.endsWith(' PRIVATE KEY')) {
      keyDER = block.bytes;
      break;
    }
    skipped.push(block.type);
    rest = next;
  }
  const [leaf] = parseCertificates(ders[0]!);
  const key = parseTLSPrivateKey(keyDER);
  const pub = leaf!.json.PublicKey as Record<string, GoJSON> | string | null;
  const parts = publicParts(key);
  const kinds: Record<number, string> = { 1: 'rsa', 3: 'ec', 4: 'ed25519' };
  const kind = kinds[leaf!.publicKeyAlgorithm];
  if (!kind) throw new X509Error('tls: unknown public key algorithm');
  if (kind !== key.kind) throw new X509Error('tls: private key type does not match public key type');
  const same =
    kind === 'rsa'
      ? BigInt((pub as Record<string, number | bigint>).N!) === parts.n
      : kind === 'ec'
        ? BigInt((pub as Record<string, number | bigint>).X!) === parts.x &&
          BigInt((pub as Record<string, number | bigint>).Y!) === parts.y
        : pub === parts.ed;
  if (!same) throw new X509Error('tls: private key does not match public key');
  return {
    Certificate: ders.map((d) => d.toString('base64')),
    PrivateKey: keyJSON(key),
    OCSPStaple: null,
    SignedCertificateTimestamps: null,
    SupportedSignatureAlgorithms: null,
    Leaf: leaf!.json,
  };
}

/** Base64 of PEM or DER when the input does not start with `-----BEGIN `, as OPA. */
function pemOrBase64(s: string): Buffer {
  const bytes = bytesOf(s);
  return startsWith(bytes, '-----BEGIN ') ? bytes : goBase64(bytes);
}

export const x509: BuiltinTable = {
  'crypto.x509.parse_certificates': {
    arity: 1,
    fn: (args, name) => {
      const input = str(name, args, 0);
      return guarded(name, () => toValue(certsFromString(input).map(extended)));
    },
  },
  'crypto.x509.parse_and_verify_certificates': {
    arity: 1,
    fn: (args, name) => {
      const certs = certsOrNull(str(name, args, 0));
      const chain = certs && verifyChain(certs, {});
      return chain ? [true, toValue(chain.map(extended))] : NOT_VERIFIED();
    },
  },
  'crypto.x509.parse_and_verify_certificates_with_options': {
    arity: 2,
    fn: (args, name) => {
      const certs = certsOrNull(str(name, args, 0));
      const options = obj(name, args, 1);
      // As OPA: the options are read only once the certificates parsed.
      const chain = certs && verifyChain(certs, verifyOptions(name, options));
      // OPA returns the plain x509.Certificate here: no URIStrings.
      return chain ? [true, toValue(chain.map((c) => c.json))] : NOT_VERIFIED();
    },
  },
  'crypto.x509.parse_certificate_request': {
    arity: 1,
    fn: (args, name) => {
      const input = str(name, args, 0);
      return guarded(name, () => {
        let bytes = bytesOf(input);
        if (!input.startsWith('-----BEGIN CERTIFICATE REQUEST-----')) bytes = goBase64(bytes);
        const { block } = pemDecode(bytes);
        if (block && block.type !== 'CERTIFICATE REQUEST')
          throw new X509Error('invalid PEM-encoded certificate signing request');
        return toValue(parseCertificateRequest(block ? block.bytes : bytes));
      });
    },
  },
  'crypto.x509.parse_keypair': {
    arity: 2,
    fn: (args, name) => {
      const cert = str(name, args, 0);
      // OPA checks the key as operand 1 too, so its type error names operand 1.
      mustBe(name, 0, args[1]!, 'string');
      const key = args[1] as string;
      return guarded(name, () => {
        let certPEM = pemOrBase64(cert);
        let keyPEM = pemOrBase64(key);
        if (!startsWith(certPEM, '-----BEGIN ')) certPEM = pemEncode('CERTIFICATE', certPEM);
        if (!startsWith(keyPEM, '-----BEGIN')) keyPEM = pemEncode('PRIVATE KEY', keyPEM);
        return toValue(keyPair(certPEM, keyPEM));
      });
    },
  },
  'crypto.x509.parse_rsa_private_key': {
    arity: 1,
    fn: (args, name) => {
      const input = str(name, args, 0);
      return guarded(name, () => {
        if (input === '') throw new X509Error('input PEM data was empty');
        let data = bytesOf(input);
        if (!input.startsWith('-----BEGIN')) data = goBase64(data);
        const keys = privateKeysFromPEM(data);
        return keys.length === 0 ? null : toValue(opaJWK(keys[0]!));
      });
    },
  },
  'crypto.parse_private_keys': {
    arity: 1,
    fn: (args, name) => {
      const input = str(name, args, 0);
      if (input === '') return null;
      return guarded(name, () => toValue(privateKeysFromPEM(bytesOf(input)).map(keyJSON)));
    },
  },
};
