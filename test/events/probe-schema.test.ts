import { readFileSync } from 'node:fs';
import avro from 'avsc';
import { describe, expect, it } from 'vitest';
import { EventCodec } from '../../src/events/codec.js';
import { fingerprintBytes } from '../../src/events/fingerprint.js';
import type { DocumentEvent } from '../../src/events/types.js';
import { TOPICS } from '../../src/topics.js';
import { probeEvent, probeExchange } from '../helpers/probe-events.js';

// What is kept (seed 003 §7): probe exchanges say what their body holds (bodyKept), documents
// travel on their own compacted topic, and events written before stay decodable.

describe('the probe schema after bodies were kept apart', () => {
  const codec = new EventCodec();

  it('decodes a probe event written with the previous schema (history) with its inline body, as `whole`', () => {
    const previous = JSON.parse(readFileSync('schemas/avro/history/probe.v1.avsc', 'utf8'));
    const writer = avro.Type.forSchema(previous);
    const fp = fingerprintBytes(JSON.stringify(writer.schema()));
    expect(fp.toString('hex')).not.toBe(codec.fingerprintOf('Probe'));
    const card = '{"name":"Old agent"}';
    const { bodyKept: _k, ...oldExchange } = probeExchange('card', 'https://a.example/card.json', 200, card, {
      'content-type': 'application/json',
      server: 'x',
    });
    const old = probeEvent(1_700_000_000_000, 'old-1', 'https://a.example/card.json', 'a2a', [oldExchange]);
    const message = Buffer.concat([Buffer.from([0xc3, 0x01]), fp, writer.toBuffer(old)]);
    const decoded = codec.decodeAs('Probe', message);
    expect(decoded.exchanges[0]).toMatchObject({ bodyKept: 'whole', headers: { 'content-type': 'application/json', server: 'x' } });
    expect(decoded.exchanges[0]!.body.toString()).toBe(card);
  });

  it('round-trips a Document, and the documents topic is compacted and kept', () => {
    const doc: DocumentEvent = {
      sha256: 'ab'.repeat(32),
      body: Buffer.from('{"name":"x"}'),
      observedAt: 5,
      url: 'https://a.example/card.json',
    };
    expect(codec.decodeAs('Document', codec.encode('Document', doc))).toEqual(doc);
    expect(TOPICS.documents.config).toMatchObject({ 'cleanup.policy': 'compact', 'retention.ms': '-1' });
  });
});
