// The TypeScript/JavaScript oracle: the `typescript` package's compiler and
// language service on one tree.
//
// Usage: node oracle_ts.js TREE SAMPLE SEED OUT.json LANGUAGE [EXCLUDE_DIR ...]
//
// LANGUAGE is `typescript` (the tree's .ts/.tsx files) or `javascript` (its
// .js/.cjs/.mjs files, read with allowJs: CommonJS exports, prototype and
// property assignments are declarations to the compiler).
//
// Definitions: function declarations (nested ones too), classes, class
// methods, constructors and accessors, function-valued class properties,
// interface methods, interfaces, type aliases, enums, and the declarators of
// top-level `const`/`let`/`var` statements; in JavaScript also the
// assignments the compiler takes as declarations (`exports.f = function`,
// `module.exports.f = …`, `A.prototype.m = function`, `obj.m = function`).
// References: for a random sample of SAMPLE functions, methods and classes
// (seeded), `LanguageService.findReferences` on the name, the group whose
// definition is that declaration, less definitions and import/export
// specifiers, and names outside TREE. Each reference gets `call` (called,
// constructed with `new`, a decorator, a tagged template or a JSX tag),
// `caller` (the innermost named function, method, constructor or accessor
// around it, or a function value bound to a name, as "file:line"; null at top
// level) and `inside` (within the sampled callable's own body).
'use strict';
const fs = require('fs');
const path = require('path');
const ts = require(path.join(process.env.ORACLE_NODE_MODULES || path.join(__dirname, 'node_modules'), 'typescript'));

const [tree, sampleArg, seedArg, out, language, ...exclude] = process.argv.slice(2);
const sampleSize = Number(sampleArg);
const exts = language === 'javascript' ? ['.js', '.cjs', '.mjs', '.jsx'] : ['.ts', '.tsx', '.mts', '.cts'];
const skip = new Set(['node_modules', '.git', '.zurdo', ...exclude]);

const files = [];
(function walk(dir) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) {
      if (!skip.has(e.name) && !e.name.startsWith('.') && !skip.has(path.relative(tree, full))) walk(full);
    } else if (exts.some((x) => e.name.endsWith(x))) {
      files.push(full);
    }
  }
})(tree);

const options = {
  target: ts.ScriptTarget.ES2020,
  module: ts.ModuleKind.CommonJS,
  moduleResolution: ts.ModuleResolutionKind.Node10,
  allowJs: language === 'javascript',
  checkJs: false,
  jsx: ts.JsxEmit.Preserve,
  strict: true,
  noEmit: true,
  skipLibCheck: true,
  experimentalDecorators: true,
  lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
};
const texts = new Map(files.map((f) => [f, fs.readFileSync(f, 'utf8')]));
const host = {
  getScriptFileNames: () => files,
  getScriptVersion: () => '1',
  getScriptSnapshot: (f) => {
    if (texts.has(f)) return ts.ScriptSnapshot.fromString(texts.get(f));
    if (!fs.existsSync(f)) return undefined;
    return ts.ScriptSnapshot.fromString(fs.readFileSync(f, 'utf8'));
  },
  getCurrentDirectory: () => tree,
  getCompilationSettings: () => options,
  getDefaultLibFileName: (o) => ts.getDefaultLibFilePath(o),
  fileExists: ts.sys.fileExists,
  readFile: ts.sys.readFile,
  readDirectory: ts.sys.readDirectory,
  directoryExists: ts.sys.directoryExists,
  getDirectories: ts.sys.getDirectories,
};
const service = ts.createLanguageService(host, ts.createDocumentRegistry());
const program = service.getProgram();
const rel = (f) => path.relative(tree, f);
const lineOf = (sf, pos) => sf.getLineAndCharacterOfPosition(pos).line + 1;

function isRequire(n) {
  while (ts.isPropertyAccessExpression(n)) n = n.expression;
  return ts.isCallExpression(n) && ts.isIdentifier(n.expression) && n.expression.text === 'require';
}

// An assignment that is a statement, or inside a chain of assignments that is.
function atStatement(node) {
  let n = node;
  while (n.parent && ts.isBinaryExpression(n.parent) && n.parent.operatorToken.kind === ts.SyntaxKind.EqualsToken && n.parent.right === n) n = n.parent;
  return n.parent && ts.isExpressionStatement(n.parent) && n.parent.parent && ts.isSourceFile(n.parent.parent);
}

function isFunctionValue(n) {
  return n && (ts.isArrowFunction(n) || ts.isFunctionExpression(n));
}

