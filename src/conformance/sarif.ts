import { sha256Hex } from '../core/canonical-json.js';

/**
 * The pieces every SARIF 2.1.0 log of ours shares (check, plugin packages, inspect), so code
 * scanning reads each the same way (docs/CI.md):
 * - an artifact's `uri` is always a URI reference: local paths are percent-encoded segment by
 *   segment, URLs normalised by the WHATWG parser;
 * - a local file inside the root directory (the working directory, given by the caller) is
 *   relative to `%SRCROOT%`, declared in the run's `originalUriBaseIds`; one outside it is a
 *   `file:` URI;
 * - every result carries `partialFingerprints` that stay the same across runs while the rule,
 *   the artifact and the place in it (a JSON pointer, not a line) stay the same.
 * Pure: the root is passed in, nothing is read.
 */

export const SARIF_VERSION = '2.1.0';
/** The `$schema` of our logs: the identifier of the official schema vendored in schemas/sarif/. */
export const SARIF_SCHEMA_URI = 'https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json';
/** The base the relative artifact URIs are resolved against (the checkout root in CI). */
export const SRCROOT = '%SRCROOT%';
/** The name of our partial fingerprint (SARIF names them `<name>/v<version>`). */
export const FINGERPRINT_KEY = 'veronikaiFinding/v1';

export interface SarifOptions {
  /** The directory local paths are made relative to (an absolute path; the working directory). Null: leave them as given. */
  root?: string | null;
}

export interface ArtifactLocation {
  uri: string;
  uriBaseId?: string;
}

/** Percent-encodes each segment of a '/'-separated path, so the result is a URI path (':' and spaces included). */
function encodeSegments(path: string): string {
  return path
    .split('/')
    .map((s) => encodeURIComponent(s))
    .join('/');
}

const DRIVE = /^[A-Za-z]:\//;

function isAbsolutePath(p: string): boolean {
  return p.startsWith('/') || DRIVE.test(p);
}

/** '.' and '..' resolved, repeated slashes dropped; an absolute path stays absolute. */
function normalise(p: string): string {
  const abs = isAbsolutePath(p);
  const drive = DRIVE.test(p) ? p.slice(0, 2) : '';
  const out: string[] = [];
  for (const seg of p.slice(drive.length).split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..' && out.length > 0 && out[out.length - 1] !== '..') out.pop();
    else if (seg !== '..' || !abs) out.push(seg);
  }
  return (abs ? `${drive}/` : '') + out.join('/');
}

const slashes = (p: string): string => p.replace(/\\/g, '/');

/** The `file:` URI of an absolute path. */
export function fileUri(absPath: string): string {
  const p = normalise(slashes(absPath));
  return DRIVE.test(p) ? `file:///${p.slice(0, 2)}${encodeSegments(p.slice(2))}` : `file://${encodeSegments(p)}`;
}

/** Where a local path (as the user gave it) is, for a SARIF artifactLocation. */
export function localArtifact(path: string, opts: SarifOptions = {}): ArtifactLocation {
  const given = slashes(path);
  const root = opts.root ? normalise(slashes(opts.root)) : null;
  if (root === null) return isAbsolutePath(given) ? { uri: fileUri(given) } : { uri: encodeSegments(normalise(given) || '.') };
  const abs = normalise(isAbsolutePath(given) ? given : `${root}/${given}`);
  const prefix = root.endsWith('/') ? root : `${root}/`;
  if (abs.startsWith(prefix)) return { uri: encodeSegments(abs.slice(prefix.length)), uriBaseId: SRCROOT };
  return { uri: fileUri(abs) };
}

/** A URL for a SARIF artifactLocation: normalised (and so percent-encoded) by the URL parser; anything else encoded as a path. */
export function urlArtifact(text: string): ArtifactLocation {
  try {
    return { uri: new URL(text).href };
  } catch {
    return { uri: encodeURI(text).replace(/[#?]/g, encodeURIComponent) };
  }
}

/** The run's `originalUriBaseIds` when some artifact is relative to %SRCROOT%, else nothing. */
export function originalUriBaseIds(used: ArtifactLocation[], opts: SarifOptions): { originalUriBaseIds?: Record<string, { uri: string }> } {
  if (!opts.root || !used.some((a) => a.uriBaseId === SRCROOT)) return {};
  const root = fileUri(opts.root);
  return { originalUriBaseIds: { [SRCROOT]: { uri: root.endsWith('/') ? root : `${root}/` } } };
}

export interface FingerprintInput {
  ruleId: string;
  artifact: ArtifactLocation;
  /** Where in the artifact, independent of lines (a JSON pointer, a check id); '' for the whole artifact. */
  place: string;
}

/**
 * Stable `partialFingerprints` for results in their order: a hash of the rule, the artifact and
 * the place, plus the occurrence number among results alike, so two identical results stay two.
 */
export function fingerprints(results: FingerprintInput[]): Array<Record<string, string>> {
  const seen = new Map<string, number>();
  return results.map((r) => {
    const key = [r.ruleId, r.artifact.uriBaseId ?? '', r.artifact.uri, r.place].join('\u0000');
    const n = seen.get(key) ?? 0;
    seen.set(key, n + 1);
    return { [FINGERPRINT_KEY]: sha256Hex(`${key}\u0000${n}`) };
  });
}
