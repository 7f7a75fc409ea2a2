import type { Logger } from "@llmgw/log";

// SPEC §10.5a: nothing a Hub sends and nothing an operator types takes the server down. Every
// pull catches its own errors (services/pullRunner.ts); this is the net under them. Node ends the
// process on a promise rejection nobody handles; a server answering a fleet would rather log it
// and keep answering. Only `llmgw serve` (and the demo) install it: a test runner must still see
// such a rejection as the failure it is.

let installed = false;

/** Logs a rejection nobody handled instead of exiting. Installed once per process. */
export function guardProcess(log: Logger): void {
  if (installed) return;
  installed = true;
  process.on("unhandledRejection", (reason: unknown) => {
    log.error({ err: reason }, "a promise was rejected and nothing handled it; the server keeps running");
  });
}
