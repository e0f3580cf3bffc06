/**
 * The Kafka sink splits what it sends so that no produce call (one record batch per partition)
 * comes near Kafka's 1 MB default, whatever a page of listings or a batch of probes holds.
 */
import { describe, expect, it } from 'vitest';
import { eventCodec } from '../../src/events/codec.js';
import type { ListingEvent, ProbeEvent } from '../../src/events/types.js';
import { listingEvent } from '../helpers/listing-events.js';
import type { EventProducer, OutgoingMessage } from '../../src/kafka/producer.js';
import { KAFKA_DEFAULT_MESSAGE_MAX_BYTES, PRODUCE_MAX_BYTES } from '../../src/kafka/limits.js';
import { chunkMessages, messageBytes } from '../../src/kafka/producer.js';
import { KafkaObservationSink } from '../../src/producers/kafka-sink.js';
import { topicNames } from '../../src/topics.js';

/** Records every produce call instead of sending it. */
function recordingProducer() {
  const calls: Array<{ topic: string; messages: readonly OutgoingMessage[] }> = [];
  const producer = {
    async send(topic: string, messages: readonly OutgoingMessage[]) {
      calls.push({ topic, messages });
      return [];
    },
  } as unknown as EventProducer;
  return { producer, calls };
}

const callBytes = (messages: readonly OutgoingMessage[]) => messages.reduce((n, m) => n + messageBytes(m), 0);

function listing(i: number, descriptionChars: number): ListingEvent {
  return listingEvent({
    id: `id-${i}`,
    observedAt: 0,
    itemId: `io.github.o${i}/s`,
    name: `s${i}`,
    description: 'd'.repeat(descriptionChars),
    endpointUrl: `https://o${i}.example/mcp`,
  });
}

function probe(i: number, bodyBytes: number): ProbeEvent {
  return {
    id: `p-${i}`,
    observedAt: 0,
    runId: 'r',
    requestId: null,
    agentKey: `https://a${i}.example/card.json`,
    protocol: 'a2a',
    targetUrl: `https://a${i}.example/card.json`,
    transport: null,
    inSample: true,
    robots: 'allowed',
    canary: 'ok',
    errorClass: null,
    retries: 0,
    exchanges: [
      {
        role: 'card',
        url: `https://a${i}.example/card.json`,
        status: 200,
        headers: {},
        body: Buffer.alloc(bodyBytes, 'c'),
        bodyTruncated: false,
        bodyBytes,
        bodySha256: '',
        remoteAddress: '203.0.113.1',
        startedAt: 0,
        durationMs: 1,
        errorClass: null,
        errorMessage: null,
        retries: 0,
      },
    ],
  };
}

describe('KafkaObservationSink: produce calls of bounded size', () => {
  it('a page of listings totalling ~3 MB goes out in calls of at most PRODUCE_MAX_BYTES, in order', async () => {
    const { producer, calls } = recordingProducer();
    const sink = new KafkaObservationSink(producer, topicNames());
    const events = Array.from({ length: 100 }, (_, i) => listing(i, 30_000));
    await sink.listings(events);
    expect(calls.length).toBeGreaterThan(3);
    for (const c of calls) {
      expect(c.topic).toBe(topicNames().listings);
      expect(callBytes(c.messages)).toBeLessThanOrEqual(PRODUCE_MAX_BYTES);
    }
    const keys = calls.flatMap((c) => c.messages.map((m) => m.key));
    expect(keys).toEqual(events.map((e) => `mcp-registry:${e.itemId}`));
  });

  it('a batch of large probe events (several 500 KB cards) is split so no call nears 1 MB', async () => {
    const { producer, calls } = recordingProducer();
    const sink = new KafkaObservationSink(producer, topicNames());
    const events = Array.from({ length: 5 }, (_, i) => probe(i, 500 * 1024));
    await sink.probes(events);
    expect(calls).toHaveLength(5);
    for (const c of calls) expect(callBytes(c.messages)).toBeLessThan(KAFKA_DEFAULT_MESSAGE_MAX_BYTES);
    const decoded = calls.flatMap((c) => c.messages.map((m) => eventCodec().decodeAs('Probe', m.value).id));
    expect(decoded).toEqual(events.map((e) => e.id));
    // small events share a call
    calls.length = 0;
    await sink.probes(Array.from({ length: 50 }, (_, i) => probe(i, 1000)));
    expect(calls).toHaveLength(1);
  });

  it('chunkMessages: a message over the limit goes alone; empty input sends nothing', () => {
    const m = (n: number): OutgoingMessage => ({ key: 'k', value: Buffer.alloc(n) });
    const chunks = chunkMessages([m(100), m(100), m(2000), m(100)], 1000);
    expect(chunks.map((c) => c.map((x) => x.value.length))).toEqual([[100, 100], [2000], [100]]);
    expect(chunkMessages([], 1000)).toEqual([]);
  });
});
