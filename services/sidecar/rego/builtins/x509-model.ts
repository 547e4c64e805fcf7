/**
 * X.509 certificates and certificate requests read into the JSON shape OPA returns: Go's
 * `x509.Certificate` / `x509.CertificateRequest` through `json.Marshal` (byte slices as standard
 * base64, big integers as exact numbers, Go's enum numbers, `null` for absent slices). ASN.1 is read
 * with asn1js and the @peculiar/asn1-x509 schemas; errors carry Go's texts where they are known.
 */
import { createPublicKey } from 'node:crypto';
import { CertificationRequest } from '@peculiar/asn1-csr';
import { AsnParser } from '@peculiar/asn1-schema';
import {
  AuthorityInfoAccessSyntax,
  AuthorityKeyIdentifier,
  BasicConstraints,
  Certificate,
  CertificatePolicies,
  CRLDistributionPoints,
  ExtendedKeyUsage,
  type Extension,
  type Name,
  PolicyMappings,
  SubjectKeyIdentifier,
} from '@peculiar/asn1-x509';
import * as asn1js from 'asn1js';

/** JSON as Go marshals it; integers beyond 2^53 are BigInts. */
export type GoJSON = null | boolean | number | bigint | string | GoJSON[] | { [key: string]: GoJSON };

export class X509Error extends Error {}

const b64 = (b: ArrayBuffer | Uint8Array | null | undefined): string | null =>
  b ? Buffer.from(b instanceof ArrayBuffer ? new Uint8Array(b) : b).toString('base64') : null;

export function bigFromBytes(b: Uint8Array): bigint {
  return b.length === 0 ? 0n : BigInt(`0x${Buffer.from(b).toString('hex')}`);
}

/** A Go int or *big.Int: a number when exact, else a BigInt. */
export function goInt(n: bigint): number | bigint {
  return n <= BigInt(Number.MAX_SAFE_INTEGER) && n >= BigInt(Number.MIN_SAFE_INTEGER) ? Number(n) : n;
}

/** A two's complement INTEGER's content bytes. */
function signedBig(b: Uint8Array): bigint {
  const u = bigFromBytes(b);
  return b.length > 0 && b[0]! & 0x80 ? u - (1n << BigInt(b.length * 8)) : u;
}

const oidInts = (oid: string): number[] => oid.split('.').map(Number);

/** Go's `time.Time` JSON: RFC 3339 with fractional seconds only when not zero, in UTC. */
export function goTime(d: Date): string {
  return d.toISOString().replace(/\.000Z$/, 'Z');
}

// Go's x509.SignatureAlgorithm numbers, by signature OID.
const SIGNATURE_ALGORITHMS: Record<string, number> = {
  '1.2.840.113549.1.1.2': 1, // MD2WithRSA
  '1.2.840.113549.1.1.4': 2, // MD5WithRSA
  '1.2.840.113549.1.1.5': 3, // SHA1WithRSA
  '1.3.14.3.2.29': 3,
  '1.2.840.113549.1.1.11': 4, // SHA256WithRSA
  '1.2.840.113549.1.1.12': 5,
  '1.2.840.113549.1.1.13': 6,
  '1.2.840.10040.4.3': 7, // DSAWithSHA1
  '2.16.840.1.101.3.4.3.2': 8, // DSAWithSHA256
  '1.2.840.10045.4.1': 9, // ECDSAWithSHA1
  '1.2.840.10045.4.3.2': 10,
  '1.2.840.10045.4.3.3': 11,
  '1.2.840.10045.4.3.4': 12,
  '1.3.101.112': 16, // PureEd25519
};
const RSA_PSS = '1.2.840.113549.1.1.10';
const PSS_HASHES: Record<string, [number, number]> = {
  '2.16.840.1.101.3.4.2.1': [13, 32], // SHA256WithRSAPSS, salt length
  '2.16.840.1.101.3.4.2.2': [14, 48],
  '2.16.840.1.101.3.4.2.3': [15, 64],
};

/** Go's signature algorithm number; RSA-PSS by its hash, MGF1 hash and salt length, as Go. */
function signatureAlgorithm(oid: string, params: ArrayBuffer | null | undefined): number {
  if (oid !== RSA_PSS) return SIGNATURE_ALGORITHMS[oid] ?? 0;
  if (!params) return 0;
  const seq = asn1js.fromBER(params).result;
  if (!(seq instanceof asn1js.Sequence)) return 0;
  let hash = '';
  let mgfHash = '';
  let salt = 20;
  for (const field of seq.valueBlock.value) {
    const inner = (field as asn1js.Constructed).valueBlock.value?.[0];
    if (!inner) continue;
    const tag = field.idBlock.tagNumber;
    if (tag === 0) hash = oidOf((inner as asn1js.Sequence).valueBlock.value[0]);
    else if (tag === 1) {
      const params = (inner as asn1js.Sequence).valueBlock.value[1] as asn1js.Sequence | undefined;
      mgfHash = params ? oidOf(params.valueBlock.value[0]) : '';
    } else if (tag === 2 && inner instanceof asn1js.Integer) salt = inner.valueBlock.valueDec;
  }
  const known = PSS_HASHES[hash];
  return known && mgfHash === hash && salt === known[1] ? known[0] : 0;
}

