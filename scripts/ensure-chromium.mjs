// Browser tests run in Debian's Chromium: Playwright's own browser download cannot reach its host
// here. Installs it when missing (as root, through apt-get), or says what to do.
import { execSync } from "node:child_process";
import { existsSync } from "node:fs";

const chromium = process.env.LLMGW_CHROMIUM ?? "/usr/bin/chromium";
if (!existsSync(chromium)) {
  if (process.getuid?.() !== 0) {
    console.error(`Chromium is not at ${chromium}. Install it: sudo apt-get install -y chromium`);
    process.exit(1);
  }
  console.log("Installing Debian's Chromium for the browser tests…");
  const quiet = { stdio: "inherit", env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" } };
  execSync("apt-get update -qq", quiet);
  execSync("apt-get install -y -qq chromium fonts-dejavu-core", quiet);
}
