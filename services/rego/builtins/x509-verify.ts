/**
 * Chain verification as Go's `(*x509.Certificate).Verify` does it for OPA's
 * `parse_and_verify_certificates*`: the first certificate is the only root, the last the leaf, the
 * others intermediates. Signatures are checked with node:crypto; the rest (names, validity, CA
 * and path length constraints, critical extensions, extended key usages, host names) follows Go.
 */

import { X509Certificate } from 'node:crypto';
import { isIP } from 'node:net';
import type { ParsedCertificate } from './x509-model.ts';

export interface VerifyOptions {
  dnsName?: string;
  /** Nanoseconds since the epoch; now when absent. */
  currentTimeNs?: bigint;
  /** Go's ExtKeyUsage numbers; ServerAuth (1) when empty. */
  keyUsages?: number[];
}

// Go refuses MD2, MD5 and SHA-1 signatures and DSA, and signatures it does not know.
const INSECURE_OR_UNSUPPORTED = new Set([0, 1, 2, 3, 7, 8, 9]);

const nodeCerts = new WeakMap<ParsedCertificate, X509Certificate | null>();
function nodeCert(c: ParsedCertificate): X509Certificate | null {
  if (!nodeCerts.has(c)) {
    try {
      nodeCerts.set(c, new X509Certificate(c.raw));
    } catch {
      nodeCerts.set(c, null);
    }
  }
  return nodeCerts.get(c)!;
}

/** Go's `CheckSignatureFrom`: the parent may sign certificates, and its key verifies the signature. */
function checkSignatureFrom(child: ParsedCertificate, parent: ParsedCertificate): boolean {
  if (
    (parent.version === 3 && !parent.basicConstraintsValid) ||
    (parent.basicConstraintsValid && !parent.isCA)
  )
    return false;
  if (parent.keyUsage !== 0 && (parent.keyUsage & (1 << 5)) === 0) return false;
  if (parent.publicKeyAlgorithm === 0 || INSECURE_OR_UNSUPPORTED.has(child.signatureAlgorithm)) return false;
  const c = nodeCert(child);
  const p = nodeCert(parent);
  if (!c || !p) return false;
  try {
    return c.verify(p.publicKey);
  } catch {
    return false;
  }
}

type CertType = 'leaf' | 'intermediate' | 'root';

const ns = (d: Date): bigint => BigInt(d.getTime()) * 1_000_000n;

/** Go's `isValid`. */
function isValid(c: ParsedCertificate, type: CertType, chain: ParsedCertificate[], now: bigint): boolean {
  if (c.unhandledCritical > 0) return false;
  const child = chain[chain.length - 1];
  if (child && !child.rawIssuer.equals(c.rawSubject)) return false;
  if (now < ns(c.notBefore) || now > ns(c.notAfter)) return false;
  if (type === 'intermediate' && (!c.basicConstraintsValid || !c.isCA)) return false;
  if (c.basicConstraintsValid && c.maxPathLen >= 0 && chain.length - 1 > c.maxPathLen) return false;
  return true;
}

/** Candidate parents with the issuer's name, those whose key id matches the AKI first, as Go. */
function potentialParents(c: ParsedCertificate, pool: ParsedCertificate[]): ParsedCertificate[] {
  const named = pool.filter((p) => p.rawSubject.equals(c.rawIssuer));
  if (!c.authorityKeyId) return named;
  const matching = named.filter((p) => p.subjectKeyId?.equals(c.authorityKeyId!));
  const without = named.filter((p) => !p.subjectKeyId);
  const mismatched = named.filter((p) => p.subjectKeyId && !p.subjectKeyId.equals(c.authorityKeyId!));
  return [...matching, ...without, ...mismatched];
}

function buildChains(
  chain: ParsedCertificate[],
  roots: ParsedCertificate[],
  intermediates: ParsedCertificate[],
  now: bigint,
  depth: number,
): ParsedCertificate[][] {
  const c = chain[chain.length - 1]!;
  const chains: ParsedCertificate[][] = [];
  const consider = (type: CertType, candidate: ParsedCertificate) => {
    if (chain.some((x) => x.raw.equals(candidate.raw))) return;
    if (!checkSignatureFrom(c, candidate) || !isValid(candidate, type, chain, now)) return;
    if (type === 'root') chains.push([...chain, candidate]);
    else if (depth < 100)
      chains.push(...buildChains([...chain, candidate], roots, intermediates, now, depth + 1));
  };
  for (const root of potentialParents(c, roots)) consider('root', root);
  for (const intermediate of potentialParents(c, intermediates)) consider('intermediate', intermediate);
  return chains;
}

