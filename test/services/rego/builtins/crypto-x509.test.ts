/**
 * `crypto.x509.*` and `crypto.parse_private_keys` as OPA implements them (topdown/crypto.go and its
 * tests, OPA's cryptox509* YAML cases): inputs as PEM or base64 of PEM/DER, Go's x509.Certificate
 * JSON, OPA's and Go's error texts, [false, []] for a chain that does not verify.
 */
import * as assert from 'node:assert/strict';
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { compile, RegoError, RegoObject, RegoSet, type Value } from '../../../../services/rego/index.ts';
import { test } from '../../../support/suite.ts';
import {
  CSR,
  INTERMEDIATE_CA,
  LEAF,
  ROOT_CA,
  SINK,
  TEST_ONLY_ED25519_KEY,
  TEST_ONLY_LEAF_EC_KEY,
  TEST_ONLY_SINK_RSA_KEY,
  TEST_ONLY_SINK_RSA_KEY_PKCS8,
} from './crypto-x509.fixtures.ts';

const policy = compile({});

/** A Rego value as plain JS, BigInts kept (toJSON would round them to doubles). */
function plain(v: Value): unknown {
  if (Array.isArray(v)) return v.map(plain);
  if (v instanceof RegoSet) return v.sorted().map(plain);
  if (v instanceof RegoObject)
    return Object.fromEntries(v.sortedPairs().map(([k, x]) => [k as string, plain(x)]));
  return v;
}

/** The value of `expr` with `input`, or undefined when undefined (builtin errors make it undefined). */
// biome-ignore lint/suspicious/noExplicitAny: the tests read deep fields of Go's certificate JSON
function value(expr: string, input: unknown = {}): any {
  const [solution] = policy.eval(`x := ${expr}`, { input });
  const v = solution?.get('x');
  return v === undefined ? undefined : plain(v);
}

/** The error `expr` raises with strict builtin errors: `code: message`. */
function failure(expr: string, input: unknown = {}): string {
  try {
    policy.eval(`x := ${expr}`, { input, strictBuiltinErrors: true });
  } catch (err) {
    if (err instanceof RegoError) return `${err.code}: ${err.detail}`;
    throw err;
  }
  throw new Error(`expected ${expr} to fail`);
}

const der = (pem: string) => Buffer.from(pem.replace(/-----[A-Z ]+-----/g, '').replace(/\s+/g, ''), 'base64');
const b64 = (s: string | Buffer) => Buffer.from(s).toString('base64');
const chain = [ROOT_CA, INTERMEDIATE_CA, LEAF].join('\n');
const bigFromB64url = (s: string) => BigInt(`0x${Buffer.from(s, 'base64url').toString('hex')}`);

/** Every field of Go's x509.Certificate, in its order, as json.Marshal writes them. */
const CERTIFICATE_FIELDS = [
  'Raw',
  'RawTBSCertificate',
  'RawSubjectPublicKeyInfo',
  'RawSubject',
  'RawIssuer',
  'Signature',
  'SignatureAlgorithm',
  'PublicKeyAlgorithm',
  'PublicKey',
  'Version',
  'SerialNumber',
  'Issuer',
  'Subject',
  'NotBefore',
  'NotAfter',
  'KeyUsage',
  'Extensions',
  'ExtraExtensions',
  'UnhandledCriticalExtensions',
  'ExtKeyUsage',
  'UnknownExtKeyUsage',
  'BasicConstraintsValid',
  'IsCA',
  'MaxPathLen',
  'MaxPathLenZero',
  'SubjectKeyId',
  'AuthorityKeyId',
  'OCSPServer',
  'IssuingCertificateURL',
  'DNSNames',
  'EmailAddresses',
  'IPAddresses',
  'URIs',
  'PermittedDNSDomainsCritical',
  'PermittedDNSDomains',
  'ExcludedDNSDomains',
  'PermittedIPRanges',
  'ExcludedIPRanges',
  'PermittedEmailAddresses',
  'ExcludedEmailAddresses',
  'PermittedURIDomains',
  'ExcludedURIDomains',
  'CRLDistributionPoints',
  'PolicyIdentifiers',
  'Policies',
  'InhibitAnyPolicy',
  'InhibitAnyPolicyZero',
  'InhibitPolicyMapping',
  'InhibitPolicyMappingZero',
  'RequireExplicitPolicy',
  'RequireExplicitPolicyZero',
  'PolicyMappings',
];

