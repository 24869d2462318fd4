import { realpathSync, statSync } from 'node:fs';
import { extname, isAbsolute, relative, resolve, sep } from 'node:path';
import { projectPath } from '../paths.ts';

/**
 * The file of a rubric's `image`, for the annotation workspace. The path is stored data (a rubric can be
 * imported over the API), so it is only ever looked up inside two roots — the project's rubrics folder
 * (where the path is relative to the rubric file, as `assay grade` reads it) and the working directory —
 * and only for raster image types. The real path (symbolic links resolved) must stay inside the root, so
 * a link cannot lead out of it; a URL, an absolute path or a `..` escape finds nothing.
 */

const RUBRICS_DIR = projectPath('rubrics') + sep;

export const PICTURE_TYPES: Readonly<Record<string, string>> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.webp': 'image/webp',
  '.gif': 'image/gif',
};

function inside(root: string, path: string): string | null {
  if (/^[a-z][a-z0-9+.-]*:/i.test(path) || isAbsolute(path) || path.includes('\0')) return null;
  try {
    const realRoot = realpathSync(root);
    const file = realpathSync(resolve(root, path));
    const rel = relative(realRoot, file);
    if (rel === '' || rel.startsWith(`..${sep}`) || rel === '..' || isAbsolute(rel)) return null;
    return statSync(file).isFile() ? file : null;
  } catch {
    return null;
  }
}

/** The picture file and its content type, or null when there is none that may be served. */
export function rubricPictureFile(image: string | null, roots: readonly string[] = [RUBRICS_DIR, process.cwd()]): { file: string; type: string } | null {
  if (!image) return null;
  const type = PICTURE_TYPES[extname(image).toLowerCase()];
  if (!type) return null;
  for (const root of roots) {
    const file = inside(root, image);
    if (file && PICTURE_TYPES[extname(file).toLowerCase()] === type) return { file, type };
  }
  return null;
}
