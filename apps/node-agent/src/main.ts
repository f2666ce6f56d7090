// The plat-agent binary: process arguments and streams in, exit status out.
import { runCli } from './cli.js';

const status = await runCli(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
});
process.exitCode = status;
