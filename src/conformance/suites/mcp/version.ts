import { flag } from '../../findings.js';
import { isNonEmptyString, jsonType, own, sanitize, type JsonObject } from '../../../core/json-util.js';
import { SEMVER } from '../../mcp-quality.js';
import type { Rule } from '../../rule.js';
import type { McpInput } from './input.js';
import { serverJson } from './spec.js';

/** MCP-Q-006, 007 and 102: the version is present, semver x.y.z, and not 0.0.0. */

export const VERSION_PRESENT: Rule<McpInput> = {
  id: 'MCP-Q-006',
  suite: 'mcp',
  component: 'server.json',
  severity: 'fail',
  basis: 'spec',
  needs: 'document',
  prerequisites: ['MCP-Q-001'],
  title: 'Version present',
  description: 'version is missing or not a string.',
  ...serverJson('version'),
  check: checkVersion,
};

export const VERSION_SEMVER: Rule<McpInput> = {
  id: 'MCP-Q-007',
  suite: 'mcp',
  component: 'server.json',
  severity: 'fail',
  basis: 'policy',
  needs: 'document',
  prerequisites: ['MCP-Q-001'],
  title: 'Version is semver',
  description: 'version is not a semantic version x.y.z (pre-release and build suffixes allowed).',
  ...serverJson('version'),
  check: checkVersion,
};

export const VERSION_NOT_ZERO: Rule<McpInput> = {
  id: 'MCP-Q-102',
  suite: 'mcp',
  component: 'server.json',
  severity: 'warn',
  basis: 'policy',
  needs: 'document',
  prerequisites: ['MCP-Q-001'],
  title: 'Version is not 0.0.0',
  description: 'version is 0.0.0.',
  ...serverJson('version'),
  check: checkVersion,
};

function checkVersion({ rec, doc }: McpInput): void {
  rec.pass(VERSION_PRESENT, VERSION_SEMVER, VERSION_NOT_ZERO);
  const version = own(doc as JsonObject, 'version');
  if (!isNonEmptyString(version)) {
    flag(
      rec,
      VERSION_PRESENT,
      'document',
      '/version',
      version === undefined
        ? 'version is missing'
        : typeof version === 'string'
          ? 'version is blank'
          : `version must be a string, found ${jsonType(version)}`,
    );
  } else if (!SEMVER.test(version)) {
    flag(rec, VERSION_SEMVER, 'document', '/version', `version ${JSON.stringify(sanitize(version, 60))} is not semver x.y.z`);
  } else if (version === '0.0.0') {
    flag(rec, VERSION_NOT_ZERO, 'document', '/version', 'version is 0.0.0');
  }
}