/** Go's `matchHostnames` after lower-casing: a leading `*` label matches one label. */
function matchHostname(pattern: string, host: string): boolean {
  const p = pattern.toLowerCase().replace(/\.$/, '');
  const h = host.replace(/\.$/, '');
  if (p === '' || h === '') return false;
  const pl = p.split('.');
  const hl = h.split('.');
  if (pl.length !== hl.length) return false;
  return pl.every((label, i) => (i === 0 && label === '*') || label === hl[i]);
}

function ipBytes(s: string): Buffer | undefined {
  const v = isIP(s);
  if (v === 4) return Buffer.from(s.split('.').map(Number));
  if (v !== 6) return undefined;
  const [head, tail] = s.includes('::') ? s.split('::') : [s, undefined];
  const parse = (part: string | undefined): number[] => {
    if (!part) return [];
    return part
      .split(':')
      .flatMap((g) => (g.includes('.') ? [...ipv4ToGroups(g)] : [Number.parseInt(g, 16)]));
  };
  const h = parse(head);
  const t = parse(tail);
  const groups = tail === undefined ? h : [...h, ...new Array(8 - h.length - t.length).fill(0), ...t];
  const out = Buffer.alloc(16);
  for (const [i, g] of groups.entries()) out.writeUInt16BE(g, i * 2);
  return out;
}

function ipv4ToGroups(s: string): number[] {
  const b = s.split('.').map(Number);
  return [(b[0]! << 8) | b[1]!, (b[2]! << 8) | b[3]!];
}

/** 16-byte form of an IPv4 address, so that IPv4 and IPv4-mapped IPv6 compare equal, as Go. */
function to16(b: Uint8Array): Buffer {
  return b.length === 4
    ? Buffer.concat([Buffer.alloc(10), Buffer.from([0xff, 0xff]), Buffer.from(b)])
    : Buffer.from(b);
}

/** Go's `VerifyHostname`: IP addresses against IP SANs, names against DNS SANs (never the CN). */
function verifyHostname(c: ParsedCertificate, host: string): boolean {
  const candidate = host.length >= 3 && host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  const ip = ipBytes(candidate);
  if (ip) return c.ipAddresses.some((a) => to16(a).equals(to16(ip)));
  const name = host.toLowerCase();
  return c.dnsNames.some(
    (pattern) =>
      matchHostname(pattern, name) || (name !== '' && name !== '.' && pattern.toLowerCase() === name),
  );
}

/** Go's `checkChainForKeyUsage`: some requested usage is allowed by every certificate. */
function chainAllowsUsage(chain: ParsedCertificate[], usages: number[]): boolean {
  let remaining = [...usages];
  for (let i = chain.length - 1; i >= 0; i--) {
    const c = chain[i]!;
    if (c.extKeyUsage.length === 0 && c.unknownExtKeyUsage === 0) continue;
    if (c.extKeyUsage.includes(0)) continue;
    // Netscape and Microsoft SGC count as ServerAuth (Go: "to support COMODO certificate chains").
    remaining = remaining.filter(
      (u) =>
        c.extKeyUsage.includes(u) || (u === 1 && (c.extKeyUsage.includes(10) || c.extKeyUsage.includes(11))),
    );
    if (remaining.length === 0) return false;
  }
  return true;
}

/** The verified chain, leaf first, or undefined when the chain does not verify. */
export function verifyChain(
  certs: ParsedCertificate[],
  opts: VerifyOptions,
): ParsedCertificate[] | undefined {
  if (certs.length < 2) return undefined;
  const roots = [certs[0]!];
  const intermediates = certs.slice(1, -1);
  const leaf = certs[certs.length - 1]!;
  const now = opts.currentTimeNs ?? BigInt(Date.now()) * 1_000_000n;
  if (!isValid(leaf, 'leaf', [], now)) return undefined;
  if (opts.dnsName && !verifyHostname(leaf, opts.dnsName)) return undefined;
  const candidates = roots.some((r) => r.raw.equals(leaf.raw))
    ? [[leaf]]
    : buildChains([leaf], roots, intermediates, now, 0);
  if (candidates.length === 0) return undefined;
  const usages = opts.keyUsages && opts.keyUsages.length > 0 ? opts.keyUsages : [1];
  if (usages.includes(0)) return candidates[0];
  return candidates.find((chain) => chainAllowsUsage(chain, usages));
}
