import type { Api } from '../define-route.ts';
import { registerAnswers } from './answers.ts';
import { registerCalibrate } from './calibrate.ts';
import { registerCampaigns } from './campaigns.ts';
import { registerCatalog } from './catalog.ts';
import { registerGrades } from './grades.ts';
import { registerHealth } from './health.ts';
import { registerJobs } from './jobs.ts';
import { registerKeys } from './keys.ts';
import { registerLabels } from './labels.ts';
import { registerReports } from './reports.ts';
import { registerStats } from './stats.ts';

/** Adds its routes through the API's plumbing (defineRoute records each route's scope; the guard checks it). */
export type RouteModule = (api: Api) => void;

/**
 * The API's route table: every route file exports a register function. Add a file here to ship new
 * routes. The web pages are not in it — api/ never imports web/; src/app.ts mounts them on this app.
 */
export const ROUTE_MODULES: readonly RouteModule[] = [registerHealth, registerKeys, registerCatalog, registerAnswers, registerLabels, registerReports, registerGrades, registerJobs, registerStats, registerCalibrate, registerCampaigns];