test('parse_certificates: a PEM certificate as Go x509.Certificate JSON (subject, SANs, extensions)', () => {
  const [cert] = value('crypto.x509.parse_certificates(input.c)', { c: SINK });
  assert.deepEqual(Object.keys(cert).sort(), [...CERTIFICATE_FIELDS, 'URIStrings'].sort());
  const node = new X509Certificate(SINK);
  const subject = {
    Country: ['DE'],
    Organization: ['Streamfold Test'],
    OrganizationalUnit: ['Policy'],
    Locality: ['Berlin'],
    Province: ['Berlin'],
    StreetAddress: ['Example Street 1'],
    PostalCode: ['10115'],
    SerialNumber: 'SF-0001',
    CommonName: 'sink.streamfold.test',
    Names: [
      { Type: [2, 5, 4, 6], Value: 'DE' },
      { Type: [2, 5, 4, 8], Value: 'Berlin' },
      { Type: [2, 5, 4, 7], Value: 'Berlin' },
      { Type: [2, 5, 4, 9], Value: 'Example Street 1' },
      { Type: [2, 5, 4, 17], Value: '10115' },
      { Type: [2, 5, 4, 10], Value: 'Streamfold Test' },
      { Type: [2, 5, 4, 11], Value: 'Policy' },
      { Type: [2, 5, 4, 3], Value: 'sink.streamfold.test' },
      { Type: [2, 5, 4, 5], Value: 'SF-0001' },
    ],
    ExtraNames: null,
  };
  assert.deepEqual(cert.Subject, subject);
  assert.deepEqual(cert.Issuer, subject);
  assert.equal(cert.Version, 3);
  assert.equal(cert.SerialNumber, 0x0123456789abcdef0123n); // beyond 2^53: exact
  assert.equal(cert.NotBefore, '2020-01-01T00:00:00Z');
  assert.equal(cert.NotAfter, '2120-01-01T00:00:00Z');
  assert.equal(cert.SignatureAlgorithm, 4); // SHA256WithRSA
  assert.equal(cert.PublicKeyAlgorithm, 1); // RSA
  const jwk = node.publicKey.export({ format: 'jwk' });
  assert.deepEqual(cert.PublicKey, { N: bigFromB64url(jwk.n!), E: 65537 });
  assert.equal(cert.KeyUsage, 1 | 4 | 32); // DigitalSignature | KeyEncipherment | CertSign
  assert.deepEqual(cert.ExtKeyUsage, [1, 3]); // ServerAuth, CodeSigning
  assert.deepEqual(cert.UnknownExtKeyUsage, [[1, 3, 6, 1, 4, 1, 99999, 1]]);
  assert.equal(cert.BasicConstraintsValid, true);
  assert.equal(cert.IsCA, true);
  assert.equal(cert.MaxPathLen, 0);
  assert.equal(cert.MaxPathLenZero, true);
  assert.deepEqual(cert.DNSNames, ['sink.streamfold.test']);
  assert.deepEqual(cert.IPAddresses, ['192.0.2.7', '2001:db8::1']);
  assert.deepEqual(cert.EmailAddresses, ['ops@streamfold.test']);
  assert.deepEqual(cert.URIStrings, ['spiffe://streamfold.test/ns/default/sa/sink']);
  assert.deepEqual(cert.URIs, [
    {
      Scheme: 'spiffe',
      Opaque: '',
      User: null,
      Host: 'streamfold.test',
      Path: '/ns/default/sa/sink',
      RawPath: '',
      OmitHost: false,
      ForceQuery: false,
      RawQuery: '',
      Fragment: '',
      RawFragment: '',
    },
  ]);
  assert.deepEqual(cert.OCSPServer, ['http://ocsp.streamfold.test']);
  assert.deepEqual(cert.IssuingCertificateURL, ['http://ca.streamfold.test/ca.crt']);
  assert.deepEqual(cert.CRLDistributionPoints, ['http://crl.streamfold.test/ca.crl']);
  assert.deepEqual(cert.PolicyIdentifiers, [
    [2, 23, 140, 1, 2, 1],
    [1, 3, 6, 1, 4, 1, 99999, 2],
  ]);
  assert.deepEqual(cert.Policies, ['2.23.140.1.2.1', '1.3.6.1.4.1.99999.2']);
  assert.equal(cert.PermittedDNSDomainsCritical, true);
  assert.deepEqual(cert.PermittedDNSDomains, ['streamfold.test']);
  assert.deepEqual(cert.PermittedIPRanges, [{ IP: '192.0.2.0', Mask: '////AA==' }]);
  assert.deepEqual(cert.ExcludedEmailAddresses, ['blocked.streamfold.test']);
  assert.equal(cert.ExcludedDNSDomains, null);
  assert.equal(cert.SubjectKeyId, b64(Buffer.from('34E15EB2948DD0B5A743ED10CF7E78851F093A20', 'hex')));
  assert.equal(cert.AuthorityKeyId, null);
  assert.equal(cert.UnhandledCriticalExtensions, null);
  assert.equal(cert.ExtraExtensions, null);
  assert.deepEqual(
    cert.Extensions.map((e: { Id: number[]; Critical: boolean }) => [e.Id.join('.'), e.Critical]),
    [
      ['2.5.29.19', true],
      ['2.5.29.15', true],
      ['2.5.29.37', false],
      ['2.5.29.17', false],
      ['1.3.6.1.5.5.7.1.1', false],
      ['2.5.29.31', false],
      ['2.5.29.32', false],
      ['2.5.29.30', true],
      ['2.5.29.14', false],
    ],
  );
  assert.equal(cert.Raw, b64(node.raw));
  assert.equal(cert.RawSubject, cert.RawIssuer);
  assert.ok(node.raw.includes(Buffer.from(cert.RawTBSCertificate, 'base64')));
  assert.ok(node.raw.includes(Buffer.from(cert.RawSubjectPublicKeyInfo, 'base64')));
  assert.equal(
    Buffer.from(cert.RawSubjectPublicKeyInfo, 'base64').toString('base64'),
    node.publicKey.export({ format: 'der', type: 'spki' }).toString('base64'),
  );
  assert.equal(cert.InhibitAnyPolicy, 0);
  assert.equal(cert.PolicyMappings, null);
});

