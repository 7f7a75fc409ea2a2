// Reads Prometheus text the way a scraper does (TYPE lines, samples with labels), so a test
// checks series by name, labels and value rather than by how a line happens to be written.

export type Sample = { name: string; labels: Record<string, string>; value: number };
export type Page = { types: Map<string, string>; samples: Sample[] };

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

export function parsePage(text: string): Page {
  const types = new Map<string, string>();
  const samples: Sample[] = [];
  for (const line of text.split("\n")) {
    if (line.startsWith("# TYPE ")) {
      const [name, type] = line.slice("# TYPE ".length).split(" ");
      if (name && type) types.set(name, type);
      continue;
    }
    if (line === "" || line.startsWith("#")) continue;
    const match = SAMPLE.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? "").matchAll(LABEL)) {
      if (key !== undefined && value !== undefined) labels[key] = value.replace(/\\(.)/g, "$1");
    }
    // Go's ParseFloat (Prometheus) reads NaN in any case; prom-client writes "Nan".
    const raw = match[3] ?? "";
    const value = /^nan$/i.test(raw) ? Number.NaN : Number(raw.replace(/^\+Inf$/, "Infinity"));
    samples.push({ name: match[1] ?? "", labels, value });
  }
  return { types, samples };
}

/** The samples named `name` whose labels include `labels`. */
export function samplesOf(page: Page, name: string, labels: Record<string, string> = {}): Sample[] {
  return page.samples.filter(
    (s) => s.name === name && Object.entries(labels).every(([key, value]) => s.labels[key] === value),
  );
}

/** The sample named `name` with exactly these labels and no others; undefined when absent. */
export function sampleValue(
  page: Page,
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  const wanted = Object.keys(labels).length;
  return samplesOf(page, name, labels).find((s) => Object.keys(s.labels).length === wanted)?.value;
}

/** A histogram's buckets for one label set, as `le` → cumulative count. */
export function bucketsOf(page: Page, name: string, labels: Record<string, string>): Map<string, number> {
  return new Map(samplesOf(page, `${name}_bucket`, labels).map((s) => [s.labels.le ?? "", s.value]));
}
