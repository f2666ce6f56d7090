// CPU lists as Linux writes them (`0-3,8,10-11`), the form of reservedSystemCPUs.

/** The CPUs of the list, ascending; throws with what is wrong when the text is not a CPU list. */
export function parseCPUList(text: string): number[] {
  const cpus = new Set<number>();
  if (text === '') return [];
  for (const part of text.split(',')) {
    const bounds = part.split('-');
    if (bounds.length > 2) throw new Error(`invalid range ${JSON.stringify(part)}`);
    const [start, end] = bounds.map((bound) => {
      if (!/^\d+$/.test(bound)) throw new Error(`${JSON.stringify(bound)} is not a CPU number`);
      return Number(bound);
    }) as [number, number | undefined];
    const last = end ?? start;
    if (start > last) throw new Error(`invalid range ${JSON.stringify(part)} (${start} > ${last})`);
    for (let cpu = start; cpu <= last; cpu++) cpus.add(cpu);
  }
  return [...cpus].sort((a, b) => a - b);
}