function oidOf(v: asn1js.AsnType | undefined): string {
  return v instanceof asn1js.ObjectIdentifier ? v.valueBlock.toString() : '';
}

// Go's x509.PublicKeyAlgorithm numbers.
const PUBLIC_KEY_ALGORITHMS: Record<string, number> = {
  '1.2.840.113549.1.1.1': 1, // RSA
  '1.2.840.10040.4.1': 2, // DSA
  '1.2.840.10045.2.1': 3, // ECDSA
  '1.3.101.112': 4, // Ed25519
};
const CURVES: Record<string, number> = {
  '1.3.132.0.33': 28, // P-224: coordinate size in bytes
  '1.2.840.10045.3.1.7': 32,
  '1.3.132.0.34': 48,
  '1.3.132.0.35': 66,
};

function integers(der: ArrayBuffer | Uint8Array, what: string): Uint8Array[] {
  const seq = asn1js.fromBER(der instanceof Uint8Array ? Uint8Array.from(der) : der);
  if (seq.offset === -1 || !(seq.result instanceof asn1js.Sequence)) throw new X509Error(what);
  return seq.result.valueBlock.value.map((v) => {
    if (!(v instanceof asn1js.Integer)) throw new X509Error(what);
    return v.valueBlock.valueHexView;
  });
}

/** Go's parsed public key as JSON: RSA {N, E}, ECDSA {Curve, X, Y}, Ed25519 bytes, DSA. */
function publicKeyJSON(
  algorithm: number,
  spkiRaw: Uint8Array,
  params: ArrayBuffer | null | undefined,
  key: Uint8Array,
): GoJSON {
  switch (algorithm) {
    case 1: {
      const [n, e] = integers(key, 'x509: invalid RSA public key');
      if (!n || !e) throw new X509Error('x509: invalid RSA public key');
      if (signedBig(n) <= 0n) throw new X509Error('x509: RSA modulus is not a positive number');
      if (signedBig(e) <= 0n) throw new X509Error('x509: RSA public exponent is not a positive number');
      return { N: goInt(bigFromBytes(n)), E: goInt(bigFromBytes(e)) };
    }
    case 3: {
      const curve = params ? oidOf(asn1js.fromBER(params).result) : '';
      const size = CURVES[curve];
      if (!size) throw new X509Error('x509: unsupported elliptic curve');
      if (key.length !== 1 + 2 * size || key[0] !== 4)
        throw new X509Error('x509: failed to unmarshal elliptic curve point');
      try {
        createPublicKey({ key: Buffer.from(spkiRaw), format: 'der', type: 'spki' });
      } catch {
        throw new X509Error('x509: failed to unmarshal elliptic curve point');
      }
      return {
        Curve: {},
        X: goInt(bigFromBytes(key.subarray(1, 1 + size))),
        Y: goInt(bigFromBytes(key.subarray(1 + size))),
      };
    }
    case 4:
      if (key.length !== 32) throw new X509Error('x509: wrong Ed25519 public key size');
      return b64(key);
    case 2: {
      const [p, q, g] = params ? integers(params, 'x509: invalid DSA parameters') : [];
      const y = asn1js.fromBER(Uint8Array.from(key)).result;
      if (!p || !q || !g || !(y instanceof asn1js.Integer))
        throw new X509Error('x509: invalid DSA public key');
      return {
        Parameters: { P: goInt(bigFromBytes(p)), Q: goInt(bigFromBytes(q)), G: goInt(bigFromBytes(g)) },
        Y: goInt(bigFromBytes(y.valueBlock.valueHexView)),
      };
    }
    default:
      return null;
  }
}

// pkix.Name fields filled from attribute types.
const NAME_FIELDS: Record<string, string> = {
  '2.5.4.6': 'Country',
  '2.5.4.10': 'Organization',
  '2.5.4.11': 'OrganizationalUnit',
  '2.5.4.7': 'Locality',
  '2.5.4.8': 'Province',
  '2.5.4.9': 'StreetAddress',
  '2.5.4.17': 'PostalCode',
};

