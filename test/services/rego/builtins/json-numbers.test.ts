/**
 * Integers beyond 2^53 as JSON and YAML text: OPA's numbers are arbitrary precision, so
 * `json.marshal` prints every integer with all its digits (a BigInt kept exact by the engine, or
 * an integer double such as 2^70 from arithmetic); `yaml.marshal` prints what OPA's go-yaml
 * conversion prints. Numbers within 2^53 print as `JSON.stringify` prints them.
 */
import * as assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { jsonText, toJSONText } from '../../../../services/rego/index.ts';
import { test } from '../../../support/suite.ts';
import { value } from './call.ts';
import { SINK } from './crypto-x509.fixtures.ts';

test('json.marshal: 2^70 by integer arithmetic, 2^60, a big literal, all their digits', () => {
  assert.equal(value('json.marshal(1099511627776 * 1073741824)'), '1180591620717411303424');
  assert.equal(value('json.marshal(1073741824 * 1073741824)'), '1152921504606846976');
  assert.equal(value('json.marshal(-1180591620717411303425)'), '-1180591620717411303425');
  assert.equal(
    value(
      'json.marshal({"a": [1180591620717411303425, {1180591620717411303425}], 1180591620717411303425: 1})',
    ),
    '{"1180591620717411303425":1,"a":[1180591620717411303425,[1180591620717411303425]]}',
  );
});

test('json.marshal: ordinary numbers print as before', () => {
  assert.equal(
    value('json.marshal([0, -0, 1, -1, 1.5, 0.1, 1e-7, 9007199254740991, -9007199254740991, 3.14e20])'),
    '[0,0,1,-1,1.5,0.1,1e-7,9007199254740991,-9007199254740991,314000000000000000000]',
  );
  assert.equal(
    value('json.marshal({"a": null, "b": [true, "x\\n"], "1": {}})'),
    '{"1":{},"a":null,"b":[true,"x\\n"]}',
  );
});

test('json.marshal of a certificate: SerialNumber and RSA modulus exact', () => {
  const cert = (field: string) =>
    value(`json.marshal(crypto.x509.parse_certificates(${JSON.stringify(SINK)})[0].${field})`);
  assert.equal(cert('SerialNumber'), String(0x0123456789abcdef0123n));
  const n = new X509Certificate(SINK).publicKey.export({ format: 'jwk' }).n!;
  const modulus = BigInt(`0x${Buffer.from(n, 'base64url').toString('hex')}`);
  assert.equal(cert('PublicKey'), `{"E":65537,"N":${modulus}}`);
  assert.equal(String(modulus).length, 309); // 1024 bits: as a double, 1.5088914302228674e+308
});

test('yaml.marshal: int64/uint64 exact, then floats as Go prints them, beyond float64 the digits', () => {
  assert.equal(
    value(
      'yaml.marshal({"a": 1073741824 * 1073741824, "b": 9223372036854775808, "c": 18446744073709551616, "d": 1099511627776 * 1073741824, "e": 1, "f": 1.5})',
    ),
    'a: 1152921504606846976\nb: 9223372036854775808\nc: 1.8446744073709552e+19\nd: 1.1805916207174113e+21\ne: 1\nf: 1.5\n',
  );
  const big = `1${'0'.repeat(400)}`;
  assert.equal(value(`yaml.marshal(${big})`), `${big}\n`);
});

test('jsonText: BigInts and integer doubles beyond 2^53 with their digits, else JSON.stringify', () => {
  const plain = { b: [1, 'x', null, true, 1.5], a: { c: -0 }, 2: 'two', u: undefined };
  assert.equal(jsonText(plain), JSON.stringify(plain));
  assert.equal(
    jsonText({ ...plain, big: [2n ** 70n, 2 ** 70, undefined, Number.NaN] }),
    '{"2":"two","b":[1,"x",null,true,1.5],"a":{"c":0},"big":[1180591620717411303424,1180591620717411303424,null,null]}',
  );
  assert.equal(toJSONText(2n ** 64n), '18446744073709551616');
});

test('arithmetic on integers beyond 2^53 is exact, as OPA’s arithOp (big.Int)', () => {
  // Each of these is off by one or more in doubles.
  assert.equal(value('json.marshal(9007199254740993 * 3)'), '27021597764222979');
  assert.equal(value('json.marshal(1180591620717411303424 * 2 + 1)'), '2361183241434822606849');
  assert.equal(value('json.marshal(9007199254740993 - 2)'), '9007199254740991');
  assert.equal(value('9007199254740993 - 9007199254740992'), 1);
  assert.equal(value('18446744073709551616 % 7'), 2);
  assert.equal(value('10 % 18446744073709551616'), 10);
  assert.equal(value('1180591620717411303424 * 2 + 1 == 2361183241434822606849'), true);
  // Fractions stay doubles; small integers as before.
  assert.equal(value('0.1 + 0.2'), 0.30000000000000004);
  assert.equal(value('-7 % 3'), -1);
});

test.run();