// The name and kind of a declaration node, or null.
function declared(node, sf) {
  const top = node.parent && (ts.isSourceFile(node.parent) || ts.isModuleBlock(node.parent));
  if (ts.isFunctionDeclaration(node) && node.name) return [node.name, 'function'];
  if (ts.isClassDeclaration(node) && node.name) return [node.name, 'class'];
  if ((ts.isMethodDeclaration(node) || ts.isGetAccessor(node) || ts.isSetAccessor(node)) && ts.isClassLike(node.parent) && node.name) return [node.name, 'method'];
  if (ts.isConstructorDeclaration(node) && ts.isClassLike(node.parent)) return [node.getFirstToken(sf), 'method'];
  if (ts.isPropertyDeclaration(node) && isFunctionValue(node.initializer) && node.name) return [node.name, 'method'];
  if (ts.isMethodSignature(node) && node.name) return [node.name, 'method'];
  if (ts.isInterfaceDeclaration(node)) return [node.name, 'interface'];
  if (ts.isTypeAliasDeclaration(node)) return [node.name, 'type'];
  if (ts.isEnumDeclaration(node)) return [node.name, 'enum'];
  if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name)) {
    const statement = node.parent && node.parent.parent;
    const atTop = statement && ts.isVariableStatement(statement) && statement.parent &&
      (ts.isSourceFile(statement.parent) || ts.isModuleBlock(statement.parent));
    // `const x = require('./x')` imports, as `import` does.
    if (node.initializer && isRequire(node.initializer)) return null;
    if (isFunctionValue(node.initializer)) return [node.name, 'function'];
    if (node.initializer && ts.isClassExpression(node.initializer)) return [node.name, 'class'];
    if (atTop) return [node.name, 'constant'];
  }
  if (language === 'javascript' && ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.EqualsToken &&
      ts.isPropertyAccessExpression(node.left) && atStatement(node)) {
    // exports.f = …, module.exports.f = …, A.prototype.m = function, obj.m = function,
    // module.exports = function f (chains `a.x = b.y = function` included): what the
    // compiler takes as declarations.
    const kind = ts.getAssignmentDeclarationKind ? ts.getAssignmentDeclarationKind(node) : 0;
    let value = node.right;
    while (ts.isBinaryExpression(value) && value.operatorToken.kind === ts.SyntaxKind.EqualsToken) value = value.right;
    if (kind !== 0) {
      const target = node.left.expression;
      const text = node.left.getText(sf);
      if (text === 'module.exports') {
        // A named function is defined by its name; an anonymous one is the
        // module's default export (Lumen's name for it).
        if (isFunctionValue(value)) return value.name ? [value.name, 'function'] : [node.left.name, 'function', 'default'];
        return null;
      }
      const onExports = (ts.isIdentifier(target) && target.text === 'exports') ||
        (ts.isPropertyAccessExpression(target) && target.getText(sf) === 'module.exports');
      // `exports.a = b` re-exports `b` (an alias, not a definition).
      if (onExports && !ts.isIdentifier(value)) return [node.left.name, isFunctionValue(value) ? 'function' : ts.isClassExpression(value) ? 'class' : 'constant'];
      if (isFunctionValue(value)) return [node.left.name, 'method'];
    }
  }
  void top;
  return null;
}

const definitions = [];
const declNodes = [];
for (const f of files) {
  const sf = program.getSourceFile(f);
  if (!sf) continue;
  (function visit(node) {
    const d = declared(node, sf);
    if (d) {
      const [name, kind, as] = d;
      const start = name.getStart(sf);
      const entry = { file: rel(f), line: lineOf(sf, start), pos: start, name: as || name.getText(sf), kind };
      definitions.push(entry);
      declNodes.push(entry);
    }
    ts.forEachChild(node, visit);
  })(sf);
}

// A small seeded generator (mulberry32), so a sample is the same every run.
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const candidates = definitions.filter((d) => ['function', 'method', 'class'].includes(d.kind));
const random = rng(Number(seedArg));
for (let i = candidates.length - 1; i > 0; i--) {
  const j = Math.floor(random() * (i + 1));
  [candidates[i], candidates[j]] = [candidates[j], candidates[i]];
}
const sample = candidates.slice(0, sampleSize);

function token(sf, pos) {
  let found = sf;
  (function down(n) {
    ts.forEachChild(n, (c) => {
      if (c.getStart(sf) <= pos && pos < c.getEnd()) {
        found = c;
        down(c);
      }
    });
  })(sf);
  return found;
}

// The declaration a function-like node is named by, or null when anonymous.
function namedBy(n, sf) {
  if (ts.isFunctionDeclaration(n) && n.name) return n.name;
  if ((ts.isMethodDeclaration(n) || ts.isGetAccessor(n) || ts.isSetAccessor(n)) && n.name) return n.name;
  if (ts.isConstructorDeclaration(n)) return n.getFirstToken(sf);
  if (ts.isArrowFunction(n) || ts.isFunctionExpression(n)) {
    const p = n.parent;
    if (ts.isVariableDeclaration(p) && ts.isIdentifier(p.name)) return p.name;
    if (ts.isPropertyDeclaration(p) && p.name) return p.name;
    if (ts.isBinaryExpression(p) && p.right === n && ts.isPropertyAccessExpression(p.left)) return p.left.name;
  }
  return null;
}

