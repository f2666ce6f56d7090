// Runs test files with node's test runner, several at once, for `make test` and `make test-unit`.
//
//   node scripts/run-tests.mjs [--concurrency=N] [--serial=<file>,...] <file>...
//
// - Files run side by side, N at a time (default 3, make test 4: on two cores most end-to-end files wait on
//   processes, timers and the network more than they compute). Node 20's runner would run one at a
//   time here (availableParallelism() - 1).
// - The files named with --serial run afterwards, one at a time, on a quiet machine: those whose
//   assertions are about time or load (see the Makefile for which, and why).
// - One etcd is started for the run (plain, one member, no fsync) and named in PLAT_TEST_ETCD; end-to-end
//   files that need a plain member take a prefix of their own in it (sharedEtcd() in
//   @plat/storage/testing); run alone, a file starts its own. It is stopped by its PID at the end.
// - Each file's time goes to .test-times.json (slowest first), beside the TAP output on stdout.
import { spawn } from 'node:child_process';
import { startEtcd } from '@plat/storage/testing';

const args = process.argv.slice(2);
const option = (name) => args.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);
const concurrency = Number(option('concurrency') ?? process.env.TEST_CONCURRENCY ?? 3);
const serial = new Set((option('serial') ?? '').split(',').filter(Boolean));
const files = args.filter((arg) => !arg.startsWith('--'));
const isSerial = (file) => [...serial].some((name) => file.endsWith(name));
const parallel = files.filter((file) => !isSerial(file));
const alone = files.filter(isSerial);

// Each file fails after 5 minutes rather than stall the run on a hung watch.
const TIMEOUT_MS = 300_000;

function runNode(list, { concurrency: n, times }) {
  if (list.length === 0) return Promise.resolve(0);
  const argv = [
    '--test',
    `--test-timeout=${TIMEOUT_MS}`,
    `--test-concurrency=${n}`,
    '--test-reporter=tap',
    '--test-reporter-destination=stdout',
    '--test-reporter=./scripts/testing/file-times-reporter.mjs',
    `--test-reporter-destination=${times}`,
    ...list,
  ];
  const child = spawn(process.execPath, argv, { stdio: 'inherit', env: process.env });
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0))));
}

const needsEtcd = files.some((file) => file.startsWith('test/'));
const etcd = needsEtcd && !process.env.PLAT_TEST_ETCD ? await startEtcd() : undefined;
if (etcd) process.env.PLAT_TEST_ETCD = etcd.endpoint;
const stop = async () => {
  await etcd?.stop();
};
process.once('SIGINT', () => void stop().then(() => process.exit(130)));
process.once('SIGTERM', () => void stop().then(() => process.exit(143)));

const started = performance.now();
let code = 0;
try {
  code = await runNode(parallel, { concurrency, times: '.test-times.json' });
  const serialCode = await runNode(alone, { concurrency: 1, times: '.test-times-serial.json' });
  code ||= serialCode;
} finally {
  await stop();
}
console.log(`# run-tests: ${files.length} files (${alone.length} one at a time) in ${((performance.now() - started) / 1000).toFixed(1)} s`);
process.exit(code);
