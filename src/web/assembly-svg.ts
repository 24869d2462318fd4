import type { GridTruth } from '../domain/grid.ts';
import { parseGridAnswer, type GridAnswerStatus } from '../scoring/grid/index.ts';
import { escapeXml } from './escape.ts';

/**
 * The puzzle rebuilt from an assembly answer: each piece drawn in the cell where the model put it and
 * labelled with its id; pieces in their true cell outlined; truth-adjacent pairs the answer kept side
 * by side in the same order (the pairs `neighbour` counts) joined by a bar. With a picture, each piece
 * shows its own crop of it (its true cell's part of the picture), so misplaced pieces look misplaced.
 * Pure: the same answer always gives the same SVG.
 */

export interface AssemblyPicture {
  status: GridAnswerStatus;
  problems: string[];
  rows: number;
  cols: number;
  /** Piece ids placed in their true cell, row-major. */
  inPlace: string[];
  /** Truth pairs [a, b] (a left of b, or a above b) placed side by side in the same order. */
  keptHorizontal: Array<[string, string]>;
  keptVertical: Array<[string, string]>;
  /** Truth pair counts, for "kept n of m". */
  pairsHorizontal: number;
  pairsVertical: number;
  svg: string;
}

export interface AssemblySvgOptions {
  /** Cell size in px. */
  cell?: number;
  /** URL of the puzzle's picture (same origin); each piece then shows its crop. */
  pictureUrl?: string | null;
  /** Accessible title. */
  title?: string;
}

type Cell = readonly [number, number];

export function assemblyPicture(truth: GridTruth, answer: string, opts: AssemblySvgOptions = {}): AssemblyPicture {
  const { rows, cols } = truth;
  const parsed = parseGridAnswer(truth, answer);
  const trueCell = new Map<string, Cell>();
  truth.layout.forEach((row, r) => row.forEach((id, c) => trueCell.set(id, [r, c])));
  const placed = new Map<string, Cell>();
  parsed.cells.forEach((row, r) => row.forEach((id, c) => id !== null && placed.set(id, [r, c])));

  const inPlace: string[] = [];
  parsed.cells.forEach((row, r) => row.forEach((id, c) => id !== null && truth.layout[r]![c] === id && inPlace.push(id)));

  const kept = (a: string, b: string, dr: number, dc: number): boolean => {
    const pa = placed.get(a);
    const pb = placed.get(b);
    return !!pa && !!pb && pb[0] === pa[0] + dr && pb[1] === pa[1] + dc;
  };
  const keptHorizontal: Array<[string, string]> = [];
  const keptVertical: Array<[string, string]> = [];
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      const a = truth.layout[r]![c]!;
      const right = truth.layout[r]![c + 1];
      const below = truth.layout[r + 1]?.[c];
      if (right !== undefined && kept(a, right, 0, 1)) keptHorizontal.push([a, right]);
      if (below !== undefined && kept(a, below, 1, 0)) keptVertical.push([a, below]);
    }
  }
  const base = {
    status: parsed.status,
    problems: parsed.problems,
    rows,
    cols,
    inPlace,
    keptHorizontal,
    keptVertical,
    pairsHorizontal: rows * (cols - 1),
    pairsVertical: (rows - 1) * cols,
  };
  return { ...base, svg: drawSvg(truth, parsed.cells, trueCell, placed, { ...base }, opts) };
}

function drawSvg(
  truth: GridTruth,
  cells: (string | null)[][],
  trueCell: ReadonlyMap<string, Cell>,
  placed: ReadonlyMap<string, Cell>,
  s: Omit<AssemblyPicture, 'svg'>,
  opts: AssemblySvgOptions,
): string {
  const size = opts.cell ?? 56;
  const pad = 4;
  const width = truth.cols * size + 2 * pad;
  const height = truth.rows * size + 2 * pad;
  const x = (c: number) => pad + c * size;
  const y = (r: number) => pad + r * size;
  const title =
    opts.title ??
    `Assembly ${s.rows}×${s.cols}: ${s.inPlace.length} pieces in their true cell, ` +
      `${s.keptHorizontal.length + s.keptVertical.length} of ${s.pairsHorizontal + s.pairsVertical} neighbour pairs kept together`;
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" class="assembly" role="img" aria-labelledby="asm-title" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">`,
    `<title id="asm-title">${escapeXml(title)}</title>`,
  ];
  const inPlace = new Set(s.inPlace);
  const picture = opts.pictureUrl ? escapeXml(opts.pictureUrl) : null;
  for (let r = 0; r < truth.rows; r++) {
    for (let c = 0; c < truth.cols; c++) {
      const id = cells[r]?.[c] ?? null;
      if (id === null) {
        out.push(`<rect class="cell-blank" x="${x(c)}" y="${y(r)}" width="${size}" height="${size}"/>`);
        continue;
      }
      const home = trueCell.get(id)!;
      if (picture) {
        // A nested viewport clips the whole picture to this piece's true cell.
        out.push(
          `<svg x="${x(c)}" y="${y(r)}" width="${size}" height="${size}" viewBox="${home[1] * size} ${home[0] * size} ${size} ${size}" preserveAspectRatio="none">` +
            `<image href="${picture}" width="${truth.cols * size}" height="${truth.rows * size}" preserveAspectRatio="none"/></svg>`,
        );
      }
      const cls = inPlace.has(id) ? 'piece in-place' : 'piece';
      out.push(`<rect class="${picture ? `${cls} over-picture` : cls}" x="${x(c)}" y="${y(r)}" width="${size}" height="${size}"/>`);
    }
  }
  const centre = (id: string) => {
    const [r, c] = placed.get(id)!;
    return [x(c) + size / 2, y(r) + size / 2] as const;
  };
  for (const [a, b] of [...s.keptHorizontal, ...s.keptVertical]) {
    const [x1, y1] = centre(a);
    const [x2, y2] = centre(b);
    out.push(`<line class="kept" x1="${x1}" y1="${y1}" x2="${x2}" y2="${y2}"/>`);
  }
  for (let r = 0; r < truth.rows; r++) {
    for (let c = 0; c < truth.cols; c++) {
      const id = cells[r]?.[c];
      if (id === null || id === undefined) continue;
      out.push(
        `<text class="piece-id" x="${x(c) + size / 2}" y="${y(r) + size / 2}" text-anchor="middle" dominant-baseline="central">${escapeXml(id)}</text>`,
      );
    }
  }
  out.push('</svg>');
  return out.join('');
}
