import { DecodeError, eventCodec } from '../events/codec.js';
import type { EventMap, EventName } from '../events/types.js';
import { dlq, ok, type StepResult } from './consumer-runner.js';

/**
 * The first step of every processor: decode the message as the topic's event type.
 * A message that cannot be decoded goes to the dead-letter topic with the reason;
 * it never stops the consumer.
 */
export function decodeStep<K extends EventName>(name: K): (value: Buffer | null) => StepResult<EventMap[K]> {
  return (value) => {
    try {
      return ok(eventCodec().decodeAs(name, value));
    } catch (err) {
      if (err instanceof DecodeError) return dlq(`${err.kind}: ${err.message}`, err);
      throw err;
    }
  };
}
