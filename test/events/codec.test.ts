import { readFileSync } from 'node:fs';
import avro from 'avsc';
import { describe, expect, it } from 'vitest';
import { DecodeError, EventCodec } from '../../src/events/codec.js';
import { fingerprintBytes, rabin64 } from '../../src/events/fingerprint.js';
import type { ListingEvent, ProbeEvent } from '../../src/events/types.js';

const listing: ListingEvent = {
  id: 'e1',
  observedAt: Date.UTC(2026, 10, 30),
  runId: 'r1',
  fetchId: 'f1',
  source: 'mcp-registry',
  itemId: 'io.github.acme/weather',
  protocol: 'mcp',
  name: 'io.github.acme/weather',
  description: 'Forecasts and alerts via MCP',
  version: '1.2.0',
  endpointUrl: 'https://mcp.acme.dev/mcp',
  endpointTransport: 'streamable-http',
  cardUrl: null,
  serverJson: '{"name":"io.github.acme/weather"}',
  status: 'active',
  invalidReason: null,
  updatedAt: '2025-11-02T12:30:00Z',
  raw: '{}',
  rawTruncated: false,
};

describe('CRC-64-AVRO fingerprint', () => {
  it('matches the Avro specification test vectors', () => {
    // From the Avro project's schema fingerprint test data.
    expect(rabin64(Buffer.from('"null"'))).toBe(7195948357588979594n);
    expect(rabin64(Buffer.from('"int"'))).toBe(8247732601305521295n);
    expect(fingerprintBytes('"null"').toString('hex')).toBe('8a8f25cce724dd63');
  });
});

describe('EventCodec', () => {
  const codec = new EventCodec();

  it('round-trips every event type in single-object encoding', () => {
    const buf = codec.encode('Listing', listing);
    expect(buf.subarray(0, 2)).toEqual(Buffer.from([0xc3, 0x01]));
    expect(buf.subarray(2, 10).toString('hex')).toBe(codec.fingerprintOf('Listing'));
    expect(codec.decode(buf)).toEqual({ name: 'Listing', value: listing });

    const probe: ProbeEvent = {
      id: 'p1',
      observedAt: 1,
      runId: 'r',
      requestId: null,
      agentKey: 'https://mcp.acme.dev/mcp',
      protocol: 'mcp',
      targetUrl: 'https://mcp.acme.dev/mcp',
      transport: 'streamable-http',
      inSample: true,
      exchanges: [
        {
          role: 'mcp-get',
          url: 'https://mcp.acme.dev/mcp',
          status: 405,
          headers: { allow: 'POST' },
          body: Buffer.from([0xff, 0xfe, 0x00]),
          bodyTruncated: false,
          bodyBytes: 3,
          bodySha256: 'x',
          bodyKept: 'excerpt',
          remoteAddress: '203.0.113.9',
          startedAt: 1,
          durationMs: 12,
          errorClass: null,
          errorMessage: null,
          retries: 0,
        },
      ],
      robots: 'allowed',
      canary: 'ok',
      errorClass: null,
      retries: 0,
    };
    expect(codec.decodeAs('Probe', codec.encode('Probe', probe))).toEqual(probe);
  });

  it('decodes events written with an older schema after a backward-compatible change', () => {
    const older = JSON.parse(readFileSync('test/fixtures/avro/listing.v0.avsc', 'utf8'));
    const writer = avro.Type.forSchema(older);
    const oldCodecFp = codec.registerWriterSchema(older);
    expect(oldCodecFp).not.toBe(codec.fingerprintOf('Listing'));

    // An old producer wrote this message with the old schema.
    const { endpointTransport: _t, rawTruncated: _r, invalidReason: _i, ...oldValue } = listing;
    const message = Buffer.concat([Buffer.from([0xc3, 0x01]), Buffer.from(oldCodecFp, 'hex'), writer.toBuffer(oldValue)]);
    const decoded = codec.decodeAs('Listing', message);
    expect(decoded).toEqual({ ...listing, endpointTransport: null, rawTruncated: false, invalidReason: null });
  });

  it('rejects an unknown fingerprint with a clear error instead of crashing', () => {
    const buf = codec.encode('Listing', listing);
    buf.writeUInt32LE(0xdeadbeef, 2);
    expect(() => codec.decode(buf)).toThrowError(DecodeError);
    try {
      codec.decode(buf);
    } catch (err) {
      expect((err as DecodeError).kind).toBe('unknown_fingerprint');
      expect((err as Error).message).toMatch(/unknown schema fingerprint [0-9a-f]{16}/);
    }
  });

  it('rejects non-Avro and truncated messages by kind', () => {
    const kind = (m: Buffer | null) => {
      try {
        codec.decode(m);
        return 'decoded';
      } catch (err) {
        return (err as DecodeError).kind;
      }
    };
    expect(kind(Buffer.from('{"json":true}'))).toBe('not_single_object');
    expect(kind(null)).toBe('not_single_object');
    expect(kind(codec.encode('Listing', listing).subarray(0, 20))).toBe('malformed');
  });

  it('refuses a writer schema that is not backward compatible', () => {
    const older = JSON.parse(readFileSync('schemas/avro/listing.avsc', 'utf8'));
    older.fields = older.fields.map((f: { name: string }) => (f.name === 'source' ? { ...f, type: 'int' } : f));
    expect(() => codec.registerWriterSchema(older)).toThrow();
  });
});
