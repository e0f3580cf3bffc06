import { describe, expect, it } from 'vitest';
import { jsonObjectOrNull, textOrNull } from '../../src/util/text.js';

describe('textOrNull', () => {
  it('valid UTF-8, BOM, truncation inside a multi-byte character, no response', () => {
    expect(textOrNull(Buffer.from('héllo'))).toEqual({ text: 'héllo', validUtf8: true });
    expect(textOrNull(Buffer.from('\uFEFF{"a":1}'))).toEqual({ text: '{"a":1}', validUtf8: true });
    const cut = Buffer.from('ab€').subarray(0, 4);
    expect(textOrNull(cut).validUtf8).toBe(false);
    expect(textOrNull(cut, true)).toEqual({ text: 'ab', validUtf8: true });
    // No status: there was no response, so there is no text either.
    const none = { status: null, body: Buffer.alloc(0), bodyTruncated: false };
    expect(textOrNull(none)).toEqual({ text: null, validUtf8: false });
  });
  it('jsonObjectOrNull accepts objects only', () => {
    expect(jsonObjectOrNull(Buffer.from('{"a":1}'))).toEqual({ a: 1 });
    expect(jsonObjectOrNull(Buffer.from('[1]'))).toBeNull();
    expect(jsonObjectOrNull(Buffer.from('"s"'))).toBeNull();
    expect(jsonObjectOrNull(Buffer.from('null'))).toBeNull();
    expect(jsonObjectOrNull(Buffer.from('{"a":'))).toBeNull();
    expect(jsonObjectOrNull(Buffer.from(''))).toBeNull();
  });
});
