/** `assay judge compare`: two judges' stored verdicts against the same human labels (pure). */
export * from './units.ts';
export * from './compare.ts';
