// The dashboard's first-load JavaScript (gzip), beside a bundle of only the libraries it is built
// on (React, React DOM, TanStack Query, react-hook-form, Zod), built with the same Vite. The
// dashboard is built first, as `pnpm build` does, so the figure is of the code checked out, never
// of an old dist/ or of nothing.
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "vite";
import { firstLoadJs } from "../web-size";
import type { Row } from "./report";

export const names = ["first-load JavaScript"];

// Uses each library the way the dashboard does, so that tree-shaking keeps what an app needs.
const BASELINE_ENTRY = `
import { createElement as h, StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { QueryClient, QueryClientProvider, useQuery, useMutation } from "@tanstack/react-query";
import { useForm } from "react-hook-form";
import { z } from "zod";

const schema = z.object({ name: z.string().regex(/^[A-Za-z0-9._:-]{1,64}$/), memoryGB: z.number().int().min(0) });
function Form() {
  const { register, handleSubmit, formState } = useForm({ defaultValues: { name: "", memoryGB: 0 } });
  const q = useQuery({ queryKey: ["models"], queryFn: () => fetch("/api/v1/models").then((r) => r.json()) });
  const m = useMutation({ mutationFn: (v) => fetch("/api/v1/models", { method: "POST", body: JSON.stringify(v) }) });
  return h("form", { onSubmit: handleSubmit((v) => { const r = schema.safeParse(v); if (r.success) m.mutate(r.data); }) },
    h("input", register("name")), h("input", register("memoryGB")), String(formState.isDirty), JSON.stringify(q.data ?? null));
}
createRoot(document.getElementById("root")).render(
  h(StrictMode, null, h(QueryClientProvider, { client: new QueryClient() }, h(Form))),
);
`;

export async function run(): Promise<Row[]> {
  const web = fileURLToPath(new URL("../../apps/web/", import.meta.url));
  const dist = join(web, "dist");
  await build({ root: web, logLevel: "warn" });
  const app = firstLoadJs(dist);
  if (!app) throw new Error(`building the dashboard wrote no index.html in ${dist}`);
  // Inside apps/web/node_modules, so the baseline resolves the dashboard's own copies of the libraries.
  const cache = join(web, "node_modules", ".cache");
  if (!existsSync(cache)) await (await import("node:fs/promises")).mkdir(cache, { recursive: true });
  const root = await mkdtemp(join(cache, "bench-baseline-"));
  try {
    await writeFile(join(root, "main.js"), BASELINE_ENTRY);
    await writeFile(
      join(root, "index.html"),
      `<!doctype html><div id="root"></div><script type="module" src="/main.js"></script>`,
    );
    await build({
      root,
      logLevel: "silent",
      configFile: false,
      build: { outDir: join(root, "dist"), emptyOutDir: true },
    });
    const base = firstLoadJs(join(root, "dist"));
    if (!base) throw new Error("the baseline build wrote no index.html");
    const kb = (n: number) => `${(n / 1000).toFixed(1)} kB`;
    console.log(
      `first-load JavaScript: dashboard ${kb(app.gzip)} gzip (${kb(app.bytes)} raw, ${app.files.join(", ")}); libraries alone ${kb(base.gzip)} gzip (${kb(base.bytes)} raw)`,
    );
    return [
      {
        measure: "dashboard first-load JavaScript, gzip",
        value: kb(app.gzip),
        peer: `React + Query + react-hook-form + Zod alone: ${kb(base.gzip)}`,
        ratio: `${(app.gzip / base.gzip).toFixed(2)}×`,
        aim: "≤ 150 kB",
        met: app.gzip <= 150_000,
      },
    ];
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
