import type { LibrdKafkaError } from 'node-rdkafka';
import * as assert from 'uvu/assert';
import { isFatalProducerError, isRetriableCommitError } from '../../../operators/broker/kafka/errors.ts';
import { test } from '../../support/suite.ts';

const error = (code: number, message: string, isFatal?: boolean) =>
  ({ code, message, ...(isFatal === undefined ? {} : { isFatal }) }) as LibrdKafkaError;

test('the producer is replaced on fatal errors and codes 45, 47, 49 and 59', () => {
  for (const code of [-150, 45, 47, 49, 59])
    assert.ok(isFatalProducerError(error(code, 'x')), `code ${code}`);
  assert.ok(isFatalProducerError(error(-1, 'anything', true)), 'flagged fatal by librdkafka');
});

test('delivery-report errors, which node-rdkafka hands over without their code, are recognised by their text', () => {
  const lost = (message: string) => isFatalProducerError(error(-1, message));
  assert.ok(
    lost('producer attempted to use a producer id which is not currently assigned to its transactional id'),
  );
  assert.ok(lost('unknown producer id'));
  assert.ok(lost('broker received an out of order sequence number'));
  assert.ok(lost('producer attempted an operation with an old epoch'));
});

test('transient errors keep the producer', () => {
  assert.not.ok(isFatalProducerError(error(-1, 'broker transport failure')));
  assert.not.ok(isFatalProducerError(error(-195, 'broker transport failure')));
  assert.not.ok(isFatalProducerError(error(3, 'unknown topic or partition')));
  assert.not.ok(isFatalProducerError(error(-192, 'message timed out')));
});

test('a commit is repeated when the group coordinator moves or is unreachable, not for other failures', () => {
  for (const code of [14, 15, 16, 7, -195, -187, -185, -180])
    assert.ok(isRetriableCommitError({ code }), `code ${code}`);
  for (const code of [22, 25, 27, -168, 3, undefined])
    assert.not.ok(isRetriableCommitError({ code }), `code ${code}`);
});

test.run();