test('parse_certificates: an ECDSA leaf (Curve {}, X, Y), key ids, no basic-constraints path length', () => {
  const [leaf] = value('crypto.x509.parse_certificates(input.c)', { c: LEAF });
  const jwk = new X509Certificate(LEAF).publicKey.export({ format: 'jwk' });
  assert.deepEqual(leaf.PublicKey, { Curve: {}, X: bigFromB64url(jwk.x!), Y: bigFromB64url(jwk.y!) });
  assert.equal(leaf.PublicKeyAlgorithm, 3);
  assert.equal(leaf.SignatureAlgorithm, 10); // ECDSAWithSHA256
  assert.equal(leaf.SerialNumber, 0x1002);
  assert.deepEqual(leaf.Subject, {
    Country: null,
    Organization: null,
    OrganizationalUnit: null,
    Locality: null,
    Province: null,
    StreetAddress: null,
    PostalCode: null,
    SerialNumber: '',
    CommonName: 'leaf.streamfold.test',
    Names: [{ Type: [2, 5, 4, 3], Value: 'leaf.streamfold.test' }],
    ExtraNames: null,
  });
  assert.equal(leaf.Issuer.CommonName, 'Streamfold Test Intermediate CA');
  assert.equal(leaf.KeyUsage, 1);
  assert.deepEqual(leaf.ExtKeyUsage, [1, 2]);
  assert.equal(leaf.UnknownExtKeyUsage, null);
  assert.equal(leaf.IsCA, false);
  assert.equal(leaf.BasicConstraintsValid, true);
  assert.equal(leaf.MaxPathLen, -1); // basic constraints without a path length
  assert.equal(leaf.MaxPathLenZero, false);
  assert.deepEqual(leaf.DNSNames, ['leaf.streamfold.test', '*.api.streamfold.test']);
  assert.deepEqual(leaf.IPAddresses, ['10.0.0.1']);
  assert.equal(leaf.EmailAddresses, null);
  assert.equal(leaf.URIs, null);
  assert.equal(leaf.URIStrings, null);
  assert.equal(leaf.AuthorityKeyId, b64(Buffer.from('C7F54CBB4E08EBCEFEF2B025D409815EC1CEDCDA', 'hex')));
  assert.equal(leaf.SubjectKeyId, b64(Buffer.from('B028AE16428F9A439DAAFC3D99BA344A4211D532', 'hex')));
  const [inter] = value('crypto.x509.parse_certificates(input.c)', { c: INTERMEDIATE_CA });
  assert.equal(inter.MaxPathLen, 0);
  assert.equal(inter.MaxPathLenZero, true);
  assert.equal(inter.KeyUsage, 32 | 64); // CertSign | CRLSign
  assert.equal(inter.ExtKeyUsage, null);
});

test('parse_certificates: a chain as PEM, base64 of PEM, base64 of DER (one or several certificates)', () => {
  const names = (input: string) =>
    value('[c.Subject.CommonName | some c in crypto.x509.parse_certificates(input.c)]', { c: input });
  const expected = ['Streamfold Test Root CA', 'Streamfold Test Intermediate CA', 'leaf.streamfold.test'];
  assert.deepEqual(names(chain), expected);
  assert.deepEqual(names(b64(chain)), expected);
  assert.deepEqual(names(b64(chain.replace(/\n/g, '\r\n'))), expected);
  assert.deepEqual(names(b64(der(LEAF))), ['leaf.streamfold.test']);
  assert.deepEqual(names(b64(Buffer.concat([der(ROOT_CA), der(INTERMEDIATE_CA), der(LEAF)]))), expected);
  // Text between PEM blocks is skipped, as pem.Decode does.
  assert.deepEqual(names(`${ROOT_CA}\nsome comment\n${LEAF}\n`), [expected[0], expected[2]]);
});

