// `npm start`. Until the server lands (issue 4) it prints the CLI help.
import { main } from './cli/main.ts';

process.exitCode = await main(['--help']);
