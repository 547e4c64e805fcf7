/** The engine's decoder of `DesiredState` bytes: anything that does not decode exactly is rejected. */
import type * as grpc from '@grpc/grpc-js';
import * as assert from 'uvu/assert';
import {
  controlPlaneClient,
  controlPlaneService,
  UndecodableMessage,
} from '../../../engine/controlplane/proto.ts';
import { test } from '../../support/suite.ts';

const connect = (controlPlaneClient() as unknown as { service: grpc.ServiceDefinition }).service
  .Connect as grpc.MethodDefinition<object, unknown>;
const decode = (hex: string) => connect.responseDeserialize(Buffer.from(hex.replaceAll(' ', ''), 'hex'));
const encode = (message: object) =>
  (controlPlaneService().Connect as grpc.MethodDefinition<object, object>).responseSerialize(message);

function rejected(hex: string, reason: RegExp) {
  const decoded = decode(hex);
  assert.instance(decoded, UndecodableMessage, `${hex} decoded as ${JSON.stringify(decoded)}`);
  assert.match((decoded as UndecodableMessage).reason, reason);
}

test('truncated: a string or a nested message longer than the bytes left', () => {
  rejected('0a 05 61', /DesiredState\.requestId: length 5 runs past the end \(1 bytes left\)/);
  rejected('12 05 0a 01 61', /DesiredState\.nodes: length 5 runs past the end \(3 bytes left\)/);
  rejected('0a', /DesiredState\.requestId: length: varint truncated/);
  rejected('0a 80', /varint truncated/);
  rejected('18 ff', /varint truncated/);
  rejected('1d 01 02', /4-byte value truncated \(2 bytes left\)/);
  rejected('19 01 02 03', /8-byte value truncated \(3 bytes left\)/);
});

test('over-long: a length past its enclosing message, a huge length, a varint over 10 bytes', () => {
  // nodes holds 3 bytes, but its node string claims 5: it must not read into the outer message.
  rejected(
    '12 03 0a 05 61 0a 01 62',
    /DesiredState\.nodes\.node: length 5 runs past the end \(1 bytes left\)/,
  );
  rejected('0a ff ff ff ff 0f 61', /length 4294967295 runs past the end/);
  rejected('18 ff ff ff ff ff ff ff ff ff ff 01', /varint longer than 10 bytes/);
});

test('wrong wire type of a known field, at any depth; groups and invalid wire types', () => {
  rejected('0d 01 02 03 04', /DesiredState\.requestId: wire type 5, expected 2/);
  rejected('10 01', /DesiredState\.nodes: wire type 0, expected 2/);
  rejected('12 05 15 01 00 00 00', /DesiredState\.nodes\.state: wire type 5, expected 0/);
  rejected('1b 1c', /wire type 3 is not valid in proto3/);
  rejected('1f', /wire type 7 is not valid in proto3/);
  rejected('00 01', /field number 0/);
});

test('a string that is not UTF-8 is rejected', () => {
  rejected('0a 01 ff', /DesiredState\.requestId: not valid UTF-8/);
  rejected('12 03 0a 01 c3', /DesiredState\.nodes\.node: not valid UTF-8/);
});

test('valid messages decode as before, unknown fields of any valid wire type included', () => {
  const message = {
    requestId: 'r-ü',
    nodes: [
      { node: 'orders', state: 'NODE_STATE_RUNNING' },
      { node: 'items', state: 'NODE_STATE_PAUSED' },
    ],
  };
  assert.equal(decode(encode(message).toString('hex')), message);
  assert.equal(decode(''), { requestId: '', nodes: [] }, 'an empty message is valid');
  // Unknown fields 9 (varint), 10 (length-delimited), 11 (fixed32), 12 (fixed64), nested too.
  const unknown = '48 96 01 52 02 68 69 5d 01 02 03 04 61 01 02 03 04 05 06 07 08';
  assert.equal(decode(`0a 01 61 ${unknown} 12 0a 0a 01 6f 10 01 48 96 01 28 00`), {
    requestId: 'a',
    nodes: [{ node: 'o', state: 'NODE_STATE_RUNNING' }],
  });
});

test.run();