test('parse_certificates: errors as OPA gives them (bad PEM, bad DER, bad base64)', () => {
  const name = 'eval_builtin_error: crypto.x509.parse_certificates';
  // OPA's case cryptox509parsecertificates-0123: base64 of something that is not DER.
  assert.equal(
    failure('crypto.x509.parse_certificates("YmFkc3RyaW5n")'),
    `${name}: x509: malformed certificate`,
  );
  assert.equal(
    failure('crypto.x509.parse_certificates(input.c)', { c: TEST_ONLY_SINK_RSA_KEY }),
    `${name}: PEM block type is 'RSA PRIVATE KEY', expected CERTIFICATE`,
  );
  assert.equal(
    failure('crypto.x509.parse_certificates(input.c)', { c: `${LEAF}\n${TEST_ONLY_LEAF_EC_KEY}` }),
    `${name}: PEM block type is 'EC PRIVATE KEY', expected CERTIFICATE`,
  );
  const garbageDER = `-----BEGIN CERTIFICATE-----\n${b64('not a certificate')}\n-----END CERTIFICATE-----\n`;
  assert.equal(
    failure('crypto.x509.parse_certificates(input.c)', { c: garbageDER }),
    `${name}: x509: malformed certificate`,
  );
  const truncated = `-----BEGIN CERTIFICATE-----\n${b64(der(LEAF).subarray(0, -10))}\n-----END CERTIFICATE-----\n`;
  assert.equal(
    failure('crypto.x509.parse_certificates(input.c)', { c: truncated }),
    `${name}: x509: malformed certificate`,
  );
  // A malformed field deep inside (here the GeneralizedTime of NotAfter) is an error, not a crash.
  const badTime = Buffer.from(
    der(LEAF).toString('latin1').replace('21000101000000Z', '2100010100000xZ'),
    'latin1',
  );
  assert.equal(
    failure('crypto.x509.parse_certificates(input.c)', { c: b64(badTime) }),
    `${name}: x509: malformed certificate`,
  );
  // Not PEM and not base64: Go's base64 error with its offset.
  assert.equal(
    failure('crypto.x509.parse_certificates("not base64!")'),
    `${name}: illegal base64 data at input byte 3`,
  );
  assert.equal(
    failure('crypto.x509.parse_certificates(" ")'),
    `${name}: illegal base64 data at input byte 0`,
  );
  // A PEM block whose body is not base64 is skipped by pem.Decode: no certificate, no error.
  assert.deepEqual(
    value('crypto.x509.parse_certificates(input.c)', {
      c: '-----BEGIN CERTIFICATE-----\n!!!!\n-----END CERTIFICATE-----\n',
    }),
    [],
  );
  assert.equal(
    failure('crypto.x509.parse_certificates(1)'),
    'eval_type_error: crypto.x509.parse_certificates: operand 1 must be string but got number',
  );
  // Without strict builtin errors the call is undefined.
  assert.equal(value('crypto.x509.parse_certificates("YmFkc3RyaW5n")'), undefined);
});

test('parse_and_verify_certificates: root first, leaf last; the verified chain comes back leaf first', () => {
  const [ok, certs] = value('crypto.x509.parse_and_verify_certificates(input.c)', { c: chain });
  assert.equal(ok, true);
  assert.deepEqual(
    certs.map((c: { Subject: { CommonName: string } }) => c.Subject.CommonName),
    ['leaf.streamfold.test', 'Streamfold Test Intermediate CA', 'Streamfold Test Root CA'],
  );
  assert.ok('URIStrings' in certs[0]);
  assert.equal(value('crypto.x509.parse_and_verify_certificates(input.c)[0]', { c: b64(chain) }), true);
  // The root alone signs the intermediate: a two-certificate chain verifies.
  assert.equal(
    value('crypto.x509.parse_and_verify_certificates(input.c)[0]', { c: `${ROOT_CA}\n${INTERMEDIATE_CA}` }),
    true,
  );
});

test('parse_and_verify_certificates: a bad chain is [false, []], never an error', () => {
  const verify = (c: string) => failureOrValue('crypto.x509.parse_and_verify_certificates(input.c)', c);
  assert.deepEqual(verify([LEAF, INTERMEDIATE_CA, ROOT_CA].join('\n')), [false, []]); // wrong order
  assert.deepEqual(verify(`${ROOT_CA}\n${LEAF}`), [false, []]); // missing intermediate
  assert.deepEqual(verify(LEAF), [false, []]); // fewer than two certificates
  assert.deepEqual(verify([SINK, INTERMEDIATE_CA, LEAF].join('\n')), [false, []]); // another root
  assert.deepEqual(verify('YmFkc3RyaW5n'), [false, []]); // not a certificate
  assert.deepEqual(verify('not base64!'), [false, []]);
  assert.deepEqual(verify(TEST_ONLY_SINK_RSA_KEY), [false, []]);
  // The leaf is not a CA: it cannot sign (Go's CheckSignatureFrom), whatever signature it has.
  assert.deepEqual(verify([ROOT_CA, LEAF, LEAF].join('\n')), [false, []]);
});

