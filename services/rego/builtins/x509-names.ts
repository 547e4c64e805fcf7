/**
 * Names in certificates as Go's x509 reads them: `pkix.Name`, subject alternative names (DNS,
 * e-mail, IP, URI as Go's `url.URL`) and the IP networks of name constraints.
 */
import type { Name } from '@peculiar/asn1-x509';
import * as asn1js from 'asn1js';
import { b64, type GoJSON, oidInts, rawContent, X509Error } from './x509-common.ts';

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
export function nameJSON(name: Name): GoJSON {
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
export function urlJSON(raw: string): GoJSON {
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

export const latin1 = (b: Uint8Array) => Buffer.from(b).toString('latin1');

export interface SANs {
  DNSNames: string[] | null;
  EmailAddresses: string[] | null;
  IPAddresses: string[] | null;
  URIs: string[] | null;
  ipBytes: Uint8Array[];
}

export function parseSAN(value: Uint8Array): SANs {
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

export function ipNet(content: Uint8Array): GoJSON {
  const half = content.length / 2;
  return { IP: goIP(content.subarray(0, half)), Mask: b64(content.subarray(half)) };
}
