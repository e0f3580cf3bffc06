import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isSecretName, looksLikeCredential, redactText, redactUrl } from '../../src/util/redact.js';

describe('redactUrl: secrets out of a URL, everything else as it was', () => {
  it.each([
    ['https://r.example/v0?token=abc&page=2', 'https://r.example/v0?token=***&page=2'],
    [
      'https://r.example/?api_key=a&apiKey=b&key=c&X-Amz-Signature=d&client_secret=e&sessionId=f&password=g',
      'https://r.example/?api_key=***&apiKey=***&key=***&X-Amz-Signature=***&client_secret=***&sessionId=***&password=***',
    ],
    [
      'https://r.example/x?pageToken=p1&nextPageToken=p2&cursor=c&limit=100&sort=name',
      'https://r.example/x?pageToken=p1&nextPageToken=p2&cursor=c&limit=100&sort=name',
    ],
    ['http://admin:pw@127.0.0.1:8080/a', 'http://admin:***@127.0.0.1:8080/a'],
    ['https://ghp_abcdefghijklmnopqrstuvwxyz0123@github.com/x', 'https://***@github.com/x'],
    ['https://r.example/a?q=sk-proj-abcdefghijklmnop1234', 'https://r.example/a?q=***'],
    ['https://r.example/cb#access_token=eyJhbGciOi.eyJzdWIiOi.sig&state=1', 'https://r.example/cb#access_token=***&state=1'],
    ['https://r.example/hook/0123456789abcdef0123456789abcdef/x', 'https://r.example/hook/***/x'],
    ['not a url at all ?secret=1', 'not a url at all ?secret=***'],
  ])('%s', (url, want) => expect(redactUrl(url)).toBe(want));

  it('names and values', () => {
    expect(['token', 'hf_token', 'accessToken', 'SIG', 'auth', 'Authorization'].every(isSecretName)).toBe(true);
    expect(['page', 'pageToken', 'author', 'keyword', 'monkey', 'limit', 'updated_since'].some(isSecretName)).toBe(false);
    expect(looksLikeCredential('eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.abcd')).toBe(true);
    expect(looksLikeCredential('io.github.owner/server:1.0.0')).toBe(false);
  });

  it('free text: every URL or query string in it', () => {
    expect(redactText('robots.txt disallows /v0.1/servers?token=x&page=1 for veronikai; page http://h/?sig=1 not requested')).toBe(
      'robots.txt disallows /v0.1/servers?token=***&page=1 for veronikai; page http://h/?sig=*** not requested',
    );
    expect(redactText('HTTP 500: plain message')).toBe('HTTP 500: plain message');
  });

  it('is idempotent, leaves text without secrets alone, and never keeps a secret query value', () => {
    const value = fc.stringMatching(/^[A-Za-z0-9._~-]{1,30}$/);
    fc.assert(
      fc.property(fc.constantFrom('token', 'api_key', 'sig', 'password', 'client_secret'), value, value, (name, secret, page) => {
        const url = `https://r.example/p?page=${page}&${name}=${secret}`;
        const out = redactUrl(url);
        expect(out).toBe(`https://r.example/p?page=${looksLikeCredential(page) ? '***' : page}&${name}=***`);
        expect(redactUrl(out)).toBe(out);
      }),
      { numRuns: 200 },
    );
  });

  it('is linear in its input (a 2 MB message takes milliseconds)', () => {
    const t0 = performance.now();
    redactText(`${'c'.repeat(1_000_000)}?a=b ${'d='.repeat(500_000)}`);
    expect(performance.now() - t0).toBeLessThan(2000);
  });
});