/** The value with strict builtin errors on (an error fails the test). */
function failureOrValue(expr: string, c: string): unknown {
  const [solution] = policy.eval(`x := ${expr}`, { input: { c }, strictBuiltinErrors: true });
  return solution ? plain(solution.get('x')!) : undefined;
}

test('parse_and_verify_certificates_with_options: DNSName, CurrentTime, KeyUsages as Go verifies them', () => {
  const verified = (options: string) =>
    value(`crypto.x509.parse_and_verify_certificates_with_options(input.c, ${options})[0]`, { c: chain });
  const ns = (iso: string) => `${BigInt(Date.parse(iso)) * 1_000_000n}`;
  assert.equal(verified('{}'), true);
  assert.equal(verified('{"DNSName": "leaf.streamfold.test"}'), true);
  assert.equal(verified('{"DNSName": "LEAF.streamfold.test."}'), true);
  assert.equal(verified('{"DNSName": "x.api.streamfold.test"}'), true); // wildcard, one label
  assert.equal(verified('{"DNSName": "a.b.api.streamfold.test"}'), false);
  assert.equal(verified('{"DNSName": "bad.dns.com"}'), false);
  assert.equal(verified('{"DNSName": "10.0.0.1"}'), true); // IP SAN
  assert.equal(verified('{"DNSName": "10.0.0.2"}'), false);
  assert.equal(verified(`{"CurrentTime": ${ns('2050-06-01T00:00:00Z')}}`), true);
  assert.equal(verified(`{"CurrentTime": ${ns('2020-01-01T00:00:00Z')}}`), true); // NotBefore itself
  assert.equal(verified(`{"CurrentTime": ${BigInt(ns('2020-01-01T00:00:00Z')) - 1n}}`), false);
  assert.equal(verified(`{"CurrentTime": ${ns('2100-01-01T00:00:01Z')}}`), false); // leaf expired
  assert.equal(
    verified('{"KeyUsages": ["KeyUsageServerAuth", "KeyUsageClientAuth", "KeyUsageCodeSigning"]}'),
    true,
  );
  assert.equal(verified('{"KeyUsages": ["KeyUsageCodeSigning"]}'), false);
  assert.equal(verified('{"KeyUsages": {"KeyUsageAny"}}'), true);
  assert.equal(
    verified(
      `{"DNSName": "leaf.streamfold.test", "CurrentTime": ${ns('2030-01-01T00:00:00Z')}, "KeyUsages": ["KeyUsageServerAuth", "KeyUsageCodeSigning"], "MaxConstraintComparisons": 10}`,
    ),
    true,
  );
  // OPA marshals the plain x509.Certificate here: no URIStrings.
  const [, certs] = value('crypto.x509.parse_and_verify_certificates_with_options(input.c, {})', {
    c: chain,
  });
  assert.equal('URIStrings' in certs[0], false);
  assert.equal(certs.length, 3);
  // Certificates that do not parse: [false, []] before the options are read.
  assert.deepEqual(value('crypto.x509.parse_and_verify_certificates_with_options("bad", {"x": 1})'), [
    false,
    [],
  ]);
});

test('parse_and_verify_certificates_with_options: option errors as OPA words them', () => {
  const err = (options: string) =>
    failure(`crypto.x509.parse_and_verify_certificates_with_options(input.c, ${options})`, { c: chain });
  const name = 'eval_builtin_error: crypto.x509.parse_and_verify_certificates_with_options';
  assert.equal(err('{"DNSName": 1}'), `${name}: 'DNSName' should be a string`);
  assert.equal(err('{"CurrentTime": "string"}'), `${name}: 'CurrentTime' should be a number`);
  assert.equal(err('{"CurrentTime": 1.5}'), `${name}: 'CurrentTime' should be a valid int64 number`);
  assert.equal(
    err('{"MaxConstraintComparisons": "string"}'),
    `${name}: 'MaxConstraintComparisons' should be a number`,
  );
  assert.equal(err('{"KeyUsages": "true"}'), `${name}: 'KeyUsages' should be an Array or Set`);
  assert.equal(
    err('{"DNSName": 1, "CurrentTime": "string", "KeyUsages": {1, 2}}'),
    `${name}: 'CurrentTime' should be a number`,
  );
  assert.equal(err('{"InvalidKey": "test.com"}'), `${name}: invalid key option`);
  assert.equal(
    err('{"KeyUsages": {"KeyUsageAny", "InvalidKeyUsage", "KeyUsageServerAuth"}}'),
    `${name}: invalid entries for 'KeyUsages' found: [InvalidKeyUsage]`,
  );
  assert.equal(
    err('{"KeyUsages": ["1", "KeyUsageAny", "InvalidKeyUsage", "KeyUsageServerAuth", "2"]}'),
    `${name}: invalid entries for 'KeyUsages' found: [1 InvalidKeyUsage 2]`,
  );
  assert.equal(
    failure('crypto.x509.parse_and_verify_certificates_with_options(input.c, [])', { c: chain }),
    'eval_type_error: crypto.x509.parse_and_verify_certificates_with_options: operand 2 must be object but got array',
  );
});

