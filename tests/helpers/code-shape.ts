// Shape of the code in src/: every function's line span and every module's imports, read with the
// TypeScript compiler's parser (no type-checking, no emit). Used by tests/unit/code-shape/.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import ts from 'typescript';

export const REPO = join(import.meta.dirname, '..', '..');
export const SRC = join(REPO, 'src');

/** Every .ts file under dir (recursively), sorted, as absolute paths. */
export function sourceFiles(dir: string = SRC): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sourceFiles(path));
    else if (entry.isFile() && entry.name.endsWith('.ts')) out.push(path);
  }
  return out.sort();
}

function parse(file: string): ts.SourceFile {
  return ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
}

export interface FunctionSpan {
  /** path relative to the repository, forward slashes */
  file: string;
  /** 1-based line of the function's first token */
  line: number;
  name: string;
  /** lines from the function's first token to its last, both counted */
  lines: number;
}

function functionName(node: ts.FunctionLikeDeclaration): string {
  if (node.name && (ts.isIdentifier(node.name) || ts.isStringLiteral(node.name) || ts.isPrivateIdentifier(node.name))) {
    return node.name.text;
  }
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  if (ts.isPropertyAssignment(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  if (ts.isPropertyDeclaration(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  return '(anonymous)';
}

/** Every function, method, constructor, accessor and arrow function with a body, in every file. */
export function functionSpans(files: string[] = sourceFiles()): FunctionSpan[] {
  const spans: FunctionSpan[] = [];
  for (const file of files) {
    const source = parse(file);
    const visit = (node: ts.Node): void => {
      if (ts.isFunctionLike(node) && 'body' in node && node.body) {
        const fn = node as ts.FunctionLikeDeclaration;
        const first = source.getLineAndCharacterOfPosition(fn.getStart(source)).line;
        const last = source.getLineAndCharacterOfPosition(fn.getEnd()).line;
        spans.push({
          file: relative(REPO, file).split(sep).join('/'),
          line: first + 1,
          name: functionName(fn),
          lines: last - first + 1,
        });
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return spans;
}

/** Line count of each file (a final newline does not start a line). */
export function fileLines(files: string[] = sourceFiles()): Array<{ file: string; lines: number }> {
  return files.map((file) => {
    const text = readFileSync(file, 'utf8');
    const lines = text.length === 0 ? 0 : text.replace(/\n$/, '').split('\n').length;
    return { file: relative(REPO, file).split(sep).join('/'), lines };
  });
}

export interface ImportEdge {
  /** importing file, relative to the repository */
  file: string;
  line: number;
  /** the module specifier as written */
  specifier: string;
  /** the imported file relative to the repository (relative specifiers only) */
  target: string;
}

/** Every relative import and re-export (static and dynamic `import('...')`) of every file in src/. */
export function importEdges(files: string[] = sourceFiles()): ImportEdge[] {
  const edges: ImportEdge[] = [];
  for (const file of files) {
    const source = parse(file);
    const add = (literal: ts.StringLiteralLike): void => {
      const specifier = literal.text;
      if (!specifier.startsWith('.')) return;
      const target = relative(REPO, join(file, '..', specifier))
        .split(sep)
        .join('/');
      const line = source.getLineAndCharacterOfPosition(literal.getStart(source)).line + 1;
      edges.push({ file: relative(REPO, file).split(sep).join('/'), line, specifier, target });
    };
    const visit = (node: ts.Node): void => {
      if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier) {
        if (ts.isStringLiteralLike(node.moduleSpecifier)) add(node.moduleSpecifier);
      } else if (
        ts.isCallExpression(node) &&
        node.expression.kind === ts.SyntaxKind.ImportKeyword &&
        node.arguments[0] &&
        ts.isStringLiteralLike(node.arguments[0])
      ) {
        add(node.arguments[0]);
      } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
        add(node.argument.literal);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return edges;
}
