// What the benchmarks that compare with raw etcd3 share: operations per second at a fixed concurrency.

/** Runs `op` for indexes 0..count-1, `inFlight` at a time; the operations per second achieved. */
export async function measure(count: number, inFlight: number, op: (index: number) => Promise<unknown>): Promise<number> {
  let next = 0;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < count) await op(next++);
    }),
  );
  return Math.round(count / (Number(process.hrtime.bigint() - started) / 1e9));
}
