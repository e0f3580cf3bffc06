/**
 * A codec over schemas the project does not have (yet): arrays of items that take no bytes
 * (null, an empty record), a map of nulls, an enum, fixed, float, double, a recursive linked
 * list and nested arrays of maps. The bounds must hold for any schema the codec is given.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventCodec } from '../../src/events/codec.js';

export const ODD_SCHEMA = {
  type: 'record',
  name: 'Odd',
  namespace: 'test.events',
  fields: [
    { name: 'nulls', type: { type: 'array', items: 'null' } },
    { name: 'empties', type: { type: 'array', items: { type: 'record', name: 'Empty', fields: [] } } },
    { name: 'nullMap', type: { type: 'map', values: 'null' } },
    { name: 'color', type: { type: 'enum', name: 'Color', symbols: ['RED', 'GREEN', 'BLUE'] } },
    { name: 'tag', type: { type: 'fixed', name: 'Tag', size: 4 } },
    { name: 'ratio', type: 'float' },
    { name: 'score', type: 'double' },
    {
      name: 'list',
      type: [
        'null',
        {
          type: 'record',
          name: 'Node',
          fields: [
            { name: 'v', type: 'int' },
            { name: 'next', type: ['null', 'Node'] },
          ],
        },
      ],
    },
    { name: 'nested', type: { type: 'array', items: { type: 'array', items: { type: 'map', values: ['null', 'bytes'] } } } },
  ],
};

export function oddCodec(): EventCodec {
  const dir = mkdtempSync(join(tmpdir(), 'odd-schemas-'));
  try {
    writeFileSync(join(dir, 'odd.avsc'), JSON.stringify(ODD_SCHEMA));
    return new EventCodec(dir); // reads its schemas here, so the directory can go
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
