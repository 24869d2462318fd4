import type { Api } from '../define-route.ts';
import { registerAnswers } from './answers.ts';
import { registerCatalog } from './catalog.ts';
import { registerGrades } from './grades.ts';
import { registerHealth } from './health.ts';
import { registerJobs } from './jobs.ts';
import { registerKeys } from './keys.ts';
import { registerLabels } from './labels.ts';
import { registerReports } from './reports.ts';
import { registerWeb } from '../../web/index.tsx';

/**
 * The route table: every route file exports a register function that adds its routes through
 * defineRoute (which records each route's scope). Add a file here to ship new routes.
 */
export const ROUTE_MODULES: ReadonlyArray<(api: Api) => void> = [registerHealth, registerKeys, registerCatalog, registerAnswers, registerLabels, registerReports, registerGrades, registerJobs, registerWeb];
