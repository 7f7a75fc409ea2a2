// What every bench suite reports: one row per measure, with its peer (measured in the same run)
// and the ratio where there is one, and whether the aim is met.
import { type ChildProcess, fork } from "node:child_process";
import { readFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { fileURLToPath } from "node:url";

export type Row = {
  measure: string;
  value: string;
  peer?: string;
  ratio?: string;
  aim: string;
  met: boolean | null;
};

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return (
    sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN
  );
}

export function load(): string {
  return loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");
}

export function machine(): string {
  return `${cpus()[0]?.model ?? "unknown"} × ${cpus().length}, node ${process.version}`;
}

/** A process's CPU time so far (user + system, all its threads), in ms, from /proc. */
export function cpuMsOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // Fields after the command name (which may hold spaces, inside parentheses): utime is the 14th
  // field of the line, stime the 15th; in clock ticks of 10 ms (CLK_TCK 100 on Linux).
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** A wall clock shared by processes on this machine, to the microsecond. */
export function wallNow(): number {
  return performance.timeOrigin + performance.now();
}

const running = new Set<ChildProcess>();
// A bench that throws must not leave its servers behind.
process.once("exit", () => {
  for (const proc of running) proc.kill("SIGKILL");
});

/**
 * A TypeScript child with an IPC channel. Servers and load generators run in their own processes,
 * so that on a small machine each gets a core and their CPU time is counted apart.
 */
export function child(file: string, args: string[] = [], extraNodeArgs: string[] = []) {
  const path = fileURLToPath(new URL(file, import.meta.url));
  const proc = fork(path, args, {
    // BENCH_PROF=<dir>: a CPU profile of every server, for finding where the time goes.
    execArgv: [
      "--import",
      "tsx",
      ...extraNodeArgs,
      ...(process.env.BENCH_PROF && (file.includes("serve") || file.includes("passProxy"))
        ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_PROF}`]
        : []),
    ],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  running.add(proc);
  proc.once("exit", () => running.delete(proc));
  const waiting: Array<(message: Record<string, unknown>) => void> = [];
  proc.on("message", (message) => waiting.shift()?.(message as Record<string, unknown>));
  return {
    proc,
    /** Sends a command and resolves with the child's next message. */
    ask<T = Record<string, unknown>>(message: Record<string, unknown> | null): Promise<T> {
      return new Promise((resolve, reject) => {
        const onExit = (code: number | null) => reject(new Error(`${file} exited with ${code}`));
        proc.once("exit", onExit);
        waiting.push((m) => {
          proc.off("exit", onExit);
          resolve(m as T);
        });
        if (message) proc.send(message);
      });
    },
    async stop(): Promise<void> {
      if (proc.exitCode !== null) return;
      const exited = new Promise((resolve) => proc.once("exit", resolve));
      proc.kill("SIGTERM");
      await exited;
    },
  };
}
