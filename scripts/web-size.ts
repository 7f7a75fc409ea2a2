// Prints the dashboard's first-load JavaScript: the scripts and module preloads index.html names
// (lazy chunks such as the serve wizard are not first-load), raw and gzip.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";

export function firstLoadJs(dist: string): { files: string[]; bytes: number; gzip: number } | null {
  const indexPath = join(dist, "index.html");
  if (!existsSync(indexPath)) return null;
  const html = readFileSync(indexPath, "utf8");
  const files = [
    ...html.matchAll(/<(?:script[^>]*\ssrc|link[^>]*rel="modulepreload"[^>]*\shref)="\/?([^"]+\.js)"/g),
  ]
    .map((m) => m[1])
    .filter((f): f is string => f !== undefined);
  let bytes = 0;
  let gzip = 0;
  for (const file of files) {
    const content = readFileSync(join(dist, file));
    bytes += content.length;
    gzip += gzipSync(content, { level: 9 }).length;
  }
  return { files, bytes, gzip };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const dist = new URL("../apps/web/dist", import.meta.url).pathname;
  const size = firstLoadJs(dist);
  if (!size) {
    console.error("web-size: no build at apps/web/dist; run pnpm build");
    process.exit(1);
  }
  const kb = (n: number) => `${(n / 1000).toFixed(1)} kB`;
  console.log(
    `dashboard first-load JavaScript: ${kb(size.bytes)} raw, ${kb(size.gzip)} gzip (aim ≤ 150 kB gzip) — ${size.files.join(", ")}`,
  );
}
