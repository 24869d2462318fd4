import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { badInput } from '../domain/errors.ts';
import type { JudgeImage } from './prompt.ts';

const MEDIA: Readonly<Record<string, JudgeImage['mediaType']>> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
};

/** A picture for the judge, from a file; unsupported types and missing files are bad input. */
export function loadImage(path: string): JudgeImage {
  const mediaType = MEDIA[extname(path).toLowerCase()];
  if (!mediaType) throw badInput(`image ${path}: unsupported type (use ${Object.keys(MEDIA).join(', ')})`);
  try {
    return { mediaType, data: readFileSync(path).toString('base64') };
  } catch {
    throw badInput(`image ${path}: no such file`);
  }
}
