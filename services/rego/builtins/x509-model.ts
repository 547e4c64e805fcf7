/**
 * X.509 certificates and certificate requests read into the JSON shape OPA returns: Go's
 * `x509.Certificate` / `x509.CertificateRequest` through `json.Marshal` (byte slices as standard
 * base64, big integers as exact numbers, Go's enum numbers, `null` for absent slices). ASN.1 is read
 * with asn1js and the @peculiar/asn1-x509 schemas; errors carry Go's texts where they are known.
 * Names, extensions and public keys are read in the files next to this one (`x509-names.ts`,
 * `x509-extensions.ts`, `x509-public-keys.ts`), on the helpers of `x509-common.ts`.
 */
import { CertificationRequest } from '@peculiar/asn1-csr';
import { AsnParser } from '@peculiar/asn1-schema';
import { Certificate } from '@peculiar/asn1-x509';
import * as asn1js from 'asn1js';
import {
  asGoError,
  asn1Error,
  b64,
  children,
  type GoJSON,
  goInt,
  goTime,
  oidInts,
  oidOf,
  signedBig,
  X509Error,
} from './x509-common.ts';
import { processExtensions } from './x509-extensions.ts';
import { nameJSON, parseSAN, type SANs, urlJSON } from './x509-names.ts';
import { PUBLIC_KEY_ALGORITHMS, publicKeyJSON, signatureAlgorithm } from './x509-public-keys.ts';

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
