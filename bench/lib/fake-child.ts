// The fake provider in its own process for the cold-path bench (a real provider is remote: its HTTP and
// JSON work is not the grader's). Prints its OpenAI base URL, serves until stdin closes.
import { startFakeProvider } from '../../test/fake-provider/server.ts';
import { VERDICTS } from '../../test/jobs/helpers.ts';

const fake = await startFakeProvider({ script: [VERDICTS], latencyMs: Number(process.argv[2] ?? 200) });
process.stdout.write(`${fake.openaiBaseUrl}\n`);
process.stdin.resume();
process.stdin.on('end', () => void fake.close().then(() => process.exit(0)));
