import { Gauge, type Registry } from "prom-client";

/**
 * A gauge labelled by model, filled when scraped from what `models()` holds then. It is reset
 * first, so a model that holds nothing any more drops out of `/metrics`.
 */
export function perModelGauge<T>(
  registry: Registry,
  models: () => Iterable<readonly [string, T]>,
  name: string,
  help: string,
  value: (held: T) => number,
): Gauge<"model"> {
  return new Gauge({
    name,
    help,
    labelNames: ["model"] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const [model, held] of models()) this.set({ model }, value(held));
    },
  });
}
