import { escapePointer, isObject, jsonType, own, quote, show, type JsonObject } from '../../../../core/json-util.js';
import type { Rule } from '../../../rule.js';
import { fail, type PluginRun } from '../run.js';
import { ap } from '../spec.js';
import type { ServerInput } from './input.js';

/** PLG-017: a server entry is one closed, well-typed variant (stdio, or remote: streamable-http, sse) and leaves the reserved env names alone. */

const STDIO_FIELDS = ['type', 'command', 'args', 'env', 'cwd'];
const REMOTE_FIELDS = ['type', 'url', 'headers'];
const RESERVED_ENV = ['PLUGIN_ROOT', 'PLUGIN_DATA'];

export const SERVER_VARIANT: Rule<ServerInput, boolean> = {
  id: 'PLG-017',
  suite: 'agentPlugins',
  component: 'mcp',
  severity: 'fail',
  basis: 'spec',
  needs: 'document',
  prerequisites: ['PLG-016'],
  title: 'Closed server variants and reserved environment names',
  description:
    'A server entry is not an object, has no or an unknown type, lacks a required field, has a field of another variant or an unknown one, has a field of the wrong type, or names PLUGIN_ROOT or PLUGIN_DATA in env; that server is skipped.',
  ...ap('§7.2.1 server variants; §9.2 reserved environment names', '721-discovery-and-configuration'),
  check: checkVariant,
};

/** The variant an entry declares, or null when it declares none (not an object, no type, an unknown type). */
export function variantOf(v: unknown): 'stdio' | 'remote' | null {
  if (!isObject(v)) return null;
  const type = own(v, 'type');
  return type === 'stdio' ? 'stdio' : type === 'streamable-http' || type === 'sse' ? 'remote' : null;
}

/** Checks an entry whose variant is known; false when the server is skipped. */
function checkVariant(input: ServerInput): boolean {
  const { run, base, entry: v, stdio } = input;
  const type = own(v, 'type') as string;
  let ok = true;
  const bad = (pointer: string, message: string): void => {
    fail(run, SERVER_VARIANT, 'mcp.json', pointer, `${message}; the server is skipped.`);
    ok = false;
  };
  const allowed = stdio ? STDIO_FIELDS : REMOTE_FIELDS;
  const other = stdio ? REMOTE_FIELDS : STDIO_FIELDS;
  for (const k of Object.keys(v)) {
    if (allowed.includes(k)) continue;
    bad(
      `${base}/${escapePointer(k)}`,
      other.includes(k)
        ? `${quote(k)} belongs to the ${stdio ? 'remote (streamable-http, sse)' : 'stdio'} variant, not to a ${type} server`
        : `Unknown field ${quote(k)} in a ${type} server`,
    );
  }
  if (stdio) {
    stringField(v, base, type, 'command', bad);
    const args = own(v, 'args');
    if (args !== undefined && !Array.isArray(args)) bad(`${base}/args`, `args must be an array of strings, not ${jsonType(args)}`);
    else if (args !== undefined) {
      args.forEach((a, i) => {
        if (typeof a !== 'string') bad(`${base}/args/${i}`, `args[${i}] must be a string, not ${jsonType(a)}`);
      });
    }
    stringMap(v, base, 'env', true, bad);
    const cwd = own(v, 'cwd');
    if (cwd !== undefined && typeof cwd !== 'string') bad(`${base}/cwd`, `cwd must be a string, not ${jsonType(cwd)}`);
  } else {
    stringField(v, base, type, 'url', bad);
    stringMap(v, base, 'headers', false, bad);
  }
  if (ok) run.rec.pass(SERVER_VARIANT);
  return ok;
}

/** An entry that declares no variant: the server is skipped. */
export function noVariant(run: PluginRun, name: string, base: string, v: unknown): void {
  const skip = '; the server is skipped';
  if (!isObject(v))
    return fail(run, SERVER_VARIANT, 'mcp.json', base, `Server ${quote(name)} must be an object, not ${jsonType(v)}${skip}.`);
  const type = own(v, 'type');
  if (type === undefined)
    return fail(run, SERVER_VARIANT, 'mcp.json', base, `Server ${quote(name)} has no type (stdio, streamable-http or sse)${skip}.`);
  fail(
    run,
    SERVER_VARIANT,
    'mcp.json',
    `${base}/type`,
    `Server ${quote(name)} has type ${show(type)}, not stdio, streamable-http or sse${skip}.`,
  );
}

type Bad = (pointer: string, message: string) => void;

function stringField(v: JsonObject, base: string, type: string, k: string, bad: Bad): void {
  const x = own(v, k);
  if (x === undefined) bad(`${base}/${k}`, `A ${type} server needs ${k}`);
  else if (typeof x !== 'string') bad(`${base}/${k}`, `${k} must be a string, not ${jsonType(x)}`);
  else if (x === '') bad(`${base}/${k}`, `${k} must not be empty`);
}

function stringMap(v: JsonObject, base: string, k: string, reserved: boolean, bad: Bad): void {
  const x = own(v, k);
  if (x === undefined) return;
  if (!isObject(x)) return bad(`${base}/${k}`, `${k} must be an object of strings, not ${jsonType(x)}`);
  for (const key of Object.keys(x)) {
    const val = own(x, key);
    if (typeof val !== 'string') bad(`${base}/${k}/${escapePointer(key)}`, `${k}.${key} must be a string, not ${jsonType(val)}`);
    if (reserved && RESERVED_ENV.includes(key))
      bad(`${base}/${k}/${escapePointer(key)}`, `env must not set ${key}: the client supplies PLUGIN_ROOT and PLUGIN_DATA itself (§9.2)`);
  }
}
