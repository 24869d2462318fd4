import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { rubricPictureFile } from '../../src/web/rubric-picture.ts';

/** The rubric picture lookup serves image files inside its roots only (the path is stored data). */
describe('rubricPictureFile', () => {
  const base = mkdtempSync(join(tmpdir(), 'assay-pic-'));
  const root = join(base, 'root');
  mkdirSync(join(root, 'images'), { recursive: true });
  writeFileSync(join(root, 'images', 'a.png'), 'png');
  writeFileSync(join(root, 'notes.txt'), 'text');
  writeFileSync(join(base, 'outside.png'), 'png');
  symlinkSync(join(base, 'outside.png'), join(root, 'images', 'link.png'));
  const roots = [root];

  it('finds an image relative to a root, with its type', () => {
    expect(rubricPictureFile('images/a.png', roots)).toEqual({ file: join(root, 'images', 'a.png'), type: 'image/png' });
    expect(rubricPictureFile('./images/../images/a.png', roots)?.type).toBe('image/png');
  });

  it.each([
    ['a parent escape', '../outside.png'],
    ['an absolute path', join(base, 'outside.png')],
    ['a symbolic link out of the root', 'images/link.png'],
    ['a URL', 'https://example.org/a.png'],
    ['a file URL', 'file:///etc/passwd'],
    ['not an image type', 'notes.txt'],
    ['a missing file', 'images/b.png'],
    ['a directory', 'images'],
    ['a NUL byte', 'images/a.png\0.png'],
  ])('finds nothing for %s', (_name, path) => {
    expect(rubricPictureFile(path, roots)).toBeNull();
  });

  it('finds nothing without an image, and the bundled rubric picture by default', () => {
    expect(rubricPictureFile(null)).toBeNull();
    expect(rubricPictureFile('images/farmyard.png')?.file).toMatch(/rubrics\/images\/farmyard\.png$/);
  });
});
