import { functionRefusal, tableFunctionAllowed } from './functions.js';

/**
 * Reading the engine's own parse of a statement (`EXPLAIN AST`): a tree of typed nodes, one a
 * line, indented by depth. Nothing here tokenizes SQL; it reads what the engine's parser built.
 */

export interface AstNode {
  type: string;
  /** What follows the type on its line, less the `(alias …)` and `(children N)` notes. */
  detail: string;
  children: AstNode[];
}

/** The tree of an `EXPLAIN AST` dump. */
export function parseAstDump(text: string): AstNode {
  const root: AstNode = { type: '', detail: '', children: [] };
  const stack: Array<{ depth: number; node: AstNode }> = [{ depth: -1, node: root }];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const depth = line.length - line.trimStart().length;
    const body = line
      .trim()
      .replace(/\s*\(children \d+\)$/, '')
      .replace(/\s*\(alias [^)]*\)$/, '');
    const space = body.indexOf(' ');
    const node: AstNode = {
      type: space < 0 ? body : body.slice(0, space),
      detail: space < 0 ? '' : body.slice(space + 1).trim(),
      children: [],
    };
    while (stack[stack.length - 1]!.depth >= depth) stack.pop();
    stack[stack.length - 1]!.node.children.push(node);
    stack.push({ depth, node });
  }
  if (root.children.length !== 1) throw new Error(`expected one statement in the engine's parse, found ${root.children.length}`);
  return root.children[0]!;
}

/** Node types a reading statement is made of; any other (a settings list, an insert, a DDL node) is refused. */
const READING_NODES = new Set([
  'SelectWithUnionQuery',
  'SelectIntersectExceptQuery',
  'SelectQuery',
  'ExpressionList',
  'Function',
  'Identifier',
  'Literal',
  'Asterisk',
  'QualifiedAsterisk',
  'ColumnsRegexpMatcher',
  'ColumnsListMatcher',
  'QualifiedColumnsRegexpMatcher',
  'QualifiedColumnsListMatcher',
  'ColumnsTransformerList',
  'ColumnsExceptTransformer',
  'ColumnsReplaceTransformer',
  'ColumnsReplaceTransformerReplacement',
  'ColumnsApplyTransformer',
  'TablesInSelectQuery',
  'TablesInSelectQueryElement',
  'TableExpression',
  'TableIdentifier',
  'TableJoin',
  'ArrayJoin',
  'Subquery',
  'WithElement',
  'OrderByElement',
  'WindowDefinition',
  'WindowListElement',
  'InterpolateElement',
  'SampleRatio',
  'QueryParameter',
  'DescribeQuery',
  'ExistsTableQuery',
  'ShowTables',
  'Explain',
  'CollationElement',
]);

/** Statement kinds that run here, by the root node's type. */
export type StatementKind = 'select' | 'describe' | 'exists' | 'show' | 'explain';

const ROOT_KINDS: Readonly<Record<string, StatementKind>> = {
  SelectWithUnionQuery: 'select',
  SelectIntersectExceptQuery: 'select',
  DescribeQuery: 'describe',
  ExistsTableQuery: 'exists',
  ShowTables: 'show',
  Explain: 'explain',
};

/** EXPLAIN kinds that only describe a statement (none runs it). */
const EXPLAIN_KINDS = new Set([
  'EXPLAIN',
  'EXPLAIN AST',
  'EXPLAIN SYNTAX',
  'EXPLAIN PLAN',
  'EXPLAIN PIPELINE',
  'EXPLAIN ESTIMATE',
  'EXPLAIN QUERY TREE',
]);

/** What the engine's parse says of a statement that may run. */
export interface AstFacts {
  kind: StatementKind;
  /** The FORMAT clause's format, if any. */
  format: string | null;
  /** Tables the parse names directly (DESCRIBE, EXISTS, SHOW … FROM, FROM clauses), as written. */
  tables: string[];
  /** For EXPLAIN: its kind as the engine formats it (`EXPLAIN AST`). */
  explainKind: string | null;
}

export class Refusal extends Error {}

function refuse(why: string): never {
  throw new Refusal(why);
}

/** Checks the parse of one statement; throws a Refusal saying why it may not run. */
export function inspectAst(root: AstNode): AstFacts {
  const kind = ROOT_KINDS[root.type];
  if (!kind) refuse(`only reading statements (SELECT, WITH, DESCRIBE, EXISTS, SHOW TABLES, EXPLAIN) run here, not ${describeNode(root)}`);
  const facts: AstFacts = { kind, format: null, tables: [], explainKind: kind === 'explain' ? root.detail : null };
  if (kind === 'explain' && !EXPLAIN_KINDS.has(root.detail)) refuse(`${root.detail} is not a reading EXPLAIN here`);
  // A query's own output clauses are its root's direct children after the body: a literal is the
  // INTO OUTFILE target (or its compression), an identifier the FORMAT.
  root.children.forEach((child, i) => {
    if (i === 0 && kind !== 'exists' && kind !== 'show') return;
    if (child.type === 'Literal' && kind !== 'exists') refuse('INTO OUTFILE writes a file');
    if (child.type === 'Identifier' && kind !== 'exists' && kind !== 'show') facts.format = child.detail;
  });
  if (kind === 'exists') facts.tables.push(root.children.map((c) => c.detail).join('.'));
  if (kind === 'show' && root.children[0]) facts.tables.push(`${root.children[0].detail}.*`);
  walk(root, null, facts);
  return facts;
}

function walk(node: AstNode, parent: AstNode | null, facts: AstFacts): void {
  if (node.type === 'Set' || node.type === 'SetQuery') refuse('SETTINGS are fixed by this connection');
  if (!READING_NODES.has(node.type)) refuse(`${describeNode(node)} is not part of a reading statement`);
  if (node.type === 'Function') {
    const name = node.detail.split(' ')[0]!;
    if (parent?.type === 'TableExpression') {
      if (!tableFunctionAllowed(name)) refuse(`the table function ${name}() reads files, other servers, programs or tables by name`);
    } else {
      const why = functionRefusal(name);
      if (why) refuse(`${name}() ${why}`);
    }
  }
  if (node.type === 'TableIdentifier') facts.tables.push(node.detail.split(' ')[0]!);
  for (const child of node.children) walk(child, node, facts);
}

function describeNode(node: AstNode): string {
  return node.detail ? `${node.type} (${node.detail.slice(0, 60)})` : node.type;
}

/** Tables the analyser resolved (`EXPLAIN QUERY TREE`): every `table_name`, qualified. */
export function resolvedTables(queryTree: string): string[] {
  return [...queryTree.matchAll(/\btable_name: (.+)$/gm)].map((m) => m[1]!.trim());
}
