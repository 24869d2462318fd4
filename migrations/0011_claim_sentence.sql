-- The sentence a claim mark (item claim:<n>) was given on: a short hash of its text (services/claim-marks.ts).
-- Nothing is backfilled: which sentence an earlier mark was given on is not known (null: "sentence unknown").
ALTER TABLE "labels" ADD COLUMN "claim_sentence" text;