const checker = program.getTypeChecker();

// The symbol a named function-like node declares.
function symbolOf(fn, sf) {
  const name = namedBy(fn, sf);
  return name ? checker.getSymbolAtLocation(name) : undefined;
}

function callerOf(node, sf) {
  for (let n = node.parent; n; n = n.parent) {
    if (ts.isFunctionLike(n)) {
      const name = namedBy(n, sf);
      if (name) return { id: `${rel(sf.fileName)}:${lineOf(sf, name.getStart(sf))}`, node: n };
    }
  }
  return null;
}

function isCall(node) {
  let expr = node;
  if (expr.parent && ts.isPropertyAccessExpression(expr.parent) && expr.parent.name === expr) expr = expr.parent;
  const p = expr.parent;
  if (!p) return false;
  if ((ts.isCallExpression(p) || ts.isNewExpression(p)) && p.expression === expr) return true;
  if (ts.isDecorator(p) || (ts.isTaggedTemplateExpression(p) && p.tag === expr)) return true;
  if ((ts.isJsxOpeningElement(p) || ts.isJsxSelfClosingElement(p)) && p.tagName === expr) return true;
  return false;
}

function inImportOrExport(node) {
  for (let n = node.parent; n; n = n.parent) {
    if (ts.isImportDeclaration(n) || ts.isImportEqualsDeclaration(n) || ts.isExportSpecifier(n) || ts.isImportSpecifier(n)) return true;
    // `require('./m').name` in a declarator imports `name`.
    if (ts.isVariableDeclaration(n)) return !!(n.initializer && isRequire(n.initializer) && node.pos >= n.initializer.pos);
    if (ts.isStatement(n)) return false;
  }
  return false;
}

// A position inside a comment (JSDoc `@link`, `@see`, `@typedef {import()}`):
// Lumen reads no comments.
function inComment(sf, pos) {
  const text = sf.text;
  const lineStart = text.lastIndexOf('\n', pos - 1) + 1;
  const before = text.slice(lineStart, pos).trimStart();
  if (before.startsWith('*') || before.startsWith('/*') || before.startsWith('//') || before.includes('//')) return true;
  const open = text.lastIndexOf('/*', pos);
  return open !== -1 && text.indexOf('*/', open) > pos;
}

for (const d of sample) {
  const file = path.join(tree, d.file);
  let groups = [];
  try {
    groups = service.findReferences(file, d.pos) || [];
  } catch (e) {
    process.stderr.write(`findReferences ${d.name} at ${d.file}:${d.line}: ${e}\n`);
  }
  const self = `${d.file}:${d.line}`;
  const ownSymbol = checker.getSymbolAtLocation(token(program.getSourceFile(file), d.pos));
  const refs = [];
  const seen = new Set();
  for (const g of groups) {
    // The declaration's own group (any of its declarations: overloads) and
    // the groups of the aliases imports and re-exports make of it; not the
    // groups of other declarations it is related to (a base or interface
    // member it overrides or implements).
    // A CommonJS import (`const x = require('./m').y`) is a variable to the
    // language service; its group is the import's, as an alias's is.
    const def = g.definition;
    const own = g.references.some((r) => r.isDefinition && r.fileName === file && r.textSpan.start === d.pos);
    const required = g.references.some((r) => {
      if (!r.isDefinition) return false;
      const sf = program.getSourceFile(r.fileName);
      const decl = sf && token(sf, r.textSpan.start).parent;
      return decl && ts.isVariableDeclaration(decl) && decl.initializer && isRequire(decl.initializer);
    });
    if (!own && !required && def.kind !== ts.ScriptElementKind.alias) continue;
    for (const r of g.references) {
      if (r.isDefinition || !r.fileName.startsWith(tree.replace(/\/$/, '') + '/')) continue;
      const sf = program.getSourceFile(r.fileName);
      if (!sf) continue;
      const node = token(sf, r.textSpan.start);
      if (inImportOrExport(node) || inComment(sf, r.textSpan.start)) continue;
      const key = `${r.fileName}:${r.textSpan.start}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const caller = callerOf(node, sf);
      // Within the sampled callable's body, or another declaration of it
      // (an overload's implementation): the same symbol.
      let inside = false;
      if (d.kind !== 'class') {
        for (let c = caller; c; c = callerOf(c.node, sf)) {
          if (c.id === self || (ownSymbol && symbolOf(c.node, sf) === ownSymbol)) { inside = true; break; }
        }
      }
      refs.push({ file: rel(r.fileName), line: lineOf(sf, r.textSpan.start), call: isCall(node), caller: caller && caller.id, inside });
    }
  }
  d.references = refs;
}

fs.writeFileSync(out, JSON.stringify({ language, tree, definitions: definitions.map(({ pos, ...rest }) => rest), sample: sample.map(({ pos, ...rest }) => rest) }, null, 1));
process.stderr.write(`${tree}: ${definitions.length} definitions, ${sample.length} sampled\n`);
