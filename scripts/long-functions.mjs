#!/usr/bin/env node
// Lists every function, method, accessor and arrow function in src/ whose body spans more than
// LIMIT lines (default 80), so the rule "no function over ~80 lines without a reason" can be checked.
// A function with a reason written above it (a comment holding "Long because:") is listed apart
// and does not fail the check.
// Usage: node scripts/long-functions.mjs [limit]   (exit code 1 when any is found without a reason)
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

const limit = Number(process.argv[2] ?? 80);
const root = new URL('..', import.meta.url).pathname;

function* sourceFiles(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* sourceFiles(path);
    else if (/\.(ts|mts|tsx)$/.test(entry.name) && !entry.name.endsWith('.d.ts')) yield path;
  }
}

function nameOf(node) {
  if (node.name && ts.isIdentifier(node.name)) return node.name.text;
  if (node.name) return node.name.getText();
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  const parent = node.parent;
  if (parent && ts.isVariableDeclaration(parent)) return parent.name.getText();
  if (parent && ts.isPropertyAssignment(parent)) return parent.name.getText();
  if (parent && ts.isPropertyDeclaration(parent)) return parent.name.getText();
  return '(anonymous)';
}

/** The text of the comments just above a node (a declaration's JSDoc, or a comment before an argument). */
function commentsAbove(source, node) {
  const ranges = ts.getLeadingCommentRanges(source.text, node.getFullStart()) ?? [];
  return ranges.map((r) => source.text.slice(r.pos, r.end)).join('\n');
}

const found = [];
const reasoned = [];
for (const file of sourceFiles(join(root, 'src'))) {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const visit = (node) => {
    if (ts.isFunctionLike(node) && node.body) {
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
      const end = source.getLineAndCharacterOfPosition(node.end).line + 1;
      const lines = end - start + 1;
      if (lines > limit) {
        const entry = { file: relative(root, file), line: start, name: nameOf(node), lines };
        (/Long because:/.test(commentsAbove(source, node)) ? reasoned : found).push(entry);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
}

found.sort((a, b) => b.lines - a.lines);
for (const f of found) console.log(`${String(f.lines).padStart(4)}  ${f.file}:${f.line}  ${f.name}`);
for (const f of reasoned) console.log(`${String(f.lines).padStart(4)}  ${f.file}:${f.line}  ${f.name} (with its reason)`);
console.log(
  found.length === 0 ? `no function in src/ over ${limit} lines without a reason` : `${found.length} function(s) over ${limit} lines`,
);
process.exitCode = found.length === 0 ? 0 : 1;