/** `pkix.Name` as JSON, filled from the RDN sequence as Go's `FillFromRDNSequence`. */
function nameJSON(name: Name): GoJSON {
  const out: Record<string, GoJSON> = {
    Country: null,
    Organization: null,
    OrganizationalUnit: null,
    Locality: null,
    Province: null,
    StreetAddress: null,
    PostalCode: null,
    SerialNumber: '',
    CommonName: '',
    Names: null,
    ExtraNames: null,
  };
  const names: GoJSON[] = [];
  for (const rdn of name) {
    for (const atv of rdn) {
      const v = atv.value;
      let value: string | undefined =
        v.printableString ?? v.utf8String ?? v.ia5String ?? v.teletexString ?? v.bmpString ?? undefined;
      if (value === undefined && v.anyValue) {
        const raw = asn1js.fromBER(v.anyValue).result;
        if (raw instanceof asn1js.NumericString || raw instanceof asn1js.VisibleString)
          value = raw.valueBlock.value;
      }
      if (value === undefined) throw new X509Error('x509: invalid RDN value: unsupported string type');
      names.push({ Type: oidInts(atv.type), Value: value });
      const field = NAME_FIELDS[atv.type];
      if (field) out[field] = [...((out[field] as string[] | null) ?? []), value];
      else if (atv.type === '2.5.4.3') out.CommonName = value;
      else if (atv.type === '2.5.4.5') out.SerialNumber = value;
    }
  }
  if (names.length > 0) out.Names = names;
  return out;
}

/** The string form of an IP address, as Go's `net.IP.String`. */
export function goIP(b: Uint8Array): string {
  if (b.length === 4) return [...b].join('.');
  if (b.length !== 16) return `?${Buffer.from(b).toString('hex')}`;
  if (b.subarray(0, 10).every((x) => x === 0) && b[10] === 0xff && b[11] === 0xff)
    return [...b.subarray(12)].join('.');
  const groups: number[] = [];
  for (let i = 0; i < 16; i += 2) groups.push((b[i]! << 8) | b[i + 1]!);
  // The longest run of two or more zero groups becomes "::" (the first of equal runs).
  let best = -1;
  let bestLen = 0;
  for (let i = 0; i < 8; ) {
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen && j - i >= 2) {
      best = i;
      bestLen = j - i;
    }
    i = j === i ? i + 1 : j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (best < 0) return hex.join(':');
  return `${hex.slice(0, best).join(':')}::${hex.slice(best + bestLen).join(':')}`;
}

/** Go's `url.URL` as JSON for a SAN URI (see the README for what is approximated). */
function urlJSON(raw: string): GoJSON {
  let rest = raw;
  let fragment = '';
  const hash = rest.indexOf('#');
  if (hash >= 0) {
    fragment = safeUnescape(rest.slice(hash + 1));
    rest = rest.slice(0, hash);
  }
  let scheme = '';
  const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(rest);
  if (m) {
    scheme = m[1]!.toLowerCase();
    rest = rest.slice(m[0].length);
  }
  let rawQuery = '';
  let forceQuery = false;
  const q = rest.indexOf('?');
  if (q >= 0) {
    rawQuery = rest.slice(q + 1);
    forceQuery = rawQuery === '';
    rest = rest.slice(0, q);
  }
  let opaque = '';
  let user: GoJSON = null;
  let host = '';
  let omitHost = false;
  if (scheme && !rest.startsWith('/')) {
    opaque = rest;
    rest = '';
  } else if ((scheme || !rest.startsWith('///')) && rest.startsWith('//')) {
    let authority = rest.slice(2);
    const slash = authority.indexOf('/');
    rest = slash >= 0 ? authority.slice(slash) : '';
    authority = slash >= 0 ? authority.slice(0, slash) : authority;
    const at = authority.lastIndexOf('@');
    if (at >= 0) user = {};
    host = authority.slice(at + 1);
  } else if (scheme && rest.startsWith('/')) omitHost = true;
  return {
    Scheme: scheme,
    Opaque: opaque,
    User: user,
    Host: host,
    Path: safeUnescape(rest),
    RawPath: '',
    OmitHost: omitHost,
    ForceQuery: forceQuery,
    RawQuery: rawQuery,
    Fragment: fragment,
    RawFragment: '',
  };
}

