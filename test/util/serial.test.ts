import { describe, expect, it } from 'vitest';
import { Serial } from '../../src/util/serial.js';

const tick = () => new Promise<void>((r) => setImmediate(r));

describe('Serial', () => {
  it('runs holders one at a time in arrival order, whichever finishes its wait first', async () => {
    const serial = new Serial();
    const log: string[] = [];
    const gates = [0, 1, 2].map(() => {
      let open!: () => void;
      return { opened: new Promise<void>((r) => (open = r)), open: () => open() };
    });
    const runs = [0, 1, 2].map((i) =>
      serial.run(async () => {
        log.push(`start ${i}`);
        await gates[i]!.opened;
        log.push(`end ${i}`);
        return i;
      }),
    );
    await tick();
    expect(log).toEqual(['start 0']);
    gates[2]!.open();
    gates[1]!.open();
    await tick();
    expect(log).toEqual(['start 0']);
    gates[0]!.open();
    expect(await Promise.all(runs)).toEqual([0, 1, 2]);
    expect(log).toEqual(['start 0', 'end 0', 'start 1', 'end 1', 'start 2', 'end 2']);
  });

  it('releases after a failing holder, which keeps its error', async () => {
    const serial = new Serial();
    const failed = serial.run(async () => {
      throw new Error('boom');
    });
    const next = serial.run(async () => 'next ran');
    await expect(failed).rejects.toThrow('boom');
    expect(await next).toBe('next ran');
  });

  it('hands out releases by acquire for a holder that spans several awaits', async () => {
    const serial = new Serial();
    const release = await serial.acquire();
    let second = false;
    const waiting = serial.acquire().then((r) => ((second = true), r));
    await tick();
    expect(second).toBe(false);
    release();
    (await waiting)();
    expect(second).toBe(true);
  });
});
