import { isAlias, isMap, isScalar, isSeq, parseDocument, type Document, type Node, type Pair } from 'yaml';
import { locator } from '../../core/json-locate.js';

/**
 * SKILL.md frontmatter (Agent Skills specification, "SKILL.md format"): the file starts with a
 * line `---`, the YAML frontmatter runs to the next line `---`, Markdown follows. The YAML is
 * parsed by the `yaml` library (YAML 1.2, core schema) and judged strictly: any parse error
 * (duplicate keys included) or a document that is not one mapping is an error. Values are
 * read from the syntax tree, never through a JS object, so `1:` stays a numeric key and
 * `1.0` stays a number.
 */

export interface Located {
  /** 1-based line and column in the SKILL.md text. */
  line: number;
  column: number;
}

export type FrontmatterResult =
  { ok: true; doc: Document.Parsed; map: YamlMap; offset: number; text: string } | { ok: false; message: string; at: Located };

type YamlMap = Extract<Node, { items: unknown[] }> & { items: Pair[] };

/** A located YAML value read from the syntax tree. */
export interface YamlValue {
  node: Node | null;
  at: Located;
}

export function splitFrontmatter(text: string): { ok: true; yaml: string; offset: number } | { ok: false; message: string; at: Located } {
  const firstEnd = lineEnd(text, 0);
  if (text.charCodeAt(0) === 0xfeff)
    return { ok: false, message: 'SKILL.md starts with a byte-order mark, not with the frontmatter line ---', at: { line: 1, column: 1 } };
  if (stripLine(text.slice(0, firstEnd.end)) !== '---') {
    return { ok: false, message: 'SKILL.md does not start with a YAML frontmatter line ---', at: { line: 1, column: 1 } };
  }
  const start = firstEnd.next;
  let pos = start;
  let line = 2;
  while (pos < text.length) {
    const e = lineEnd(text, pos);
    if (stripLine(text.slice(pos, e.end)) === '---') return { ok: true, yaml: text.slice(start, pos), offset: start };
    pos = e.next;
    line++;
  }
  return { ok: false, message: 'the YAML frontmatter is not closed by a line ---', at: { line: Math.max(1, line - 1), column: 1 } };
}

function lineEnd(text: string, from: number): { end: number; next: number } {
  const i = text.indexOf('\n', from);
  if (i < 0) return { end: text.length, next: text.length };
  return { end: i, next: i + 1 };
}

/** A delimiter line: `---` with optional trailing spaces, tabs or CR. */
function stripLine(s: string): string {
  return s.replace(/[ \t\r]+$/, '');
}

export function parseFrontmatter(text: string): FrontmatterResult {
  const split = splitFrontmatter(text);
  if (!split.ok) return split;
  const locate = locator(text);
  let doc: Document.Parsed;
  try {
    doc = parseDocument(split.yaml, { version: '1.2', schema: 'core', uniqueKeys: true, strict: true, prettyErrors: false });
  } catch (err) {
    return {
      ok: false,
      message: `the frontmatter is not valid YAML (${err instanceof Error ? err.message : String(err)})`,
      at: locate(split.offset),
    };
  }
  const err = doc.errors[0];
  if (err) {
    const where = locate(split.offset + (err.pos?.[0] ?? 0));
    const what =
      err.code === 'DUPLICATE_KEY'
        ? 'a duplicate key'
        : err.code === 'MULTIPLE_DOCS'
          ? 'more than one YAML document'
          : `invalid YAML (${err.code})`;
    return { ok: false, message: `the frontmatter has ${what}: ${firstLine(err.message)}`, at: where };
  }
  if (!isMap(doc.contents)) {
    const kind =
      doc.contents === null ? 'empty' : isSeq(doc.contents) ? 'a sequence' : isScalar(doc.contents) ? 'a scalar' : 'not a mapping';
    return {
      ok: false,
      message: `the frontmatter is ${kind}, not a YAML mapping`,
      at: locate(split.offset + (doc.contents?.range?.[0] ?? 0)),
    };
  }
  return { ok: true, doc, map: doc.contents as unknown as YamlMap, offset: split.offset, text };
}

function firstLine(s: string): string {
  const i = s.indexOf('\n');
  return (i < 0 ? s : s.slice(0, i)).trim();
}

/** Follows one alias (anchors always point backwards, so this cannot loop). */
export function deref(doc: Document.Parsed, node: unknown): Node | null {
  if (isAlias(node)) {
    try {
      const r = node.resolve(doc);
      return (r ?? null) as Node | null;
    } catch {
      return null;
    }
  }
  return (node ?? null) as Node | null;
}

/** The string a scalar key spells, or null for a non-string or non-scalar key. */
export function keyString(doc: Document.Parsed, key: unknown): string | null {
  const k = deref(doc, key);
  return isScalar(k) && typeof k.value === 'string' ? k.value : null;
}

/** A readable name of a YAML value's type (for messages). */
export function yamlType(doc: Document.Parsed, node: unknown): string {
  const n = deref(doc, node);
  if (n === null) return 'null';
  if (isMap(n)) return 'mapping';
  if (isSeq(n)) return 'sequence';
  if (isScalar(n)) {
    const v = n.value;
    if (v === null) return 'null';
    if (typeof v === 'number' || typeof v === 'bigint') return 'number';
    if (typeof v === 'boolean') return 'boolean';
    if (typeof v === 'string') return 'string';
    return 'scalar';
  }
  return 'value';
}

/** The string value of a scalar node, or null when the node is not a string scalar. */
export function stringOf(doc: Document.Parsed, node: unknown): string | null {
  const n = deref(doc, node);
  return isScalar(n) && typeof n.value === 'string' ? n.value : null;
}
