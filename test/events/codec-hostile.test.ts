/**
 * Issue 10, item 3: a 188-byte message whose array block count says 10^8 killed the consumer
 * (avsc allocates for the count it reads; V8 ran out of heap, exit 134, before the dead-letter
 * path could act). Now it is a DecodeError. Through a real topic: test/kafka/hostile-message.test.ts.
 */
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DecodeError, EventCodec } from '../../src/events/codec.js';
import { HOSTILE_BLOCK_COUNT, HOSTILE_BYTES, hostileMessage, varint } from './hostile-message.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const codec = new EventCodec();

function decodeError(message: Buffer): DecodeError {
  try {
    codec.decode(message);
  } catch (err) {
    if (err instanceof DecodeError) return err;
    throw err;
  }
  throw new Error('decoded');
}

describe('the 188-byte message', () => {
  it('is what the issue describes: a valid header and Probe fingerprint, then a block count of 10^8', () => {
    const m = hostileMessage(codec);
    expect(m.length).toBe(HOSTILE_BYTES);
    expect(m.subarray(0, 2)).toEqual(Buffer.from([0xc3, 0x01]));
    expect(m.subarray(2, 10).toString('hex')).toBe(codec.fingerprintOf('Probe'));
    expect(m.includes(varint(HOSTILE_BLOCK_COUNT))).toBe(true);
  });

  it('is a DecodeError in a fresh process with a 256 MB heap, not a heap exhaustion (exit 134)', () => {
    // Apart, because the failure being fixed kills the process that decodes.
    const child = spawnSync(
      process.execPath,
      ['--max-old-space-size=256', '--import', 'tsx', join(HERE, 'fixtures', 'decode-child.ts'), hostileMessage(codec).toString('hex')],
      {
        encoding: 'utf8',
        timeout: 60_000,
      },
    );
    const fatal = child.stderr.split('\n').find((l) => /heap|FATAL/.test(l));
    expect({ status: child.status, signal: child.signal, fatal }).toEqual({ status: 0, signal: null, fatal: undefined });
    const out = JSON.parse(child.stdout.trim()) as { outcome: string; kind: string; message: string; ms: number };
    expect(out).toMatchObject({ outcome: 'decode_error', kind: 'malformed' });
    expect(out.message).toMatch(/array block of 100000000 items needs at least \d+ bytes, \d+ remain/);
    expect(out.ms).toBeLessThan(100);
  }, 70_000);

  it('is a DecodeError in process, with the same reason when the count is negative (a sized block)', () => {
    expect(decodeError(hostileMessage(codec)).kind).toBe('malformed');
    const sized = hostileMessage(codec, HOSTILE_BYTES, -HOSTILE_BLOCK_COUNT);
    expect(decodeError(sized).message).toMatch(/block size|array block of 100000000 items/);
  });
});
