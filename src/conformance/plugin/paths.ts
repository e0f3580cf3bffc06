import { isObject, own, parseJson } from '../../core/json-util.js';

/**
 * Package paths that mcp.json names, in the forms §7.2.1 and §9.2 define. Pure: the runtime
 * resolves the keys this returns against the file system and hands the resolutions back in
 * the snapshot.
 */

export const PLUGIN_ROOT_PLACEHOLDER = '${PLUGIN_ROOT}';
export const PLUGIN_DATA_PLACEHOLDER = '${PLUGIN_DATA}';

export function hasPlaceholder(s: string): boolean {
  return s.includes(PLUGIN_ROOT_PLACEHOLDER) || s.includes(PLUGIN_DATA_PLACEHOLDER);
}

/** A root-relative key (no leading `/`) for the text after `./` or `${PLUGIN_ROOT}`. */
export function rootKey(rest: string): string {
  return rest.replace(/^\/+/, '');
}

export type CwdForm = { form: 'root'; key: string } | { form: 'root-dynamic' } | { form: 'data'; rest: string } | { form: 'invalid' };

/**
 * The form of a cwd (§7.2.1): `./…`, `${PLUGIN_ROOT}` or `${PLUGIN_ROOT}/…`, `${PLUGIN_DATA}` or
 * `${PLUGIN_DATA}/…`. Expansion is one pass over the whole string (§9.2), so a placeholder
 * after the leading one puts a client-chosen absolute path inside the value: where that
 * resolves depends on the client (`root-dynamic`), never guessed.
 */
export function cwdForm(cwd: string): CwdForm {
  let rest: string;
  if (cwd.startsWith('./')) rest = cwd.slice(2);
  else if (cwd === PLUGIN_ROOT_PLACEHOLDER || cwd.startsWith(PLUGIN_ROOT_PLACEHOLDER + '/'))
    rest = cwd.slice(PLUGIN_ROOT_PLACEHOLDER.length);
  else if (cwd === PLUGIN_DATA_PLACEHOLDER || cwd.startsWith(PLUGIN_DATA_PLACEHOLDER + '/'))
    return { form: 'data', rest: cwd.slice(PLUGIN_DATA_PLACEHOLDER.length) };
  else return { form: 'invalid' };
  if (hasPlaceholder(rest)) return { form: 'root-dynamic' };
  return { form: 'root', key: rootKey(rest) };
}

/** The key of a `./` command to resolve, or null when the command is not a resolvable plugin-relative path. */
export function commandKey(command: string): string | null {
  if (!command.startsWith('./') || hasPlaceholder(command)) return null;
  const key = rootKey(command.slice(2));
  return key.split('/').some((s) => s !== '' && s !== '.') ? key : null;
}

/** Every root-relative path mcp.json asks a client to resolve: `./` commands and root-form cwds. */
export function mcpPathsToResolve(mcpText: string): string[] {
  const parsed = parseJson(mcpText);
  if (!parsed.ok || !isObject(parsed.value)) return [];
  const servers = own(parsed.value, 'mcpServers');
  if (!isObject(servers)) return [];
  const out = new Set<string>();
  for (const name of Object.keys(servers)) {
    const s = own(servers, name);
    if (!isObject(s)) continue;
    const command = own(s, 'command');
    if (typeof command === 'string') {
      const k = commandKey(command);
      if (k !== null) out.add(k);
    }
    const cwd = own(s, 'cwd');
    if (typeof cwd === 'string') {
      const f = cwdForm(cwd);
      if (f.form === 'root') out.add(f.key);
    }
  }
  return [...out].sort();
}
