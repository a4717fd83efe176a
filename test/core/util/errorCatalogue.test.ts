// The error catalogue (src/core/util/errorCatalogue.ts) is closed: every code thrown anywhere in
// src/ (UserFacingError and its subclasses, EngineError, error payloads) and every code compared
// against is one of its entries, found by parsing the sources with the TypeScript compiler.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import ts from 'typescript';
import { ERROR_CATALOGUE, ERROR_CODES, formatErrorMessage, isErrorCode } from '../../../src/core/util/errorCatalogue';
import { UserFacingError } from '../../../src/core/util/errors';

const root = path.resolve(__dirname, '../../..');

interface CodeUse {
  where: string;
  code: string | null; // null: not a string literal
  text: string;
}

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) sourceFiles(p, out);
    else if (/\.tsx?$/.test(e.name)) out.push(p);
  }
  return out;
}

/** Classes (by name) whose constructor passes its code to UserFacingError / EngineError. */
const THROWERS: Record<string, 'first' | 'last'> = { UserFacingError: 'last', EngineError: 'first' };

function heritageName(cls: ts.ClassLikeDeclaration): string | undefined {
  const ext = cls.heritageClauses?.find((h) => h.token === ts.SyntaxKind.ExtendsKeyword)?.types[0];
  return ext ? ext.expression.getText() : undefined;
}

function codeArg(args: readonly ts.Expression[], pos: 'first' | 'last'): ts.Expression | undefined {
  return pos === 'first' ? args[0] : args[args.length - 1];
}

/** A code argument: a string literal, or null (with its text) when it is computed. */
function use(sf: ts.SourceFile, node: ts.Node, arg: ts.Expression | undefined): CodeUse | undefined {
  if (!arg) return undefined;
  const where = `${path.relative(root, sf.fileName)}:${sf.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
  const lit = ts.isStringLiteral(arg) || ts.isNoSubstitutionTemplateLiteral(arg) ? arg.text : null;
  return { where, code: lit, text: arg.getText(sf) };
}

function isCodeComparison(node: ts.Node): node is ts.BinaryExpression {
  if (!ts.isBinaryExpression(node)) return false;
  const op = node.operatorToken.kind;
  if (op !== ts.SyntaxKind.EqualsEqualsEqualsToken && op !== ts.SyntaxKind.ExclamationEqualsEqualsToken) return false;
  return ts.isPropertyAccessExpression(node.left) && node.left.name.text === 'code' && ts.isStringLiteral(node.right);
}

/** Every place a catalogue code is thrown, put in a payload, or compared against. */
function codeUses(file: string, protocolSide: boolean): CodeUse[] {
  const sf = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, true);
  const out: CodeUse[] = [];
  const visit = (node: ts.Node, superPos: 'first' | 'last' | undefined): void => {
    if (ts.isClassLike(node)) {
      const base = heritageName(node);
      superPos = base ? THROWERS[base] : undefined;
    }
    if (ts.isNewExpression(node) && THROWERS[node.expression.getText(sf)] && node.arguments) {
      const u = use(sf, node, codeArg(node.arguments, THROWERS[node.expression.getText(sf)]!));
      if (u) out.push(u);
    }
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.SuperKeyword && superPos) {
      const u = use(sf, node, codeArg(node.arguments, superPos));
      if (u) out.push(u);
    }
    if (ts.isCallExpression(node) && /^UserFacingError\.of$/.test(node.expression.getText(sf))) {
      const u = use(sf, node, node.arguments[0]);
      if (u) out.push(u);
    }
    // Above the core, `code` fields and comparisons are protocol codes (payloads, `e.code === …`).
    if (protocolSide && ts.isPropertyAssignment(node) && node.name.getText(sf) === 'code' && ts.isStringLiteral(node.initializer)) {
      out.push(use(sf, node, node.initializer)!);
    }
    if (protocolSide && isCodeComparison(node)) out.push(use(sf, node, node.right)!);
    ts.forEachChild(node, (c) => visit(c, superPos));
  };
  visit(sf, undefined);
  return out;
}

function allUses(): CodeUse[] {
  const dirs = ['src', 'webview'].map((d) => path.join(root, d)).filter((d) => fs.existsSync(d));
  const files = dirs.flatMap((d) => sourceFiles(d)).filter((f) => !f.endsWith('errorCatalogue.ts'));
  return files.flatMap((f) => codeUses(f, !path.relative(root, f).startsWith(path.join('src', 'core'))));
}

test('every error code thrown or compared in src/ is in the catalogue', () => {
  const uses = allUses();
  const literal = uses.filter((u) => u.code !== null);
  assert.ok(literal.length > 80, `found only ${literal.length} coded throws: the scan is broken`);
  const unknown = literal.filter((u) => !isErrorCode(u.code)).map((u) => `${u.where}: '${u.code}'`);
  assert.deepEqual(unknown, []);
  // Computed codes are allowed only where they are typed as catalogue codes already.
  const computed = uses
    .filter((u) => u.code === null)
    .map((u) => u.text)
    .sort();
  assert.deepEqual(
    [...new Set(computed)],
    ['code', 'p.code'].filter((t) => computed.includes(t)),
  );
});

test('the scanner sees throws of subclasses, EngineError, UserFacingError.of and payload codes', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'codes-'));
  const file = path.join(dir, 'x.ts');
  fs.writeFileSync(
    file,
    [
      "class A extends UserFacingError { constructor(m: string) { super(m, 'made_up_a'); } }",
      "throw new EngineError('made_up_b', 'x');",
      "throw new UserFacingError(`y ${1}`,\n 'made_up_c');",
      "throw UserFacingError.of('made_up_d', {});",
      "const p = { code: 'made_up_e', message: '' };",
      "if (e.code === 'made_up_f') {}",
    ].join('\n'),
  );
  assert.deepEqual(
    codeUses(file, true).map((u) => u.code),
    ['made_up_a', 'made_up_b', 'made_up_c', 'made_up_d', 'made_up_e', 'made_up_f'],
  );
  const inCore = codeUses(file, false).map((u) => u.code);
  assert.deepEqual(inCore, ['made_up_a', 'made_up_b', 'made_up_c', 'made_up_d'], 'payload codes only above the core');
  fs.rmSync(dir, { recursive: true });
});

test('each code has a template; formatErrorMessage fills it; UserFacingError.of carries the code', () => {
  for (const code of ERROR_CODES) assert.ok(ERROR_CATALOGUE[code].template.length > 0, code);
  assert.ok(ERROR_CODES.includes('disk_full') && ERROR_CODES.includes('io_error'));
  assert.equal(formatErrorMessage('not_found', { what: 'memory', id: 'm1' }), 'No memory with id m1.');
  assert.equal(formatErrorMessage('timeout', { method: 'search' }), 'The memory engine did not answer "search" within {ms} ms.');
  const e = UserFacingError.of('disk_full', { dir: '/s' });
  assert.equal(e.code, 'disk_full');
  assert.match(e.message, /disk holding the memory store at \/s is full/);
  assert.equal(isErrorCode('toString'), false, 'inherited properties are not codes');
  assert.equal(isErrorCode('made_up'), false);
});
