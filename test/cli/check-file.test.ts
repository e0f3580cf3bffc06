import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/config.js';
import { checkFile, MAX_FILE_BYTES, readLocalFile } from '../../src/runtime/usecases/check.js';
import { ROOT, runCli, type CliResult } from '../helpers/cli.js';
import { FIXTURES } from '../conformance/helpers.js';

/**
 * `veronikai check <file>` reads what it judges from one open descriptor, to at most the cap + 1
 * bytes whatever stat claims, never waits on a FIFO, and judges bytes that are not UTF-8 as not
 * JSON text (RFC 8259 §8.1) instead of reading them with replacement characters.
 */

const dir = mkdtempSync(join(tmpdir(), 'veronikai-check-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const ctx = { subject: 'f', observedAt: '2026-01-01T00:00:00.000Z' };
const env = { VERONIKAI_DATA_DIR: dir, VERONIKAI_SIGNING_KEY: '' };

/** The good 0.3 card with \xff\xfe inside protocolVersion ("0.3.\xff\xfe0"). */
const badCard = Buffer.concat([
  ...readFileSync(join(FIXTURES, 'a2a/good-0.3.json'), 'utf8')
    .split('"0.3.0"')
    .flatMap((part, i) =>
      i === 0 ? [Buffer.from(part)] : [Buffer.from('"0.3.'), Buffer.from([0xff, 0xfe]), Buffer.from('0"'), Buffer.from(part)],
    ),
]);
const badCardPath = join(dir, 'card-ff-fe.json');
writeFileSync(badCardPath, badCard);

describe('check reads a local file within its cap, from one descriptor', () => {
  it.skipIf(!existsSync('/proc/self/status'))('reads /proc/self/status (size 0 in stat) within the cap', () => {
    expect(readLocalFile('/proc/self/status').toString()).toMatch(/^Name:/m);
    const run = checkFile('/proc/self/status', {}, ctx);
    expect(run.verdicts[0]!.findings.map((f) => f.ruleId)).toEqual(['A2A-CARD-003']);
    // the cap applies to the bytes read, not to the size stat reports
    expect(() => readLocalFile('/proc/self/status', 16)).toThrow(new UsageError('/proc/self/status is larger than 16 bytes'));
  });

  it.skipIf(!existsSync('/proc/self/pagemap'))('refuses an endless file whose stat says 0 (/proc/self/pagemap) after cap + 1 bytes', () => {
    const t0 = performance.now();
    expect(() => readLocalFile('/proc/self/pagemap')).toThrow(`larger than ${MAX_FILE_BYTES} bytes`);
    expect(performance.now() - t0).toBeLessThan(5_000);
  });

  it('refuses a file over the cap without reading it (a sparse 1 GiB file)', () => {
    const big = join(dir, 'big.json');
    writeFileSync(big, '');
    truncateSync(big, 1024 ** 3);
    const t0 = performance.now();
    expect(() => checkFile(big, {}, ctx)).toThrow(new UsageError(`${big} is larger than ${MAX_FILE_BYTES} bytes`));
    expect(performance.now() - t0).toBeLessThan(1_000);
    rmSync(big);
  });

  it('refuses a directory', () => {
    expect(() => checkFile(dir, {}, ctx)).toThrow(/is not a regular file \(a directory\)/);
  });

  it.skipIf(!existsSync('/proc/self/pagemap'))(
    'the command refuses /proc/self/pagemap with a usage error, in bounded memory',
    async () => {
      // A data-segment limit (2 GB) stops a reader that would hold the whole file; a bounded one never nears it.
      const child = spawn(
        'sh',
        ['-c', 'ulimit -d 2000000 && exec "$@"', 'sh', process.execPath, join(ROOT, 'bin', 'veronikai.js'), 'check', '/proc/self/pagemap'],
        {
          cwd: ROOT,
          env: { ...process.env, ...env, VERONIKAI_CANARY_URLS: '', LOG_LEVEL: 'silent', NO_COLOR: '1' },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
      clearTimeout(timer);
      expect({ code, stdout }).toEqual({ code: 2, stdout: '' });
      expect(stderr).toContain(`/proc/self/pagemap is larger than ${MAX_FILE_BYTES} bytes`);
    },
    40_000,
  );

  it('refuses a FIFO without waiting for a writer', async () => {
    const fifo = join(dir, 'card.fifo');
    execFileSync('mkfifo', [fifo]);
    const r: CliResult = await runCli(['check', fifo], env, 20_000);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`${fifo} is not a regular file (a FIFO)`);
  }, 30_000);
});

describe('check judges bytes that are not UTF-8 as the crawler names them (invalid_utf8)', () => {
  it('a card with \\xff\\xfe inside protocolVersion fails A2A-CARD-003, in process and through the command', async () => {
    const run = checkFile(badCardPath, {}, ctx);
    const [card, structure] = run.verdicts;
    expect(card!.result).toBe('fail');
    expect(card!.findings).toMatchObject([{ ruleId: 'A2A-CARD-003', message: expect.stringContaining('invalid_utf8') }]);
    expect(structure!.result).toBe('n/a');

    const r = await runCli(['check', badCardPath, '--json'], env);
    expect(r.code, r.stderr).toBe(1);
    const report = JSON.parse(r.stdout) as { result: string };
    expect(report.result).toBe('fail');
    expect(r.stdout).toContain('not valid UTF-8');
    // the same card as valid UTF-8 passes, so the bytes are what fails
    const fixed = join(dir, 'card-ok.json');
    writeFileSync(fixed, badCard.toString('utf8'));
    expect(checkFile(fixed, {}, ctx).verdicts[0]!.result).toBe('pass');
  });

  it('a server.json that is not UTF-8 fails MCP-Q-001', () => {
    const good = readFileSync(join(FIXTURES, 'mcp/good.json'));
    const bad = join(dir, 'server.json');
    writeFileSync(
      bad,
      Buffer.concat([
        good.subarray(0, good.indexOf('"description"') + 16),
        Buffer.from([0xc3, 0x28]),
        good.subarray(good.indexOf('"description"') + 16),
      ]),
    );
    const [v] = checkFile(bad, { kind: 'server-json' }, ctx).verdicts;
    expect(v!.result).toBe('fail');
    expect(v!.findings).toMatchObject([{ ruleId: 'MCP-Q-001', message: expect.stringContaining('not valid UTF-8') }]);
  });

  describe('on a URL', () => {
    let server: Server;
    let origin = '';
    beforeAll(async () => {
      server = createServer((req, res) => {
        if (req.url === '/.well-known/agent-card.json') {
          res.writeHead(200, { 'content-type': 'application/json' }).end(badCard);
        } else res.writeHead(404).end();
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    it('a served card with \\xff\\xfe inside protocolVersion fails A2A-CARD-003', async () => {
      const r = await runCli(['check', `${origin}/.well-known/agent-card.json`, '--allow-loopback', '--json'], env);
      expect(r.code, r.stderr).toBe(1);
      const report = JSON.parse(r.stdout) as { result: string };
      expect(report.result).toBe('fail');
      expect(r.stdout).toContain('A2A-CARD-003');
      expect(r.stdout).toContain('invalid_utf8');
    });
  });
});
