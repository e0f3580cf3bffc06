/**
 * Reading server-sent events (WHATWG HTML §9.2, the `text/event-stream` format) out of the text
 * read so far, with eventsource-parser: the MCP probe's stop rule, the inspect's legacy
 * HTTP+SSE stream and the rules that judge them read events the same way. A block that carries no `data` line dispatches no
 * event (the format's own rule), and an unterminated last event is not complete yet.
 */
import { createParser } from 'eventsource-parser';

export interface SseEvent {
  /** The event type; `message` when the block names none. */
  event: string;
  data: string;
  id?: string;
}

/** The complete events of an event-stream text, in order. */
export function sseEvents(text: string): SseEvent[] {
  const events: SseEvent[] = [];
  const parser = createParser({
    onEvent: (e) =>
      events.push(
        e.id === undefined ? { event: e.event ?? 'message', data: e.data } : { event: e.event ?? 'message', data: e.data, id: e.id },
      ),
  });
  parser.feed(text);
  return events;
}

/** True once `body` holds one complete event. */
export function hasCompleteSseEvent(body: Buffer): boolean {
  return sseEvents(body.toString('utf8')).length > 0;
}

/** An answer whose media type is `text/event-stream` (the judge's rule too). */
export function isEventStream(headers: Record<string, string>): boolean {
  return /^\s*text\/event-stream\b/i.test(headers['content-type'] ?? '');
}