test('parse_certificate_request: PEM or base64 of PEM/DER; subject, SANs, extensions, attributes', () => {
  const csr = value('crypto.x509.parse_certificate_request(input.c)', { c: CSR });
  assert.deepEqual(Object.keys(csr).sort(), [
    'Attributes',
    'DNSNames',
    'EmailAddresses',
    'Extensions',
    'ExtraExtensions',
    'IPAddresses',
    'PublicKey',
    'PublicKeyAlgorithm',
    'Raw',
    'RawSubject',
    'RawSubjectPublicKeyInfo',
    'RawTBSCertificateRequest',
    'Signature',
    'SignatureAlgorithm',
    'Subject',
    'URIs',
    'Version',
  ]);
  assert.equal(csr.Version, 0);
  assert.equal(csr.SignatureAlgorithm, 10);
  assert.equal(csr.PublicKeyAlgorithm, 3);
  const leafKey = value('crypto.x509.parse_certificates(input.c)[0].PublicKey', { c: LEAF });
  assert.deepEqual(csr.PublicKey, leafKey);
  assert.equal(csr.Subject.CommonName, 'csr.streamfold.test');
  assert.deepEqual(csr.Subject.Country, ['DE']);
  assert.deepEqual(csr.DNSNames, ['csr.streamfold.test']);
  assert.deepEqual(csr.IPAddresses, ['192.0.2.9']);
  assert.deepEqual(csr.EmailAddresses, ['csr@streamfold.test']);
  assert.equal(csr.URIs[0].Host, 'streamfold.test');
  assert.equal(csr.URIs[0].Path, '/csr');
  assert.deepEqual(
    csr.Extensions.map((e: { Id: number[]; Critical: boolean }) => [e.Id.join('.'), e.Critical]),
    [
      ['2.5.29.17', false],
      ['2.5.29.15', true],
    ],
  );
  // The challenge password attribute does not fit pkix.AttributeTypeAndValueSET: Go drops it. In
  // the extension request, each extension is read as {Type, Value}: its second field is the value.
  assert.deepEqual(csr.Attributes, [
    {
      Type: [1, 2, 840, 113549, 1, 9, 14],
      Value: [
        [
          { Type: [2, 5, 29, 17], Value: csr.Extensions[0].Value },
          { Type: [2, 5, 29, 15], Value: true },
        ],
      ],
    },
  ]);
  assert.equal(csr.Raw, b64(der(CSR)));
  const subject = (c: string) =>
    value('crypto.x509.parse_certificate_request(input.c).Subject.CommonName', { c });
  assert.equal(subject(b64(CSR)), 'csr.streamfold.test');
  assert.equal(subject(b64(der(CSR))), 'csr.streamfold.test');
});

test('parse_certificate_request: errors (another PEM type, not base64, not a CSR)', () => {
  const name = 'eval_builtin_error: crypto.x509.parse_certificate_request';
  assert.equal(
    failure('crypto.x509.parse_certificate_request(input.c)', { c: b64(LEAF) }),
    `${name}: invalid PEM-encoded certificate signing request`,
  );
  // Only "-----BEGIN CERTIFICATE REQUEST-----" is read as PEM; other PEM text goes to base64.
  assert.equal(
    failure('crypto.x509.parse_certificate_request(input.c)', { c: LEAF }),
    `${name}: illegal base64 data at input byte 0`,
  );
  // "badstring": Go's asn1 error for an element that is not the SEQUENCE expected.
  assert.equal(
    failure('crypto.x509.parse_certificate_request("YmFkc3RyaW5n")'),
    `${name}: asn1: structure error: tags don't match (16 vs {class:1 tag:2 length:97 isCompound:true}) {optional:false explicit:false application:false private:false defaultValue:<nil> tag:<nil> stringType:0 timeType:0 set:false omitEmpty:false} certificateRequest @2`,
  );
});

