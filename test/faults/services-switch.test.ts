import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { migrate } from '../../src/warehouse/migrate.js';
import { ServerWarehouse } from '../../src/warehouse/server.js';
import { chooseServices } from '../setup/containers.js';

/**
 * The test setup's switch (test/setup/containers.ts): testcontainers where a Docker engine
 * answers, the native broker elsewhere. This machine has no Docker engine, so here the switch is
 * shown choosing the native path and saying why; where one answers, the current ClickHouse server
 * it started runs the whole schema through the server adapter.
 */

const services = inject('services') as ReturnType<typeof inject<'services'>> | undefined;

describe('the test services switch', () => {
  // No socket and no DOCKER_HOST: no engine can answer (this machine has a docker client and no engine).
  const noEngine =
    !process.env.DOCKER_HOST && !existsSync('/var/run/docker.sock') && !existsSync(join(homedir(), '.docker', 'run', 'docker.sock'));

  it.skipIf(!noEngine)('takes the native path when no Docker engine answers, and says why', async () => {
    const choice = await chooseServices();
    expect(choice.path).toBe('native');
    expect(choice.why).toMatch(/^no Docker engine answers \(.+\)$/);
  });

  it('can be told to take the native path', async () => {
    expect(await chooseServices({ ...process.env, VERONIKAI_TEST_CONTAINERS: '0' })).toEqual({
      path: 'native',
      why: 'VERONIKAI_TEST_CONTAINERS=0',
    });
  });

  it.skipIf(!services)('this run chose as the machine allows: native without Docker, containers with it', async () => {
    const here = await chooseServices();
    expect(services!.path).toBe(here.path);
    if (here.path === 'native') {
      expect(services!.why).toMatch(/no Docker engine answers|VERONIKAI_TEST_CONTAINERS=0/);
      expect(services!.clickhouseUrl).toBeNull();
    } else expect(services!.clickhouseUrl).toMatch(/^http:\/\//);
  });

  it.skipIf(!services?.clickhouseUrl)(
    'runs the whole schema on the container ClickHouse server through the server adapter',
    { timeout: 120_000 },
    async () => {
      const wh = new ServerWarehouse({ url: services!.clickhouseUrl!, database: `schema_${Date.now()}` });
      try {
        await wh.ensureDatabase();
        const result = await migrate(wh);
        expect(result.applied.length).toBeGreaterThan(0);
        const tables = await wh.query<{ name: string }>('SELECT name FROM system.tables WHERE database = currentDatabase()');
        expect(tables.map((t) => t.name)).toEqual(expect.arrayContaining(['agents', 'listings', 'checks', 'verdicts', 'runs']));
      } finally {
        await wh.close();
      }
    },
  );
});
