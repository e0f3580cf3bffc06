import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cruise, type ICruiseOptions, type ICruiseResult, type IForbiddenRuleType } from 'dependency-cruiser';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * The layering of src/ (rules in .dependency-cruiser.cjs, also run by `npm run lint:layers`):
 * cli > runtime (its use cases above its composition) > roles (api | producers | processors | webhooks | inspect) > the rest
 * > core; a role never imports another; the API never imports kafka, stack or http; conformance
 * imports nothing but itself and core, core nothing but itself, and neither does I/O.
 */

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const config = createRequire(import.meta.url)(join(ROOT, '.dependency-cruiser.cjs')) as {
  forbidden: IForbiddenRuleType[];
  options: ICruiseOptions;
};

/** Every import against the rules in the src/ below baseDir, as `rule: from -> to`. */
async function violations(baseDir: string): Promise<string[]> {
  const { output } = await cruise(['src'], {
    ...config.options,
    baseDir,
    validate: true,
    ruleSet: { forbidden: config.forbidden },
    outputType: 'json',
  });
  const result = (typeof output === 'string' ? JSON.parse(output) : output) as ICruiseResult;
  return result.summary.violations.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`).sort();
}

describe('layering of src/', () => {
  it('no import runs against the layers', async () => {
    expect(await violations(ROOT), 'imports against the layering (see .dependency-cruiser.cjs)').toEqual([]);
  });
});

describe('the layering check itself', () => {
  const dir = mkdtempSync(join(tmpdir(), 'veronikai-layers-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** A tiny tree: allowed imports beside at least one import against each rule. */
  const tree: Record<string, string[]> = {
    'cli/main.ts': ["import '../runtime/usecases/replay.js';"],
    'runtime/usecases/replay.ts': ["import '../run.js';", "import '../../processors/verdict.js';", "import '../../cli/main.js';"],
    'runtime/run.ts': ["import '../api/server.js';", "import './usecases/replay.js';"],
    'api/server.ts': [
      "import '../warehouse/read.js';",
      "import '../runtime/run.js';",
      "import '../kafka/client.js';",
      "import '../http/client.js';",
    ],
    'producers/probe.ts': ["import '../conformance/rules.js';", "import '../http/client.js';", "import '../processors/judge.js';"],
    'processors/judge.ts': ["import '../producers/probe.js';", "import './verdict.js';"],
    'processors/verdict.ts': [],
    'webhooks/deliver.ts': ["import '../http/client.js';", "import '../inspect/session.js';"],
    'inspect/session.ts': ["import '../http/client.js';"],
    'util/time.ts': ["import type { Probe } from '../producers/probe.js';"],
    'config.ts': ["import './api/server.js';"],
    'conformance/rules.ts': [
      "import { createHash } from 'node:crypto';",
      "import { readFileSync } from 'node:fs';",
      "import './inner.js';",
      "import '../core/url.js';",
      "import '../util/time.js';",
      "import '../../schemas/table.js';",
    ],
    'conformance/inner.ts': [],
    'core/url.ts': ["import '../util/time.js';", "import { connect } from 'node:net';"],
    'http/client.ts': ["import '../core/url.js';"],
    'kafka/client.ts': [],
    'warehouse/read.ts': ["import '../core/url.js';"],
    '../schemas/table.ts': [],
  };
  for (const [file, lines] of Object.entries(tree)) {
    mkdirSync(dirname(join(dir, 'src', file)), { recursive: true });
    writeFileSync(join(dir, 'src', file), [...lines, 'export {};', ''].join('\n'));
  }

  it('reports an import against each rule, and only those', async () => {
    expect(await violations(dir)).toEqual(
      [
        'usecases-import-cli: src/runtime/usecases/replay.ts -> src/cli/main.ts',
        'runtime-imports-above: src/runtime/run.ts -> src/runtime/usecases/replay.ts',
        'role-imports-above: src/api/server.ts -> src/runtime/run.ts',
        'api-imports-writers: src/api/server.ts -> src/kafka/client.ts',
        'api-imports-writers: src/api/server.ts -> src/http/client.ts',
        'role-imports-role: src/producers/probe.ts -> src/processors/judge.ts',
        'role-imports-role: src/processors/judge.ts -> src/producers/probe.ts',
        'role-imports-role: src/webhooks/deliver.ts -> src/inspect/session.ts',
        'lower-layer-imports-role: src/util/time.ts -> src/producers/probe.ts',
        'lower-layer-imports-role: src/config.ts -> src/api/server.ts',
        'conformance-imports-outside: src/conformance/rules.ts -> src/util/time.ts',
        'conformance-imports-outside: src/conformance/rules.ts -> schemas/table.ts',
        'core-imports-outside: src/core/url.ts -> src/util/time.ts',
        'pure-does-io: src/conformance/rules.ts -> fs',
        'pure-does-io: src/core/url.ts -> net',
        // The tree's cycles (each reported once, where depcruise first meets it).
        'no-circular: src/api/server.ts -> src/runtime/run.ts',
        'no-circular: src/cli/main.ts -> src/runtime/usecases/replay.ts',
        'no-circular: src/conformance/rules.ts -> src/core/url.ts',
        'no-circular: src/conformance/rules.ts -> src/util/time.ts',
        'no-circular: src/http/client.ts -> src/core/url.ts',
        'no-circular: src/processors/judge.ts -> src/producers/probe.ts',
        'no-circular: src/runtime/run.ts -> src/runtime/usecases/replay.ts',
      ].sort(),
    );
  });
});