test('parse_keypair: certificate and key (PEM, base64, DER) as Go tls.Certificate JSON', () => {
  const ec = value('crypto.x509.parse_keypair(input.c, input.k)', { c: LEAF, k: TEST_ONLY_LEAF_EC_KEY });
  assert.deepEqual(Object.keys(ec).sort(), [
    'Certificate',
    'Leaf',
    'OCSPStaple',
    'PrivateKey',
    'SignedCertificateTimestamps',
    'SupportedSignatureAlgorithms',
  ]);
  assert.deepEqual(ec.Certificate, [b64(der(LEAF))]);
  assert.equal(ec.Leaf.Subject.CommonName, 'leaf.streamfold.test');
  assert.equal('URIStrings' in ec.Leaf, false);
  const ecJwk = createPrivateKey(TEST_ONLY_LEAF_EC_KEY).export({ format: 'jwk' });
  assert.deepEqual(ec.PrivateKey, {
    Curve: {},
    X: bigFromB64url(ecJwk.x!),
    Y: bigFromB64url(ecJwk.y!),
    D: bigFromB64url(ecJwk.d!),
  });
  assert.equal(ec.OCSPStaple, null);

  const rsa = value('crypto.x509.parse_keypair(input.c, input.k)', { c: SINK, k: TEST_ONLY_SINK_RSA_KEY });
  const j = createPrivateKey(TEST_ONLY_SINK_RSA_KEY).export({ format: 'jwk' });
  assert.deepEqual(rsa.PrivateKey, {
    N: bigFromB64url(j.n!),
    E: 65537,
    D: bigFromB64url(j.d!),
    Primes: [bigFromB64url(j.p!), bigFromB64url(j.q!)],
    Precomputed: {
      Dp: bigFromB64url(j.dp!),
      Dq: bigFromB64url(j.dq!),
      Qinv: bigFromB64url(j.qi!),
      CRTValues: [],
    },
  });
  const certificates = (c: string, k: string) =>
    value('crypto.x509.parse_keypair(input.c, input.k).Certificate', { c, k });
  assert.deepEqual(certificates(SINK, TEST_ONLY_SINK_RSA_KEY_PKCS8), [b64(der(SINK))]);
  assert.deepEqual(certificates(b64(SINK), b64(TEST_ONLY_SINK_RSA_KEY)), [b64(der(SINK))]);
  // Base64 of DER: the certificate wrapped as CERTIFICATE, the key as PRIVATE KEY (PKCS #8).
  assert.deepEqual(certificates(b64(der(SINK)), b64(der(TEST_ONLY_SINK_RSA_KEY_PKCS8))), [b64(der(SINK))]);
  // A chain: every certificate, the first one is the leaf.
  assert.deepEqual(certificates(`${LEAF}\n${INTERMEDIATE_CA}`, TEST_ONLY_LEAF_EC_KEY), [
    b64(der(LEAF)),
    b64(der(INTERMEDIATE_CA)),
  ]);
});

test('parse_keypair: bad certificate versus bad key, in crypto/tls words', () => {
  const err = (c: string, k: string) => failure('crypto.x509.parse_keypair(input.c, input.k)', { c, k });
  const name = 'eval_builtin_error: crypto.x509.parse_keypair';
  assert.equal(
    err(LEAF, TEST_ONLY_SINK_RSA_KEY),
    `${name}: tls: private key type does not match public key type`,
  );
  assert.equal(err(ROOT_CA, TEST_ONLY_LEAF_EC_KEY), `${name}: tls: private key does not match public key`);
  assert.equal(
    err(LEAF, INTERMEDIATE_CA),
    `${name}: tls: found a certificate rather than a key in the PEM for the private key`,
  );
  assert.equal(
    err(TEST_ONLY_LEAF_EC_KEY, TEST_ONLY_LEAF_EC_KEY),
    `${name}: tls: failed to find certificate PEM data in certificate input, but did find a private key; PEM inputs may have been switched`,
  );
  assert.equal(
    err(CSR, TEST_ONLY_LEAF_EC_KEY),
    `${name}: tls: failed to find "CERTIFICATE" PEM block in certificate input after skipping PEM blocks of the following types: [CERTIFICATE REQUEST]`,
  );
  assert.equal(
    err(LEAF, `${CSR}\n${INTERMEDIATE_CA}`),
    `${name}: tls: failed to find PEM block with type ending in "PRIVATE KEY" in key input after skipping PEM blocks of the following types: [CERTIFICATE REQUEST CERTIFICATE]`,
  );
  assert.equal(
    err(LEAF, '-----BEGIN PRIVATE KEY-----\nbroken'),
    `${name}: tls: failed to find any PEM data in key input`,
  );
  assert.equal(
    err('-----BEGIN CERTIFICATE-----\nbroken', TEST_ONLY_LEAF_EC_KEY),
    `${name}: tls: failed to find any PEM data in certificate input`,
  );
  const garbageKey = `-----BEGIN PRIVATE KEY-----\n${b64('not a key')}\n-----END PRIVATE KEY-----\n`;
  assert.equal(err(LEAF, garbageKey), `${name}: tls: failed to parse private key`);
  assert.equal(err(LEAF, 'not base64!'), `${name}: illegal base64 data at input byte 3`);
  assert.equal(err(b64('not a certificate'), TEST_ONLY_LEAF_EC_KEY), `${name}: x509: malformed certificate`);
  // OPA checks the key as "operand 1" too.
  assert.equal(
    failure('crypto.x509.parse_keypair(input.c, 1)', { c: LEAF }),
    'eval_type_error: crypto.x509.parse_keypair: operand 1 must be string but got number',
  );
});

