/** Certificate extensions read as Go's `processExtensions` does, name constraints included. */
import {
  AuthorityInfoAccessSyntax,
  AuthorityKeyIdentifier,
  BasicConstraints,
  CertificatePolicies,
  CRLDistributionPoints,
  ExtendedKeyUsage,
  type Extension,
  PolicyMappings,
  SubjectKeyIdentifier,
} from '@peculiar/asn1-x509';
import * as asn1js from 'asn1js';
import { b64, type GoJSON, integerOf, oidInts, parseAs, rawContent, X509Error } from './x509-common.ts';
import type { ParsedCertificate } from './x509-model.ts';
import { ipNet, latin1, parseSAN, urlJSON } from './x509-names.ts';

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

function bitStringBits(value: Uint8Array, what: string): (i: number) => boolean {
  const parsed = asn1js.fromBER(Uint8Array.from(value)).result;
  if (!(parsed instanceof asn1js.BitString)) throw new X509Error(`x509: invalid ${what}`);
  const bytes = parsed.valueBlock.valueHexView;
  return (i) => i / 8 < bytes.length && (bytes[i >> 3]! & (0x80 >> (i & 7))) !== 0;
}

/** Extensions read as Go's `processExtensions` does, into `json` and `cert`. */
export function processExtensions(
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
