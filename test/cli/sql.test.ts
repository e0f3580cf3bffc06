import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

// `veronikai sql` run as a user runs it: read-only unless --write, one statement a call,
// rows streamed with a default limit.

describe('veronikai sql', () => {
  let dir: string;
  let hits: string[];
  let loopback: Server;
  let port: number;
  const sql = (...args: string[]) => runCli(['sql', ...args, '--data-dir', dir]);
  const tableCount = async (): Promise<number> => {
    const r = await sql('SELECT toUInt32(count()) AS n FROM listings');
    expect(r.stderr).toBe('');
    return (JSON.parse(r.stdout) as Array<{ n: number }>)[0]!.n;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'veronikai-cli-sql-'));
    hits = [];
    loopback = createServer((req, res) => {
      hits.push(req.url ?? '');
      res.end('secret\n');
    });
    await new Promise<void>((resolve) => loopback.listen(0, '127.0.0.1', resolve));
    const addr = loopback.address();
    port = typeof addr === 'object' && addr ? addr.port : 0;
    const created = await sql('CREATE TABLE listings (id String) ENGINE = MergeTree ORDER BY id', '--write');
    expect(created).toMatchObject({ code: 0, stderr: '' });
    const inserted = await sql("INSERT INTO listings VALUES ('a'), ('b;c')", '--write');
    expect(inserted).toMatchObject({ code: 0, stderr: '' });
  });

  afterAll(async () => {
    await new Promise((resolve) => loopback?.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  it('says in --help that it is read-only unless --write', async () => {
    const r = await runCli(['sql', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/read-only unless --write/i);
    expect(r.stdout).toContain('--max-rows');
  });

  it('refuses a second statement and keeps the table', async () => {
    const r = await sql('SELECT 1 AS a; DROP TABLE listings');
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/Multi-statements are not allowed/);
    const hidden = await sql("SELECT 'x' AS a /* ' */; DROP TABLE listings -- ", '--write');
    expect(hidden.code).toBe(1);
    expect(hidden.stderr).toMatch(/Multi-statements are not allowed/);
    expect(await tableCount()).toBe(2);
  });

  it('refuses DROP and INSERT without --write', async () => {
    for (const statement of ['DROP TABLE listings', "INSERT INTO listings VALUES ('z')"]) {
      const r = await sql(statement);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/refused on a read-only connection/);
    }
    expect(await tableCount()).toBe(2);
  });

  it('refuses file(), url() to a loopback server and INTO OUTFILE', async () => {
    const file = await sql("SELECT * FROM file('/etc/hostname', 'LineAsString')");
    expect(file.code).toBe(1);
    expect(file.stderr).toMatch(/refused.*file\(\)/);
    const url = await sql(`SELECT * FROM url('http://127.0.0.1:${port}/x', 'LineAsString')`);
    expect(url.code).toBe(1);
    expect(url.stderr).toMatch(/refused.*url\(\)/);
    expect(hits).toEqual([]);
    const target = join(dir, 'out.txt');
    const outfile = await sql(`SELECT id FROM listings INTO OUTFILE '${target}'`);
    expect(outfile.code).toBe(1);
    expect(outfile.stderr).toMatch(/refused.*INTO OUTFILE/);
    expect(existsSync(target)).toBe(false);
  });

  it('runs a SELECT with semicolons inside strings and comments', async () => {
    const r = await sql("SELECT id FROM listings WHERE id = 'b;c' /* ; */ -- ;\n;");
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(r.stdout)).toEqual([{ id: 'b;c' }]);
  });

  it('runs DDL with --write', async () => {
    const r = await sql('CREATE TABLE extra (a UInt8) ENGINE = Memory', '--write');
    expect(r).toMatchObject({ code: 0, stdout: '', stderr: '' });
    const dropped = await sql('DROP TABLE extra', '--write');
    expect(dropped).toMatchObject({ code: 0, stderr: '' });
  });

  it('streams rows up to --max-rows and says on stderr when the limit cut them', async () => {
    const cut = await sql('SELECT number FROM numbers(20000)', '--format', 'jsonl');
    expect(cut.code).toBe(0);
    expect(cut.stdout.trimEnd().split('\n')).toHaveLength(10_000);
    expect(cut.stderr).toMatch(/stopped after 10000 rows/);
    const json = await sql('SELECT number FROM numbers(5)', '--max-rows', '3');
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual([{ number: '0' }, { number: '1' }, { number: '2' }]);
    expect(json.stdout).toBe(`${JSON.stringify([{ number: '0' }, { number: '1' }, { number: '2' }], null, 2)}\n`);
    expect(json.stderr).toMatch(/stopped after 3 rows \(--max-rows 3\)/);
    const all = await sql('SELECT number FROM numbers(20000)', '--format', 'jsonl', '--max-rows', '0');
    expect(all).toMatchObject({ code: 0, stderr: '' });
    expect(all.stdout.trimEnd().split('\n')).toHaveLength(20_000);
    const none = await sql('SELECT number FROM numbers(0)');
    expect(none).toMatchObject({ code: 0, stdout: '[]\n', stderr: '' });
  });
});
