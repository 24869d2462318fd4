import fc from 'fast-check';

// Property tests draw from one fixed seed, so CI runs are reproducible; FC_SEED=<n> explores others
// (a failure prints the seed and path to replay).
fc.configureGlobal({ seed: Number(process.env.FC_SEED ?? 20261129) });
