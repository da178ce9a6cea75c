/**
 * No import cycle anywhere in src/: a module and the modules it imports form a tree a reader can
 * climb from the leaves. Every relative import counts: `import`, `import type`, `export ... from`
 * and dynamic `import()`. A cycle through `import type` costs nothing at run time (the compiler
 * erases it), but it still means two modules each need the other to be understood, which is what
 * this rule is against; the cure is the same as for a value cycle: the shared piece (usually a
 * type) goes into a small module both sides import. Each cycle found is named, module by module.
 */
import test from 'ava';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const SRC = path.resolve('src');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const p = path.join(dir, d.name);
    return d.isDirectory() ? sources(p) : d.name.endsWith('.ts') ? [p] : [];
  });
}

const rel = (abs: string) => path.relative(SRC, abs).split(path.sep).join('/');

/** Module (path under src/) -> the modules under src/ it imports, in any of the forms above. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sources(SRC)) {
    const imports = ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles.map((i) => i.fileName);
    const local = imports.filter((s) => s.startsWith('.')).map((s) => rel(path.resolve(path.dirname(file), s.replace(/\.js$/, '.ts'))));
    graph.set(rel(file), [...new Set(local)]);
  }
  return graph;
}

/** The strongly connected components of more than one module, or of one that imports itself (Tarjan). */
function tangles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || graph.get(v)!.includes(v)) found.push(component.sort());
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  return found;
}

/** One shortest cycle through the first module of a component, written a -> b -> ... -> a. */
function cycleThrough(graph: Map<string, string[]>, component: string[]): string {
  const inside = new Set(component);
  const start = component[0]!;
  const from = new Map<string, string>();
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    for (const w of graph.get(queue[i]!)!) {
      if (w === start) {
        const cycle = [start];
        for (let at: string | undefined = queue[i]; at !== undefined && at !== start; at = from.get(at)) cycle.splice(1, 0, at);
        return [...cycle, start].join(' -> ');
      }
      if (inside.has(w) && !from.has(w)) {
        from.set(w, queue[i]!);
        queue.push(w);
      }
    }
  }
  return component.join(', ');
}

test('no module under src/ imports itself through other modules', (t) => {
  const graph = importGraph();
  t.true(graph.size > 100, 'the modules of src/ were found');
  const cycles = tangles(graph).map((c) =>
    c.length > 2 ? `${cycleThrough(graph, c)} (tangle of ${c.join(', ')})` : cycleThrough(graph, c),
  );
  t.deepEqual(cycles, [], `import cycles in src/:\n${cycles.join('\n')}`);
});
