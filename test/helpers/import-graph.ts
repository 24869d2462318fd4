import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/**
 * The import graph of src/, read from the source text: static `import … from`, `export … from`, bare
 * `import '…'` and dynamic `import('…')` with a literal specifier. Type-only imports count too: a type
 * that lives in the wrong layer is a layering fault as much as a value is.
 */

export interface ImportEdge {
  /** Importing file, relative to src/ (e.g. `api/routes/grades.ts`). */
  from: string;
  /** Imported file, relative to src/. */
  to: string;
  line: number;
}

const SPECIFIER = /(?:\bimport\s*(?:type\s+)?(?:[\w*{}\s,$]+?\s+from\s+)?|\bexport\s+(?:type\s+)?(?:\*(?:\s+as\s+\w+)?|\{[^}]*\})\s+from\s+|\bimport\s*\(\s*)(['"])(\.{1,2}\/[^'"]+)\1/g;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.(ts|tsx|mts|mjs)$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Line comments and block comments blanked (newlines kept), so examples in JSDoc are not imports. */
function withoutComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, ' ')).replace(/(^|[^:'"`\\])\/\/[^\n]*/g, '$1');
}

/** Edges of the given files (paths relative to `root`); only relative specifiers, i.e. imports inside the tree. */
export function edgesOf(root: string, files: { path: string; text: string }[]): ImportEdge[] {
  const out: ImportEdge[] = [];
  for (const f of files) {
    const text = withoutComments(f.text);
    for (const m of text.matchAll(SPECIFIER)) {
      const target = relative(root, resolve(root, dirname(f.path), m[2]!));
      if (target.startsWith('..')) continue;
      out.push({ from: f.path, to: target, line: text.slice(0, m.index).split('\n').length });
    }
  }
  return out;
}

export function srcFiles(srcRoot: string): { path: string; text: string }[] {
  return sourceFiles(srcRoot).map((p) => ({ path: relative(srcRoot, p), text: readFileSync(p, 'utf8') }));
}

export const srcEdges = (srcRoot: string): ImportEdge[] => edgesOf(srcRoot, srcFiles(srcRoot));

const PACKAGE = /(?:\bimport\s*(?:type\s+)?(?:[\w*{}\s,$]+?\s+from\s+)?|\bexport\s+(?:type\s+)?(?:\*(?:\s+as\s+\w+)?|\{[^}]*\})\s+from\s+|\bimport\s*\(\s*)(['"])([^./'"][^'"]*)\1/g;

/** Imports of packages (bare specifiers, `node:` built-ins left out), as `file:line package`. */
export function packageImports(files: { path: string; text: string }[]): { from: string; pkg: string; line: number }[] {
  const out: { from: string; pkg: string; line: number }[] = [];
  for (const f of files) {
    const text = withoutComments(f.text);
    for (const m of text.matchAll(PACKAGE)) {
      const spec = m[2]!;
      if (spec.startsWith('node:')) continue;
      const pkg = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!;
      out.push({ from: f.path, pkg, line: text.slice(0, m.index).split('\n').length });
    }
  }
  return out;
}

/** The top-level folder of a path under src/ (`api/routes/x.ts` → `api`); a file at the top is its own unit (`server.ts` → `server`). */
export const topOf = (path: string): string => (path.includes('/') ? path.slice(0, path.indexOf('/')) : path.replace(/\.\w+$/, ''));

export interface Rule {
  /** Why the rule exists, shown with each violation. */
  why: string;
  from: readonly string[];
  to: readonly string[];
  /** Edges the rule lets through (a narrow, named exception). */
  allow?: (e: ImportEdge) => boolean;
}

export function violations(edges: ImportEdge[], rules: readonly Rule[]): string[] {
  const out: string[] = [];
  for (const e of edges) {
    for (const r of rules) {
      if (r.from.includes(topOf(e.from)) && r.to.includes(topOf(e.to)) && !r.allow?.(e)) out.push(`${e.from}:${e.line} imports ${e.to} — ${r.why}`);
    }
  }
  return out;
}

/** Cycles between top-level units: each strongly connected component of more than one unit, with one edge per step as evidence. */
export function folderCycles(edges: ImportEdge[]): string[] {
  const graph = new Map<string, Map<string, ImportEdge>>();
  for (const e of edges) {
    const a = topOf(e.from);
    const b = topOf(e.to);
    if (a === b) continue;
    if (!graph.has(a)) graph.set(a, new Map());
    if (!graph.has(b)) graph.set(b, new Map());
    if (!graph.get(a)!.has(b)) graph.get(a)!.set(b, e);
  }
  // Tarjan's strongly connected components.
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (v: string): void => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v)!.keys()) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const c: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        c.push(w);
      } while (w !== v);
      if (c.length > 1) components.push(c.sort());
    }
  };
  for (const v of [...graph.keys()].sort()) if (!idx.has(v)) visit(v);
  return components.map((c) => {
    const inside = new Set(c);
    const evidence = c.flatMap((a) => [...graph.get(a)!].filter(([b]) => inside.has(b)).map(([b, e]) => `${a} → ${b} (${e.from}:${e.line})`));
    return `cycle between ${c.join(', ')}: ${evidence.join('; ')}`;
  });
}
