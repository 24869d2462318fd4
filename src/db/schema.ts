import { sql } from 'drizzle-orm';
import {
  type AnyPgColumn,
  check,
  doublePrecision,
  foreignKey,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  serial,
  text,
  timestamp,
  unique,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { ANSWER_STATUSES, type AnswerStatus, TASK_KINDS, type TaskKind } from '../domain/answers.ts';
import type { GradeStatus } from '../domain/grades.ts';
import type { NO_QUORUM_STATUS } from '../domain/panel.ts';
import { LABEL_KINDS, type LabelKind } from '../domain/label-kinds.ts';
import { QUEUE_REASONS, type QueueReason } from '../domain/campaigns.ts';

/**
 * The whole data model (see src/db/README.md). One schema for both engines (PGlite and PostgreSQL);
 * drizzle-kit generates migrations/ from it. Verdict/claim/problem lists are jsonb because they are
 * always read whole with their grade; everything reports filter or join on is a column.
 */

const createdAt = () => timestamp('created_at', { withTimezone: true }).notNull().defaultNow();
const tokens = (name: string) => integer(name);
/** `column in ('a', 'b', …)` from a list in domain/: the check constraint and the column type share one list. */
const isOneOf = (column: AnyPgColumn, values: readonly string[]) => sql`${column} in (${sql.raw(values.map((v) => `'${v}'`).join(', '))})`;

export const rubrics = pgTable('rubrics', {
  id: serial('id').primaryKey(),
  slug: text('slug').notNull().unique(),
  title: text('title').notNull(),
  createdAt: createdAt(),
});

/** Editing a rubric makes a new version; grades point at the version they were judged against. */
export const rubricVersions = pgTable(
  'rubric_versions',
  {
    id: serial('id').primaryKey(),
    rubricId: integer('rubric_id')
      .notNull()
      .references(() => rubrics.id, { onDelete: 'cascade' }),
    version: integer('version').notNull(),
    title: text('title').notNull(),
    reference: text('reference').notNull(),
    image: text('image'),
    truth: jsonb('truth').$type<{ orientation?: string; grid?: { rows: number; cols: number }; pieces?: number }>(),
    source: text('source'),
    /** sha256 of the canonical rubric content: identical re-imports make no new version. */
    contentHash: text('content_hash').notNull(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('rubric_versions_rubric_version_uq').on(t.rubricId, t.version), index('rubric_versions_hash_idx').on(t.rubricId, t.contentHash)],
);

export const rubricItems = pgTable(
  'rubric_items',
  {
    id: serial('id').primaryKey(),
    rubricVersionId: integer('rubric_version_id')
      .notNull()
      .references(() => rubricVersions.id, { onDelete: 'cascade' }),
    itemKey: text('item_key').notNull(),
    text: text('text').notNull(),
    weight: doublePrecision('weight').notNull(),
    tags: jsonb('tags').$type<string[]>().notNull().default([]),
    position: integer('position').notNull(),
  },
  (t) => [uniqueIndex('rubric_items_version_key_uq').on(t.rubricVersionId, t.itemKey), check('rubric_items_weight_positive', sql`${t.weight} > 0`)],
);

export const puzzles = pgTable(
  'puzzles',
  {
    id: serial('id').primaryKey(),
    slug: text('slug').notNull().unique(),
    rows: integer('rows').notNull(),
    cols: integer('cols').notNull(),
    layout: jsonb('layout').$type<string[][]>().notNull(),
    /** Per-piece edges {id: [top, right, bottom, left]} with tab|blank|flat; null when unknown. */
    edges: jsonb('edges').$type<Record<string, string[]>>(),
    picturePath: text('picture_path'),
    /** Coarse piece-count bucket (e.g. "~50", "~100", "~200") for slicing reports. */
    sizeBucket: text('size_bucket'),
    /** The rubric of the puzzle's picture: joins a description and an assembly of the same puzzle. */
    rubricId: integer('rubric_id').references(() => rubrics.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
  },
  (t) => [index('puzzles_rubric_idx').on(t.rubricId), index('puzzles_size_bucket_idx').on(t.sizeBucket)],
);

export const runs = pgTable(
  'runs',
  {
    id: serial('id').primaryKey(),
    name: text('name').notNull().unique(),
    model: text('model').notNull(),
    effort: text('effort'),
    /** Condition tags such as "tagged" (pieces labelled in the image). */
    tags: jsonb('tags').$type<string[]>().notNull().default([]),
    createdAt: createdAt(),
  },
  (t) => [index('runs_model_idx').on(t.model)],
);

export const answers = pgTable(
  'answers',
  {
    id: serial('id').primaryKey(),
    runId: integer('run_id')
      .notNull()
      .references(() => runs.id, { onDelete: 'cascade' }),
    /** The "id" of the imported row; unique within its run. */
    externalId: text('external_id').notNull(),
    task: text('task').$type<TaskKind>().notNull(),
    puzzleId: integer('puzzle_id').references(() => puzzles.id, { onDelete: 'set null' }),
    rubricId: integer('rubric_id').references(() => rubrics.id, { onDelete: 'set null' }),
    text: text('text'),
    status: text('status').$type<AnswerStatus>().notNull().default('ok'),
    inputTokens: tokens('input_tokens'),
    outputTokens: tokens('output_tokens'),
    meta: jsonb('meta').$type<Record<string, unknown>>().notNull().default({}),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('answers_run_external_uq').on(t.runId, t.externalId),
    index('answers_puzzle_idx').on(t.puzzleId),
    index('answers_rubric_idx').on(t.rubricId),
    index('answers_task_idx').on(t.task),
    check('answers_task_check', isOneOf(t.task, TASK_KINDS)),
    check('answers_status_check', isOneOf(t.status, ANSWER_STATUSES)),
  ],
);

export const judges = pgTable('judges', {
  id: serial('id').primaryKey(),
  slug: text('slug').notNull(),
  provider: text('provider').notNull(),
  model: text('model').notNull(),
  /** The full judge configuration as used (prompt text included), so a grade is reproducible. */
  config: jsonb('config').$type<Record<string, unknown>>().notNull(),
  configHash: text('config_hash').notNull().unique(),
  createdAt: createdAt(),
});

export interface GradeItem {
  id: string;
  weight: number;
  verdict: string;
  evidence?: string | null;
  points: number;
  /** Probability of the verdict (docs/grades.md#confidence); absent on grades stored before it existed. */
  confidence?: number | null;
  confidenceSource?: 'logprob' | 'vote' | null;
}
export interface GradeClaim {
  text?: string | null;
  verdict: string;
}

export const grades = pgTable(
  'grades',
  {
    id: serial('id').primaryKey(),
    answerId: integer('answer_id')
      .notNull()
      .references(() => answers.id, { onDelete: 'cascade' }),
    judgeId: integer('judge_id')
      .notNull()
      .references(() => judges.id, { onDelete: 'cascade' }),
    rubricVersionId: integer('rubric_version_id').references(() => rubricVersions.id, { onDelete: 'restrict' }),
    promptHash: text('prompt_hash'),
    /**
     * One of GRADE_STATUSES (src/domain/grades.ts), or a panel grade's no_quorum (src/domain/panel.ts): a
     * failure is a status, never a score. No check constraint, so no migration for no_quorum.
     */
    status: text('status').$type<GradeStatus | typeof NO_QUORUM_STATUS>().notNull(),
    reason: text('reason'),
    completeness: doublePrecision('completeness'),
    correctness: doublePrecision('correctness'),
    f1: doublePrecision('f1'),
    items: jsonb('items').$type<GradeItem[]>(),
    claims: jsonb('claims').$type<GradeClaim[]>(),
    meta: jsonb('meta').$type<Record<string, unknown>>(),
    rawOutput: text('raw_output'),
    inputTokens: tokens('input_tokens'),
    outputTokens: tokens('output_tokens'),
    cacheReadTokens: tokens('cache_read_tokens'),
    cacheWriteTokens: tokens('cache_write_tokens'),
    costUsd: doublePrecision('cost_usd'),
    latencyMs: integer('latency_ms'),
    createdAt: createdAt(),
  },
  (t) => [
    // Versioned grades (migration 0006): one grade per answer × judge configuration × rubric version, so a
    // changed judge or rubric adds a grade and keeps the earlier ones; reads take the newest (docs/grades.md).
    unique('grades_answer_judge_version_uq').on(t.answerId, t.judgeId, t.rubricVersionId).nullsNotDistinct(),
    index('grades_answer_judge_idx').on(t.answerId, t.judgeId, t.createdAt),
    index('grades_judge_idx').on(t.judgeId),
    index('grades_rubric_version_idx').on(t.rubricVersionId),
    index('grades_status_idx').on(t.status),
  ],
);

/** scoreGrid's document for one assemble answer; a metric is null where the grid makes it undefined (1×1). */
export const assemblyScores = pgTable('assembly_scores', {
  id: serial('id').primaryKey(),
  answerId: integer('answer_id')
    .notNull()
    .unique()
    .references(() => answers.id, { onDelete: 'cascade' }),
  status: text('status').notNull(),
  problems: jsonb('problems').$type<string[]>().notNull().default([]),
  direct: doublePrecision('direct').notNull(),
  exactMatch: doublePrecision('exact_match').notNull(),
  neighbour: doublePrecision('neighbour'),
  adjacency: doublePrecision('adjacency'),
  proximity: doublePrecision('proximity'),
  shapeCompatibility: doublePrecision('shape_compatibility'),
  byPosition: jsonb('by_position').$type<{ corner: number | null; edge: number | null; interior: number | null }>().notNull(),
  createdAt: createdAt(),
});

/**
 * Human (or judge) labels for calibration. item_key '' means an answer-level label: a plain column
 * keeps the unique key a simple upsert target on both engines (NULLs never collide in a unique index).
 */
export const labels = pgTable(
  'labels',
  {
    id: serial('id').primaryKey(),
    answerId: integer('answer_id')
      .notNull()
      .references(() => answers.id, { onDelete: 'cascade' }),
    itemKey: text('item_key').notNull().default(''),
    annotator: text('annotator').notNull(),
    kind: text('kind').$type<LabelKind>().notNull().default('human'),
    label: text('label').notNull(),
    /**
     * The annotation campaign the label was given in (migration 0007); null for imported and ad hoc labels.
     * Part of the key (migration 0010): one annotator in two campaigns over one answer has a label in each.
     */
    campaignId: integer('campaign_id').references((): AnyPgColumn => campaigns.id, { onDelete: 'set null' }),
    /**
     * The rubric version the label was given against (migration 0010; rows before it: the version current
     * when they were written); null when unknown (an import that did not say). Calibration compares item
     * texts through it (services/grading/label-versions.ts).
     */
    rubricVersionId: integer('rubric_version_id').references(() => rubricVersions.id, { onDelete: 'restrict' }),
    /**
     * A claim mark's sentence (migration 0011): a short hash of the text of sentence n it was given on
     * (services/claim-marks.ts), so a changed split shows the mark as stale rather than on another sentence;
     * null for other labels and when unknown (marks before 0011, imports).
     */
    claimSentence: text('claim_sentence'),
    createdAt: createdAt(),
  },
  (t) => [
    index('labels_campaign_idx').on(t.campaignId),
    unique('labels_answer_item_annotator_campaign_uq').on(t.answerId, t.itemKey, t.annotator, t.campaignId).nullsNotDistinct(),
    index('labels_rubric_version_idx').on(t.rubricVersionId),
    index('labels_annotator_idx').on(t.annotator),
    check('labels_kind_check', isOneOf(t.kind, LABEL_KINDS)),
  ],
);

export const apiKeys = pgTable('api_keys', {
  id: serial('id').primaryKey(),
  name: text('name').notNull(),
  prefix: text('prefix').notNull().unique(),
  hash: text('hash').notNull().unique(),
  scopes: jsonb('scopes').$type<string[]>().notNull().default([]),
  createdAt: createdAt(),
  revokedAt: timestamp('revoked_at', { withTimezone: true }),
  lastUsedAt: timestamp('last_used_at', { withTimezone: true }),
});

/** Provider responses keyed by a hash of the exact request: re-grading costs nothing. */
export const judgeCache = pgTable('judge_cache', {
  key: text('key').primaryKey(),
  response: jsonb('response').notNull(),
  createdAt: createdAt(),
});

/** One row per provider call; call_key makes recording idempotent across retries and restarts. */
export const usageLedger = pgTable(
  'usage_ledger',
  {
    id: serial('id').primaryKey(),
    callKey: text('call_key').notNull().unique(),
    provider: text('provider').notNull(),
    model: text('model').notNull(),
    judgeId: integer('judge_id').references(() => judges.id, { onDelete: 'set null' }),
    answerId: integer('answer_id').references(() => answers.id, { onDelete: 'set null' }),
    inputTokens: tokens('input_tokens').notNull().default(0),
    outputTokens: tokens('output_tokens').notNull().default(0),
    cacheReadTokens: tokens('cache_read_tokens').notNull().default(0),
    cacheWriteTokens: tokens('cache_write_tokens').notNull().default(0),
    costUsd: doublePrecision('cost_usd'),
    latencyMs: integer('latency_ms'),
    /**
     * `pending` from just before the request is sent (tokens and cost then hold an estimate: prompt
     * bytes in, max_tokens out) until the call is settled with the provider's figures and its outcome.
     */
    status: text('status').notNull(),
    /** The `workers` row whose process made the call (null outside a queue worker). */
    workerId: text('worker_id'),
    createdAt: createdAt(),
    settledAt: timestamp('settled_at', { withTimezone: true }),
  },
  (t) => [
    index('usage_ledger_pending_idx').on(t.workerId).where(sql`${t.status} = 'pending'`),
    index('usage_ledger_judge_idx').on(t.judgeId),
    index('usage_ledger_answer_idx').on(t.answerId),
    index('usage_ledger_created_idx').on(t.createdAt),
  ],
);

// ─── Batch grading (issue 6, src/jobs): the queue itself lives in pg-boss's own schema ───────────

/**
 * One request to grade a run with a judge (`assay run`, POST /runs/{id}/grade). Jobs live in pg-boss;
 * this row is the bookkeeping enqueued in the same transaction, so both commit or neither does.
 */
export const gradingRuns = pgTable(
  'grading_runs',
  {
    id: serial('id').primaryKey(),
    runId: integer('run_id')
      .notNull()
      .references(() => runs.id, { onDelete: 'cascade' }),
    judgeId: integer('judge_id')
      .notNull()
      .references(() => judges.id, { onDelete: 'cascade' }),
    /** How a worker loads the judge (an id in judges/ or a file path); the config hash checks it. */
    judgeRef: text('judge_ref').notNull(),
    /** active | cancelled */
    status: text('status').notNull().default('active'),
    /** Answers with text in the run when last enqueued. */
    total: integer('total').notNull().default(0),
    createdAt: createdAt(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('grading_runs_run_judge_uq').on(t.runId, t.judgeId)],
);

/**
 * Shared request/token buckets per provider:model, refilled continuously and spent atomically by
 * every worker; cooldown_until is set by a 429 and honoured by all of them.
 */
export const rateLimits = pgTable('rate_limits', {
  key: text('key').primaryKey(),
  rpm: doublePrecision('rpm'),
  tpm: doublePrecision('tpm'),
  requests: doublePrecision('requests').notNull().default(0),
  tokens: doublePrecision('tokens').notNull().default(0),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  cooldownUntil: timestamp('cooldown_until', { withTimezone: true }).notNull().defaultNow(),
  throttled: integer('throttled').notNull().default(0),
});

/**
 * Grading workers alive now (src/jobs/liveness.ts): each process heartbeats `last_seen` and the ids of
 * the jobs it holds every few seconds; a worker not seen for the liveness window is dead, and any live
 * worker hands the active jobs nobody live holds back to the queue.
 */
export const workers = pgTable(
  'workers',
  {
    id: text('id').primaryKey(),
    host: text('host').notNull(),
    pid: integer('pid').notNull(),
    startedAt: timestamp('started_at', { withTimezone: true }).notNull().defaultNow(),
    lastSeen: timestamp('last_seen', { withTimezone: true }).notNull().defaultNow(),
    /** The worker's own dead-after time: not seen for this long, it is dead (to every reader). */
    deadAfterMs: integer('dead_after_ms').notNull().default(30000),
    /** Job ids held at the last heartbeat (pg-boss job ids as text). */
    jobs: jsonb('jobs').$type<string[]>().notNull().default([]),
  },
  (t) => [index('workers_last_seen_idx').on(t.lastSeen)],
);

// ─── Provider batch APIs (`assay run --batch`, src/services/batch-grading.ts) ────────────────────

/**
 * One provider batch of a run × judge. The row is written as an `intent` BEFORE the create call and
 * gets its provider id right after, so a crash in between is found again by reconciliation instead of
 * paying twice. state: intent → submitted → ended (provider finished) → reconciled (grades stored).
 */
export const providerBatches = pgTable(
  'provider_batches',
  {
    id: serial('id').primaryKey(),
    runId: integer('run_id')
      .notNull()
      .references(() => runs.id, { onDelete: 'cascade' }),
    judgeId: integer('judge_id')
      .notNull()
      .references(() => judges.id, { onDelete: 'cascade' }),
    provider: text('provider').notNull(),
    state: text('state').notNull().default('intent'),
    providerBatchId: text('provider_batch_id'),
    /** custom_id → answer id of every request in the batch. */
    customIds: jsonb('custom_ids').$type<Record<string, number>>().notNull(),
    /** 1 for the first submission, 2 for the one resubmission of errored / expired / canceled items. */
    attempt: integer('attempt').notNull().default(1),
    createdAt: createdAt(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('provider_batches_run_judge_idx').on(t.runId, t.judgeId),
    check('provider_batches_state_check', sql`${t.state} in ('intent', 'submitted', 'ended', 'reconciled')`),
  ],
);

// ─── Annotation campaigns (issue 14, src/services/campaigns/, migration 0007) ─────────────────────

/** An annotation campaign: its parsed spec (src/domain/campaigns.ts) and the key names it resolved to. */
export const campaigns = pgTable(
  'campaigns',
  {
    id: serial('id').primaryKey(),
    name: text('name').notNull().unique(),
    spec: jsonb('spec').$type<Record<string, unknown>>().notNull(),
    /** k: distinct annotators per answer (also in spec; a column so the queue's SQL reads it). */
    overlap: integer('overlap').notNull(),
    annotators: jsonb('annotators').$type<string[]>().notNull(),
    adjudicators: jsonb('adjudicators').$type<string[]>().notNull().default([]),
    createdAt: createdAt(),
  },
  (t) => [check('campaigns_overlap_check', sql`${t.overlap} >= 1`)],
);

/**
 * The answers of a campaign in queue order (rank 0 first) with why each stands where it does.
 * `assigned` counts the annotators holding it; the queue raises it under the row's lock, never past k.
 */
export const campaignAnswers = pgTable(
  'campaign_answers',
  {
    campaignId: integer('campaign_id')
      .notNull()
      .references(() => campaigns.id, { onDelete: 'cascade' }),
    answerId: integer('answer_id')
      .notNull()
      .references(() => answers.id, { onDelete: 'cascade' }),
    rank: integer('rank').notNull(),
    reason: text('reason').$type<QueueReason>().notNull(),
    assigned: integer('assigned').notNull().default(0),
  },
  (t) => [
    primaryKey({ columns: [t.campaignId, t.answerId] }),
    uniqueIndex('campaign_answers_rank_uq').on(t.campaignId, t.rank),
    index('campaign_answers_answer_idx').on(t.answerId),
    check('campaign_answers_reason_check', isOneOf(t.reason, QUEUE_REASONS)),
    check('campaign_answers_assigned_check', sql`${t.assigned} >= 0`),
  ],
);

/** Which annotator holds which campaign answer; done once every asked-for unit has their label. */
export const campaignAssignments = pgTable(
  'campaign_assignments',
  {
    campaignId: integer('campaign_id').notNull(),
    answerId: integer('answer_id').notNull(),
    annotator: text('annotator').notNull(),
    assignedAt: timestamp('assigned_at', { withTimezone: true }).notNull().defaultNow(),
    doneAt: timestamp('done_at', { withTimezone: true }),
  },
  (t) => [
    primaryKey({ columns: [t.campaignId, t.answerId, t.annotator] }),
    foreignKey({ name: 'campaign_assignments_campaign_answer_fk', columns: [t.campaignId, t.answerId], foreignColumns: [campaignAnswers.campaignId, campaignAnswers.answerId] }).onDelete('cascade'),
    index('campaign_assignments_annotator_idx').on(t.campaignId, t.annotator),
  ],
);

/** An adjudicator's final label of one unit where the annotators disagreed: apart from their labels. */
export const adjudications = pgTable(
  'adjudications',
  {
    id: serial('id').primaryKey(),
    campaignId: integer('campaign_id')
      .notNull()
      .references(() => campaigns.id, { onDelete: 'cascade' }),
    answerId: integer('answer_id')
      .notNull()
      .references(() => answers.id, { onDelete: 'cascade' }),
    itemKey: text('item_key').notNull(),
    label: text('label').notNull(),
    adjudicator: text('adjudicator').notNull(),
    note: text('note'),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('adjudications_campaign_answer_item_uq').on(t.campaignId, t.answerId, t.itemKey),
    index('adjudications_answer_idx').on(t.answerId),
  ],
);

// ─── The database itself ──────────────────────────────────────────────────────────────────────────

/** One fact about this database per key ('seed': the examples digest whose seed is complete here). */
export const assayMeta = pgTable('assay_meta', {
  key: text('key').primaryKey(),
  value: jsonb('value').notNull(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});