test('parse_rsa_private_key: OPA JWK of the first key (PKCS #1, PKCS #8, base64); errors', () => {
  const j = createPrivateKey(TEST_ONLY_SINK_RSA_KEY).export({ format: 'jwk' });
  const expected = { kty: 'RSA', n: j.n, e: j.e, d: j.d, p: j.p, q: j.q, dp: j.dp, dq: j.dq, qi: j.qi };
  const jwk = (k: string) => value('crypto.x509.parse_rsa_private_key(input.k)', { k });
  assert.deepEqual(jwk(TEST_ONLY_SINK_RSA_KEY), expected);
  assert.deepEqual(jwk(TEST_ONLY_SINK_RSA_KEY_PKCS8), expected);
  assert.deepEqual(jwk(b64(TEST_ONLY_SINK_RSA_KEY)), expected);
  assert.deepEqual(jwk(`${LEAF}\n${TEST_ONLY_SINK_RSA_KEY}`), expected);
  // OPA's JWK of an ECDSA private key carries its type only.
  assert.deepEqual(jwk(TEST_ONLY_LEAF_EC_KEY), { kty: 'EC' });
  assert.equal(jwk(LEAF), null); // no key in the input
  const name = 'eval_builtin_error: crypto.x509.parse_rsa_private_key';
  // OPA's case cryptox509parsersaprivatekey/invalid.
  assert.equal(
    failure('crypto.x509.parse_rsa_private_key("invalid")'),
    `${name}: illegal base64 data at input byte 4`,
  );
  assert.equal(failure('crypto.x509.parse_rsa_private_key("")'), `${name}: input PEM data was empty`);
  assert.equal(
    failure('crypto.x509.parse_rsa_private_key(input.k)', { k: TEST_ONLY_ED25519_KEY }),
    `${name}: invalid key type ed25519.PrivateKey`,
  );
  assert.equal(
    failure('crypto.x509.parse_rsa_private_key(input.k)', {
      k: TEST_ONLY_SINK_RSA_KEY_PKCS8.replace('PRIVATE', 'RSA PRIVATE').replace(
        'END PRIVATE',
        'END RSA PRIVATE',
      ),
    }),
    `${name}: x509: failed to parse private key (use ParsePKCS8PrivateKey instead for this key format)`,
  );
});

test('crypto.parse_private_keys: every key block as Go key structs; no keys, corrupted keys', () => {
  const keys = (k: string) => value('crypto.parse_private_keys(input.k)', { k });
  const mixed = keys(
    [ROOT_CA, INTERMEDIATE_CA, LEAF, TEST_ONLY_LEAF_EC_KEY, TEST_ONLY_SINK_RSA_KEY].join('\n'),
  );
  assert.equal(mixed.length, 2);
  assert.deepEqual(Object.keys(mixed[0]).sort(), ['Curve', 'D', 'X', 'Y']);
  assert.deepEqual(Object.keys(mixed[1]).sort(), ['D', 'E', 'N', 'Precomputed', 'Primes']);
  assert.deepEqual(keys(b64(TEST_ONLY_SINK_RSA_KEY_PKCS8)), [mixed[1]]);
  const ed = createPrivateKey(TEST_ONLY_ED25519_KEY).export({ format: 'jwk' });
  const edGo = b64(Buffer.concat([Buffer.from(ed.d!, 'base64url'), Buffer.from(ed.x!, 'base64url')]));
  assert.deepEqual(keys(TEST_ONLY_ED25519_KEY), [edGo]);
  // OPA's "partially valid PEM data": text around and inside blocks, two keys found.
  const body = TEST_ONLY_ED25519_KEY.split('\n')[1];
  const block = `-----BEGIN PRIVATE KEY-----\n ${body}\n-----END PRIVATE KEY-----\n`;
  assert.deepEqual(
    keys(`\nsomething else\n${block}something else\n${LEAF}\nsomething else\n${block}something else\n`),
    [edGo, edGo],
  );
  assert.deepEqual(keys('nothingtoseehere'), []);
  assert.deepEqual(keys(chain), []);
  assert.equal(keys(''), null);
  // OPA's "corrupted key": Go's asn1 error for a PKCS #8 block that is not DER.
  const corrupted = `-----BEGIN PRIVATE KEY-----\n${'x'.repeat(64)}\n-----END PRIVATE KEY-----\n`;
  assert.equal(
    failure('crypto.parse_private_keys(input.k)', { k: corrupted }),
    "eval_builtin_error: crypto.parse_private_keys: asn1: structure error: tags don't match (16 vs {class:3 tag:7 length:28 isCompound:false}) {optional:false explicit:false application:false private:false defaultValue:<nil> tag:<nil> stringType:0 timeType:0 set:false omitEmpty:false} pkcs8 @2",
  );
});

test.run();