function safeUnescape(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** The context-tagged GeneralNames of a SEQUENCE: [tag number, content bytes]. */
function generalNames(der: Uint8Array | ArrayBuffer): [number, Uint8Array][] {
  const parsed = asn1js.fromBER(der instanceof Uint8Array ? Uint8Array.from(der) : der);
  if (parsed.offset === -1 || !(parsed.result instanceof asn1js.Sequence))
    throw new X509Error('x509: invalid subject alternative names');
  return parsed.result.valueBlock.value.map((v) => [v.idBlock.tagNumber, rawContent(v)]);
}

/** The content octets of an element (primitive or constructed). */
function rawContent(v: asn1js.AsnType): Uint8Array {
  const full = new Uint8Array(v.valueBeforeDecodeView);
  return full.subarray(full.length - v.lenBlock.length);
}

const latin1 = (b: Uint8Array) => Buffer.from(b).toString('latin1');

interface SANs {
  DNSNames: string[] | null;
  EmailAddresses: string[] | null;
  IPAddresses: string[] | null;
  URIs: string[] | null;
  ipBytes: Uint8Array[];
}

function parseSAN(value: Uint8Array): SANs {
  const out: SANs = { DNSNames: null, EmailAddresses: null, IPAddresses: null, URIs: null, ipBytes: [] };
  const add = (k: 'DNSNames' | 'EmailAddresses' | 'IPAddresses' | 'URIs', v: string) => {
    out[k] = [...(out[k] ?? []), v];
  };
  for (const [tag, content] of generalNames(value)) {
    if (tag === 1) add('EmailAddresses', latin1(content));
    else if (tag === 2) add('DNSNames', latin1(content));
    else if (tag === 6) add('URIs', latin1(content));
    else if (tag === 7) {
      if (content.length !== 4 && content.length !== 16)
        throw new X509Error(`x509: cannot parse IP address of length ${content.length}`);
      add('IPAddresses', goIP(content));
      out.ipBytes.push(content);
    }
  }
  return out;
}

// Go's x509.ExtKeyUsage numbers.
const EXT_KEY_USAGES: Record<string, number> = {
  '2.5.29.37.0': 0,
  '1.3.6.1.5.5.7.3.1': 1,
  '1.3.6.1.5.5.7.3.2': 2,
  '1.3.6.1.5.5.7.3.3': 3,
  '1.3.6.1.5.5.7.3.4': 4,
  '1.3.6.1.5.5.7.3.5': 5,
  '1.3.6.1.5.5.7.3.6': 6,
  '1.3.6.1.5.5.7.3.7': 7,
  '1.3.6.1.5.5.7.3.8': 8,
  '1.3.6.1.5.5.7.3.9': 9,
  '1.3.6.1.4.1.311.10.3.3': 10,
  '2.16.840.1.113730.4.1': 11,
  '1.3.6.1.4.1.311.2.1.22': 12,
  '1.3.6.1.4.1.311.61.1.1': 13,
};

/** A parsed certificate: its JSON and what chain verification needs. */
export interface ParsedCertificate {
  json: Record<string, GoJSON>;
  /** URI SANs as strings (OPA's `URIStrings`); null when none. */
  uriStrings: string[] | null;
  raw: Buffer;
  rawSubject: Buffer;
  rawIssuer: Buffer;
  notBefore: Date;
  notAfter: Date;
  version: number;
  signatureAlgorithm: number;
  publicKeyAlgorithm: number;
  keyUsage: number;
  extKeyUsage: number[];
  unknownExtKeyUsage: number;
  basicConstraintsValid: boolean;
  isCA: boolean;
  maxPathLen: number;
  unhandledCritical: number;
  dnsNames: string[];
  ipAddresses: Uint8Array[];
  subjectKeyId: Buffer | null;
  authorityKeyId: Buffer | null;
}

function parseAs<T>(value: Uint8Array, type: new () => T, what: string): T {
  try {
    return AsnParser.parse(value, type);
  } catch {
    throw new X509Error(`x509: invalid ${what}`);
  }
}

function bitStringBits(value: Uint8Array, what: string): (i: number) => boolean {
  const parsed = asn1js.fromBER(Uint8Array.from(value)).result;
  if (!(parsed instanceof asn1js.BitString)) throw new X509Error(`x509: invalid ${what}`);
  const bytes = parsed.valueBlock.valueHexView;
  return (i) => i / 8 < bytes.length && (bytes[i >> 3]! & (0x80 >> (i & 7))) !== 0;
}

function integerOf(value: Uint8Array | ArrayBuffer): number {
  const b = value instanceof Uint8Array ? value : new Uint8Array(value);
  return Number(signedBig(b));
}

function ipNet(content: Uint8Array): GoJSON {
  const half = content.length / 2;
  return { IP: goIP(content.subarray(0, half)), Mask: b64(content.subarray(half)) };
}

/** Extensions read as Go's `processExtensions` does, into `json` and `cert`. */
function processExtensions(
  extensions: Extension[],
  json: Record<string, GoJSON>,
  cert: ParsedCertificate,
): void {
  const unhandledCritical: GoJSON[] = [];
  const list: GoJSON[] = [];
  for (const e of extensions) {
    const value = new Uint8Array(e.extnValue.buffer);
    list.push({ Id: oidInts(e.extnID), Critical: e.critical, Value: b64(value) });
    let unhandled = false;
    switch (e.extnID) {
      case '2.5.29.15': {
        const bit = bitStringBits(value, 'key usage');
        let usage = 0;
        for (let i = 0; i < 9; i++) if (bit(i)) usage |= 1 << i;
        json.KeyUsage = cert.keyUsage = usage;
        break;
      }
      case '2.5.29.19': {
        const bc = parseAs(value, BasicConstraints, 'basic constraints');
        cert.isCA = json.IsCA = bc.cA;
        cert.maxPathLen = bc.pathLenConstraint ?? -1;
        json.MaxPathLen = cert.maxPathLen;
        cert.basicConstraintsValid = json.BasicConstraintsValid = true;
        json.MaxPathLenZero = cert.maxPathLen === 0;
        break;
      }
      case '2.5.29.17': {
        const san = parseSAN(value);
        json.DNSNames = san.DNSNames;
        json.EmailAddresses = san.EmailAddresses;
        json.IPAddresses = san.IPAddresses;
        json.URIs = san.URIs?.map(urlJSON) ?? null;
        cert.uriStrings = san.URIs;
        cert.dnsNames = san.DNSNames ?? [];
        cert.ipAddresses = san.ipBytes;
        if (!san.DNSNames && !san.EmailAddresses && !san.IPAddresses && !san.URIs) unhandled = true;
        break;
      }
      case '2.5.29.30':
        unhandled = nameConstraints(value, e.critical, json);
        break;
      case '2.5.29.31': {
        const points: string[] = [];
        for (const dp of parseAs(value, CRLDistributionPoints, 'CRL distribution points'))
          for (const n of dp.distributionPoint?.fullName ?? [])
            if (n.uniformResourceIdentifier !== undefined) points.push(n.uniformResourceIdentifier);
        json.CRLDistributionPoints = points.length > 0 ? points : null;
        break;
      }
      case '2.5.29.35': {
        const id = parseAs(value, AuthorityKeyIdentifier, 'authority key identifier').keyIdentifier;
        if (id) {
          cert.authorityKeyId = Buffer.from(id.buffer);
          json.AuthorityKeyId = b64(cert.authorityKeyId);
        }
        break;
      }
      case '2.5.29.36': {
        const seq = asn1js.fromBER(Uint8Array.from(value)).result;
        if (!(seq instanceof asn1js.Sequence))
          throw new X509Error('x509: invalid policy constraints extension');
        for (const field of seq.valueBlock.value) {
          const n = integerOf(rawContent(field));
          const key = field.idBlock.tagNumber === 0 ? 'RequireExplicitPolicy' : 'InhibitPolicyMapping';
          json[key] = n;
          json[`${key}Zero`] = n === 0;
        }
        break;
      }
      case '2.5.29.37': {
        const known: number[] = [];
        const unknown: GoJSON[] = [];
        for (const oid of parseAs(value, ExtendedKeyUsage, 'extended key usages')) {
          const n = EXT_KEY_USAGES[oid];
          if (n === undefined) unknown.push(oidInts(oid));
          else known.push(n);
        }
        json.ExtKeyUsage = known.length > 0 ? known : null;
        json.UnknownExtKeyUsage = unknown.length > 0 ? unknown : null;
        cert.extKeyUsage = known;
        cert.unknownExtKeyUsage = unknown.length;
        break;
      }
      case '2.5.29.14': {
        cert.subjectKeyId = Buffer.from(
          parseAs(value, SubjectKeyIdentifier, 'subject key identifier').buffer,
        );
        json.SubjectKeyId = b64(cert.subjectKeyId);
        break;
      }
      case '2.5.29.32': {
        const policies = parseAs(value, CertificatePolicies, 'certificate policies');
        json.PolicyIdentifiers = Array.from(policies, (p) => oidInts(p.policyIdentifier));
        json.Policies = Array.from(policies, (p) => p.policyIdentifier);
        break;
      }
      case '2.5.29.33':
        json.PolicyMappings = Array.from(parseAs(value, PolicyMappings, 'policy mappings'), (m) => ({
          IssuerDomainPolicy: m.issuerDomainPolicy,
          SubjectDomainPolicy: m.subjectDomainPolicy,
        }));
        break;
      case '2.5.29.54': {
        const parsed = asn1js.fromBER(Uint8Array.from(value)).result;
        if (!(parsed instanceof asn1js.Integer))
          throw new X509Error('x509: invalid inhibit any policy extension');
        json.InhibitAnyPolicy = integerOf(parsed.valueBlock.valueHexView);
        json.InhibitAnyPolicyZero = json.InhibitAnyPolicy === 0;
        break;
      }
      case '1.3.6.1.5.5.7.1.1': {
        const ocsp: string[] = [];
        const issuers: string[] = [];
        for (const ad of parseAs(value, AuthorityInfoAccessSyntax, 'authority info access')) {
          const uri = ad.accessLocation.uniformResourceIdentifier;
          if (uri === undefined) continue;
          if (ad.accessMethod === '1.3.6.1.5.5.7.48.1') ocsp.push(uri);
          else if (ad.accessMethod === '1.3.6.1.5.5.7.48.2') issuers.push(uri);
        }
        json.OCSPServer = ocsp.length > 0 ? ocsp : null;
        json.IssuingCertificateURL = issuers.length > 0 ? issuers : null;
        break;
      }
      default:
        unhandled = true;
    }
    if (e.critical && unhandled) unhandledCritical.push(oidInts(e.extnID));
  }
  json.Extensions = list.length > 0 ? list : null;
  json.UnhandledCriticalExtensions = unhandledCritical.length > 0 ? unhandledCritical : null;
  cert.unhandledCritical = unhandledCritical.length;
}

/** Name constraints as Go reads them; true when a constraint of a type Go does not handle is present. */
function nameConstraints(value: Uint8Array, critical: boolean, json: Record<string, GoJSON>): boolean {
  const seq = asn1js.fromBER(Uint8Array.from(value)).result;
  if (!(seq instanceof asn1js.Sequence)) throw new X509Error('x509: invalid NameConstraints extension');
  let unhandled = false;
  let any = false;
  for (const subtrees of seq.valueBlock.value) {
    const prefix = subtrees.idBlock.tagNumber === 0 ? 'Permitted' : 'Excluded';
    const dns: string[] = [];
    const ips: GoJSON[] = [];
    const emails: string[] = [];
    const uris: string[] = [];
    for (const subtree of (subtrees as asn1js.Constructed).valueBlock.value) {
      const base = (subtree as asn1js.Sequence).valueBlock.value[0];
      if (!base) throw new X509Error('x509: invalid NameConstraints extension');
      any = true;
      const content = rawContent(base);
      switch (base.idBlock.tagNumber) {
        case 1:
          emails.push(latin1(content));
          break;
        case 2:
          dns.push(latin1(content));
          break;
        case 6:
          uris.push(latin1(content));
          break;
        case 7:
          if (content.length !== 8 && content.length !== 32)
            throw new X509Error(`x509: IP constraint contained value of length ${content.length}`);
          ips.push(ipNet(content));
          break;
        default:
          unhandled = true;
      }
    }
    json[`${prefix}DNSDomains`] = dns.length > 0 ? dns : null;
    json[`${prefix}IPRanges`] = ips.length > 0 ? ips : null;
    json[`${prefix}EmailAddresses`] = emails.length > 0 ? emails : null;
    json[`${prefix}URIDomains`] = uris.length > 0 ? uris : null;
  }
  if (!any) throw new X509Error('x509: empty name constraints extension');
  json.PermittedDNSDomainsCritical = critical;
  return unhandled;
}

/** The raw bytes of the children of a DER SEQUENCE. */
function children(der: ArrayBuffer | Uint8Array): Uint8Array[] {
  const parsed = asn1js.fromBER(der instanceof Uint8Array ? Uint8Array.from(der) : der);
  if (parsed.offset === -1 || !(parsed.result instanceof asn1js.Sequence))
    throw new X509Error('x509: malformed certificate');
  return parsed.result.valueBlock.value.map((v) => new Uint8Array(v.valueBeforeDecodeView));
}

function sameBytes(a: ArrayBuffer | null | undefined, b: ArrayBuffer | null | undefined): boolean {
  return Buffer.from(a ?? new ArrayBuffer(0)).equals(Buffer.from(b ?? new ArrayBuffer(0)));
}

/** Go's `x509.ParseCertificate` of one DER certificate. */
export function parseCertificate(der: Buffer): ParsedCertificate {
  let c: Certificate;
  try {
    c = AsnParser.parse(der, Certificate);
  } catch {
    throw new X509Error('x509: malformed certificate');
  }
  const tbs = c.tbsCertificate;
  const tbsRaw = new Uint8Array(c.tbsCertificateRaw ?? children(der)[0]!);
  const parts = children(tbsRaw);
  const first = parts[0]?.[0] === 0xa0 ? 1 : 0;
  const [rawIssuer, , rawSubject, rawSpki] = [
    parts[first + 2],
    parts[first + 3],
    parts[first + 4],
    parts[first + 5],
  ];
  if (!rawIssuer || !rawSubject || !rawSpki) throw new X509Error('x509: malformed certificate');
  const version = tbs.version + 1;
  if (version > 3) throw new X509Error('x509: invalid version');
  const serial = signedBig(new Uint8Array(tbs.serialNumber));
  if (serial < 0n) throw new X509Error('x509: negative serial number');
  const outerAlg = c.signatureAlgorithm;
  if (
    outerAlg.algorithm !== tbs.signature.algorithm ||
    !sameBytes(outerAlg.parameters, tbs.signature.parameters)
  )
    throw new X509Error("x509: inner and outer signature algorithm identifiers don't match");
  const sigAlg = signatureAlgorithm(outerAlg.algorithm, outerAlg.parameters);
  const spki = tbs.subjectPublicKeyInfo;
  const pkAlg = PUBLIC_KEY_ALGORITHMS[spki.algorithm.algorithm] ?? 0;
  const publicKey = publicKeyJSON(
    pkAlg,
    rawSpki,
    spki.algorithm.parameters,
    new Uint8Array(spki.subjectPublicKey),
  );
  const notBefore = tbs.validity.notBefore.getTime();
  const notAfter = tbs.validity.notAfter.getTime();
  const json: Record<string, GoJSON> = {
    Raw: b64(der),
    RawTBSCertificate: b64(tbsRaw),
    RawSubjectPublicKeyInfo: b64(rawSpki),
    RawSubject: b64(rawSubject),
    RawIssuer: b64(rawIssuer),
    Signature: b64(c.signatureValue),
    SignatureAlgorithm: sigAlg,
    PublicKeyAlgorithm: pkAlg,
    PublicKey: publicKey,
    Version: version,
    SerialNumber: goInt(serial),
    Issuer: nameJSON(tbs.issuer),
    Subject: nameJSON(tbs.subject),
    NotBefore: goTime(notBefore),
    NotAfter: goTime(notAfter),
    KeyUsage: 0,
    Extensions: null,
    ExtraExtensions: null,
    UnhandledCriticalExtensions: null,
    ExtKeyUsage: null,
    UnknownExtKeyUsage: null,
    BasicConstraintsValid: false,
    IsCA: false,
    MaxPathLen: 0,
    MaxPathLenZero: false,
    SubjectKeyId: null,
    AuthorityKeyId: null,
    OCSPServer: null,
    IssuingCertificateURL: null,
    DNSNames: null,
    EmailAddresses: null,
    IPAddresses: null,
    URIs: null,
    PermittedDNSDomainsCritical: false,
    PermittedDNSDomains: null,
    ExcludedDNSDomains: null,
    PermittedIPRanges: null,
    ExcludedIPRanges: null,
    PermittedEmailAddresses: null,
    ExcludedEmailAddresses: null,
    PermittedURIDomains: null,
    ExcludedURIDomains: null,
    CRLDistributionPoints: null,
    PolicyIdentifiers: null,
    Policies: null,
    InhibitAnyPolicy: 0,
    InhibitAnyPolicyZero: false,
    InhibitPolicyMapping: 0,
    InhibitPolicyMappingZero: false,
    RequireExplicitPolicy: 0,
    RequireExplicitPolicyZero: false,
    PolicyMappings: null,
  };
  const cert: ParsedCertificate = {
    json,
    uriStrings: null,
    raw: der,
    rawSubject: Buffer.from(rawSubject),
    rawIssuer: Buffer.from(rawIssuer),
    notBefore,
    notAfter,
    version,
    signatureAlgorithm: sigAlg,
    publicKeyAlgorithm: pkAlg,
    keyUsage: 0,
    extKeyUsage: [],
    unknownExtKeyUsage: 0,
    basicConstraintsValid: false,
    isCA: false,
    maxPathLen: 0,
    unhandledCritical: 0,
    dnsNames: [],
    ipAddresses: [],
    subjectKeyId: null,
    authorityKeyId: null,
  };
  if (tbs.extensions) {
    if (version !== 3) throw new X509Error('x509: malformed extensions');
    processExtensions(tbs.extensions, json, cert);
  }
  return cert;
}

/** `f()`, with an unexpected failure of the ASN.1 readers reported as Go's error `text`. */
export function asGoError<T>(f: () => T, text: string): T {
  try {
    return f();
  } catch (err) {
    if (err instanceof X509Error) throw err;
    throw new X509Error(text);
  }
}

/** Go's `x509.ParseCertificates`: DER certificates one after the other. */
export function parseCertificates(der: Buffer): ParsedCertificate[] {
  const certs: ParsedCertificate[] = [];
  let rest = der;
  while (rest.length > 0) {
    const first = asGoError(() => asn1js.fromBER(Uint8Array.from(rest)), 'x509: malformed certificate');
    if (first.offset === -1 || !(first.result instanceof asn1js.Sequence) || first.offset > rest.length)
      throw new X509Error('x509: malformed certificate');
    certs.push(
      asGoError(() => parseCertificate(rest.subarray(0, first.offset)), 'x509: malformed certificate'),
    );
    rest = rest.subarray(first.offset);
  }
  return certs;
}

const CSR_EXTENSION_REQUEST = '1.2.840.113549.1.9.14';

/** A universal ASN.1 value as Go's `asn1.Unmarshal` into `any` gives it. */
function anyValue(v: asn1js.AsnType): GoJSON {
  if (v instanceof asn1js.OctetString) return b64(v.valueBlock.valueHexView);
  if (v instanceof asn1js.Boolean) return v.valueBlock.value;
  if (v instanceof asn1js.Integer) return goInt(signedBig(v.valueBlock.valueHexView));
  if (v instanceof asn1js.ObjectIdentifier) return oidInts(v.valueBlock.toString());
  if (
    v instanceof asn1js.PrintableString ||
    v instanceof asn1js.Utf8String ||
    v instanceof asn1js.IA5String ||
    v instanceof asn1js.NumericString ||
    v instanceof asn1js.TeletexString ||
    v instanceof asn1js.BmpString
  )
    return v.valueBlock.value;
  return null;
}

/**
 * A CSR attribute as `pkix.AttributeTypeAndValueSET` (type, then each value a SET of
 * SEQUENCE {type, value}); undefined when it does not have that shape, as Go skips it.
 */
function csrAttribute(type: string, values: ArrayBuffer[]): GoJSON | undefined {
  const json: GoJSON[] = [];
  for (const raw of values) {
    const inner = asn1js.fromBER(raw).result;
    if (!(inner instanceof asn1js.Sequence)) return undefined;
    const row: GoJSON[] = [];
    for (const atv of inner.valueBlock.value) {
      if (!(atv instanceof asn1js.Sequence)) return undefined;
      const [t, value] = atv.valueBlock.value;
      if (!(t instanceof asn1js.ObjectIdentifier) || !value) return undefined;
      row.push({ Type: oidInts(t.valueBlock.toString()), Value: anyValue(value) });
    }
    json.push(row);
  }
  return { Type: oidInts(type), Value: json };
}

/**
 * Go's `asn1.Unmarshal` error for DER that is not the structure expected: the "tags don't match"
 * text when the outer element is not a SEQUENCE, else a shorter structure error.
 */
export function asn1Error(der: Buffer, structName: string): string {
  if (der.length < 2) return 'asn1: syntax error: data truncated';
  const b0 = der[0]!;
  let offset = 2;
  let length = der[1]!;
  if (length & 0x80) {
    const n = length & 0x7f;
    length = 0;
    for (let i = 0; i < n; i++) length = length * 256 + (der[2 + i] ?? 0);
    offset += n;
  }
  if (b0 !== 0x30)
    return (
      `asn1: structure error: tags don't match (16 vs {class:${b0 >> 6} tag:${b0 & 0x1f} length:${length} ` +
      `isCompound:${(b0 & 0x20) !== 0}}) {optional:false explicit:false application:false private:false ` +
      `defaultValue:<nil> tag:<nil> stringType:0 timeType:0 set:false omitEmpty:false} ${structName} @${offset}`
    );
  if (offset + length > der.length) return 'asn1: syntax error: data truncated';
  return "asn1: structure error: tags don't match";
}

/** Go's `x509.ParseCertificateRequest`, as JSON. */
export function parseCertificateRequest(der: Buffer): GoJSON {
  return asGoError(() => readCertificateRequest(der), "asn1: structure error: tags don't match");
}

function readCertificateRequest(der: Buffer): GoJSON {
  const outer = asn1js.fromBER(Uint8Array.from(der));
  if (der[0] !== 0x30 || outer.offset === -1) throw new X509Error(asn1Error(der, 'certificateRequest'));
  if (outer.offset !== der.length) throw new X509Error('asn1: syntax error: trailing data');
  let csr: CertificationRequest;
  try {
    csr = AsnParser.parse(der, CertificationRequest);
  } catch {
    throw new X509Error("asn1: structure error: tags don't match");
  }
  const info = csr.certificationRequestInfo;
  const infoRaw = new Uint8Array(csr.certificationRequestInfoRaw ?? children(der)[0]!);
  const parts = children(infoRaw);
  const rawSubject = parts[1]!;
  const rawSpki = parts[2]!;
  const spki = info.subjectPKInfo;
  const pkAlg = PUBLIC_KEY_ALGORITHMS[spki.algorithm.algorithm] ?? 0;
  const attributes: GoJSON[] = [];
  const extensions: GoJSON[] = [];
  let san: SANs | undefined;
  for (const attr of info.attributes) {
    const parsed = csrAttribute(attr.type, attr.values);
    if (parsed) attributes.push(parsed);
    if (attr.type !== CSR_EXTENSION_REQUEST) continue;
    for (const value of attr.values) {
      const exts = asn1js.fromBER(value).result;
      if (!(exts instanceof asn1js.Sequence)) throw new X509Error('x509: invalid extension request');
      for (const ext of exts.valueBlock.value) {
        const fields = (ext as asn1js.Sequence).valueBlock.value;
        const id = oidOf(fields[0]);
        const critical = fields[1] instanceof asn1js.Boolean ? fields[1].valueBlock.value : false;
        const octets = fields[fields.length - 1];
        if (!id || !(octets instanceof asn1js.OctetString))
          throw new X509Error('x509: invalid extension request');
        extensions.push({ Id: oidInts(id), Critical: critical, Value: b64(octets.valueBlock.valueHexView) });
        if (id === '2.5.29.17') san = parseSAN(octets.valueBlock.valueHexView);
      }
    }
  }
  return {
    Raw: b64(der),
    RawTBSCertificateRequest: b64(infoRaw),
    RawSubjectPublicKeyInfo: b64(rawSpki),
    RawSubject: b64(rawSubject),
    Version: info.version,
    Signature: b64(csr.signature),
    SignatureAlgorithm: signatureAlgorithm(
      csr.signatureAlgorithm.algorithm,
      csr.signatureAlgorithm.parameters,
    ),
    PublicKeyAlgorithm: pkAlg,
    PublicKey: publicKeyJSON(
      pkAlg,
      rawSpki,
      spki.algorithm.parameters,
      new Uint8Array(spki.subjectPublicKey),
    ),
    Subject: nameJSON(info.subject),
    Attributes: attributes.length > 0 ? attributes : null,
    Extensions: extensions.length > 0 ? extensions : null,
    ExtraExtensions: null,
    DNSNames: san?.DNSNames ?? null,
    EmailAddresses: san?.EmailAddresses ?? null,
    IPAddresses: san?.IPAddresses ?? null,
    URIs: san?.URIs?.map(urlJSON) ?? null,
  };
}
