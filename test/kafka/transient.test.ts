import kafkajs from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { isTransientKafkaError } from '../../src/kafka/transient.js';
import { ConsumerStoppedError } from '../../src/kafka/consumer-runner.js';

const { KafkaJSConnectionError, KafkaJSNumberOfRetriesExceeded, KafkaJSNonRetriableError, KafkaJSBrokerNotFound } = kafkajs;

describe('isTransientKafkaError (kafkajs error classes)', () => {
  it('takes a lost broker, and retries run out on one, as worth trying again', () => {
    const refused = new KafkaJSConnectionError('Connection error: connect ECONNREFUSED 127.0.0.1:9092');
    expect(isTransientKafkaError(refused)).toBe(true);
    // Its declared constructor takes no arguments; the class itself needs its message.
    const notFound = new (KafkaJSBrokerNotFound as unknown as new (message: string) => Error)('Broker 2 not found in the cached metadata');
    expect(isTransientKafkaError(notFound)).toBe(true);
    expect(isTransientKafkaError(new KafkaJSNumberOfRetriesExceeded(refused, { retryCount: 8, retryTime: 5000 }))).toBe(true);
  });

  it('leaves non-retriable kafkajs errors, our own errors and plain values alone', () => {
    expect(isTransientKafkaError(new KafkaJSNonRetriableError('Invalid topic'))).toBe(false);
    const wrapped = new ConsumerStoppedError('sink failed', { cause: new KafkaJSConnectionError('refused') });
    expect(isTransientKafkaError(wrapped)).toBe(false);
    expect(isTransientKafkaError(new Error('ECONNREFUSED'))).toBe(false);
    expect(isTransientKafkaError(null)).toBe(false);
    expect(isTransientKafkaError('KafkaJSConnectionError')).toBe(false);
  });
});
