/**
 * "1 replica", "3 replicas", "0 GPUs": a count with its noun in the right number, for every
 * message and screen that prints one (never "replica(s)").
 */
export function counted(n: number, singular: string, plural = `${singular}s`): string {
  return `${n} ${n === 1 ? singular : plural}`;
}
