import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import avro from 'avsc';
import { fingerprintBytes } from './fingerprint.js';
import type { AnyEvent, EventMap, EventName } from './types.js';

/** Single-object encoding marker (Avro spec): 0xC3 0x01, then 8 fingerprint bytes. */
const MAGIC = Buffer.from([0xc3, 0x01]);
const HEADER_BYTES = 10;

export const SCHEMA_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'schemas', 'avro');

export type DecodeErrorKind = 'not_single_object' | 'unknown_fingerprint' | 'malformed';

/** A message that cannot be decoded. Consumers route it to the dead-letter topic with this reason. */
export class DecodeError extends Error {
  override name = 'DecodeError';
  constructor(
    readonly kind: DecodeErrorKind,
    message: string,
  ) {
    super(message);
  }
}

interface Writer {
  readonly eventName: EventName;
  readonly type: avro.Type;
  /** Resolver from this writer schema to the current reader; absent when they are the same schema. */
  readonly resolver: avro.Resolver | null;
}

/**
 * Encodes events with the current schema of schemas/avro and decodes messages
 * written with the current or any registered older schema (schemas/avro/history),
 * resolving them to the current reader schema (Avro schema resolution).
 */
export class EventCodec {
  private readonly current = new Map<EventName, { type: avro.Type; fingerprint: Buffer }>();
  private readonly writers = new Map<string, Writer>();

  constructor(schemaDir: string = SCHEMA_DIR) {
    for (const file of readdirSync(schemaDir).filter((f) => f.endsWith('.avsc')).sort()) {
      const type = avro.Type.forSchema(JSON.parse(readFileSync(join(schemaDir, file), 'utf8')));
      const eventName = shortName(type);
      const fp = fingerprintBytes(JSON.stringify(type.schema()));
      this.current.set(eventName, { type, fingerprint: fp });
      this.writers.set(fp.toString('hex'), { eventName, type, resolver: null });
    }
    const history = join(schemaDir, 'history');
    if (existsSync(history)) {
      for (const file of readdirSync(history).filter((f) => f.endsWith('.avsc')).sort()) {
        this.registerWriterSchema(JSON.parse(readFileSync(join(history, file), 'utf8')));
      }
    }
  }

  /** Makes an older (or other) writer schema decodable. It must resolve to the current reader schema. */
  registerWriterSchema(schema: object): string {
    const type = avro.Type.forSchema(schema as avro.Schema);
    const eventName = shortName(type);
    const reader = this.current.get(eventName);
    if (!reader) throw new Error(`writer schema ${type.name ?? '?'} has no current schema in schemas/avro`);
    const fp = fingerprintBytes(JSON.stringify(type.schema())).toString('hex');
    if (!this.writers.has(fp)) {
      // createResolver throws when the change is not backward compatible: refuse at load, not at read.
      this.writers.set(fp, { eventName, type, resolver: reader.type.createResolver(type) });
    }
    return fp;
  }

  encode<K extends EventName>(name: K, value: EventMap[K]): Buffer {
    const entry = this.current.get(name);
    if (!entry) throw new Error(`no schema for event ${name}`);
    return Buffer.concat([MAGIC, entry.fingerprint, entry.type.toBuffer(value)]);
  }

  decode(message: Buffer | Uint8Array | null | undefined): AnyEvent {
    if (!message || message.length < HEADER_BYTES || message[0] !== MAGIC[0] || message[1] !== MAGIC[1]) {
      throw new DecodeError('not_single_object', 'message is not Avro single-object encoded (missing C3 01 marker)');
    }
    const buf = Buffer.isBuffer(message) ? message : Buffer.from(message);
    const fp = buf.subarray(2, HEADER_BYTES).toString('hex');
    const writer = this.writers.get(fp);
    if (!writer) {
      throw new DecodeError('unknown_fingerprint', `unknown schema fingerprint ${fp}: no registered writer schema`);
    }
    const reader = this.current.get(writer.eventName)!;
    try {
      const body = buf.subarray(HEADER_BYTES);
      const value = writer.resolver ? reader.type.fromBuffer(body, writer.resolver) : reader.type.fromBuffer(body);
      return { name: writer.eventName, value } as AnyEvent;
    } catch (err) {
      throw new DecodeError('malformed', `cannot decode ${writer.eventName}: ${(err as Error).message}`);
    }
  }

  /** Decodes and checks the event type, for consumers of single-type topics. */
  decodeAs<K extends EventName>(name: K, message: Buffer | null | undefined): EventMap[K] {
    const ev = this.decode(message);
    if (ev.name !== name) throw new DecodeError('malformed', `expected ${name} event, got ${ev.name}`);
    return ev.value as EventMap[K];
  }

  fingerprintOf(name: EventName): string {
    return this.current.get(name)!.fingerprint.toString('hex');
  }
}

function shortName(type: avro.Type): EventName {
  const full = type.name ?? '';
  return full.slice(full.lastIndexOf('.') + 1) as EventName;
}

let shared: EventCodec | undefined;
/** The process-wide codec over the project's schemas. */
export function eventCodec(): EventCodec {
  return (shared ??= new EventCodec());
}
