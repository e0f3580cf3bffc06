/** Server-sent events as the MCP probe and the inspect read them (src/http/sse.ts, eventsource-parser). */
import { describe, expect, it } from 'vitest';
import { hasCompleteSseEvent, isEventStream, sseEvents } from '../../src/core/sse.js';

describe('sseEvents', () => {
  it('reads complete events in order: the type defaults to message, the id is kept, data lines are joined', () => {
    const text = 'event: endpoint\ndata: /messages?s=1\n\n: keepalive\n\nid: 7\ndata: {"a":\ndata: 1}\n\ndata: never ended';
    expect(sseEvents(text)).toEqual([
      { event: 'endpoint', data: '/messages?s=1' },
      { event: 'message', data: '{"a":\n1}', id: '7' },
    ]);
  });

  it('any line ending (CRLF, CR, LF) ends a line; a block without data is no event', () => {
    expect(sseEvents('data: a\r\n\r\ndata: b\r\rdata: c\n\n').map((e) => e.data)).toEqual(['a', 'b', 'c']);
    expect(sseEvents('event: ping\n\nretry: 1000\n\n')).toEqual([]);
  });
});

describe('hasCompleteSseEvent and isEventStream', () => {
  it('a complete event only', () => {
    expect(hasCompleteSseEvent(Buffer.from('event: endpoint\ndata: /m\n\n'))).toBe(true);
    expect(hasCompleteSseEvent(Buffer.from('data: x\n'))).toBe(false);
  });

  it('the media type, whatever its case and parameters', () => {
    expect(isEventStream({ 'content-type': 'Text/Event-Stream; charset=utf-8' })).toBe(true);
    expect(isEventStream({ 'content-type': 'application/json' })).toBe(false);
    expect(isEventStream({})).toBe(false);
  });
});
