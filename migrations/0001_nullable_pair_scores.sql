ALTER TABLE "assembly_scores" ALTER COLUMN "neighbour" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "assembly_scores" ALTER COLUMN "adjacency" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "assembly_scores" ALTER COLUMN "proximity" DROP NOT NULL;